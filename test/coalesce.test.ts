/**
 * The Coalescer (src/coalesce.ts): a burst of requests is one run, runs never overlap,
 * a request during a run is one more run after it, and stop() drops what is scheduled.
 */
import { describe, expect, it } from 'vitest';
import { Coalescer } from '../src/coalesce.js';

/** A task that records its runs and finishes when the test says so. */
function gatedTask() {
  const runs: number[] = [];
  let running = 0;
  let overlap = 0;
  const gates: (() => void)[] = [];
  const task = async () => {
    running++;
    overlap = Math.max(overlap, running);
    runs.push(runs.length + 1);
    await new Promise<void>((resolve) => gates.push(resolve));
    running--;
  };
  const release = async () => {
    while (gates.length === 0) await new Promise((r) => setTimeout(r, 5));
    gates.shift()!();
  };
  return { task, runs, release, overlap: () => overlap };
}

describe('Coalescer', () => {
  it('1,000 requests in a burst: one run', async () => {
    const t = gatedTask();
    const c = new Coalescer(t.task, 20);
    for (let i = 0; i < 1000; i++) c.request();
    await t.release();
    await c.settled();
    expect(t.runs).toEqual([1]);
    expect(c.runs).toBe(1);
  });

  it('requests during a run: exactly one more run after it, never two at once', async () => {
    const t = gatedTask();
    const c = new Coalescer(t.task, 5);
    c.request();
    while (t.runs.length === 0) await new Promise((r) => setTimeout(r, 5));
    for (let i = 0; i < 50; i++) c.request();
    await t.release();
    await t.release();
    await c.settled();
    expect(t.runs).toEqual([1, 2]);
    expect(t.overlap()).toBe(1);
  });

  it('settled() is immediate when idle; stop() drops a scheduled run; a failing run is reported and the next one still runs', async () => {
    const idle = new Coalescer(async () => undefined, 5);
    await idle.settled();
    expect(idle.runs).toBe(0);

    let ran = 0;
    const stopped = new Coalescer(async () => void ran++, 5);
    stopped.request();
    stopped.stop();
    stopped.request();
    await stopped.settled();
    await new Promise((r) => setTimeout(r, 30));
    expect(ran).toBe(0);

    const errors: string[] = [];
    let calls = 0;
    const failing = new Coalescer(async () => {
      calls++;
      if (calls === 1) throw new Error('first run fails');
    }, 5, (err) => errors.push((err as Error).message));
    failing.request();
    await failing.settled();
    failing.request();
    await failing.settled();
    expect([calls, errors]).toEqual([2, ['first run fails']]);
  });
});
