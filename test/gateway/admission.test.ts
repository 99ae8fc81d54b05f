/**
 * Bounded admission of find_tools (src/gateway/admission.ts): how many searches run at
 * once, in what order the waiting ones start, when one is refused, and that a lane is
 * given back only after a turn of the event loop (other requests are served between
 * searches). Asserted by the order of events, never by time.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { Admission, BusyError } from '../../src/gateway/admission.js';

/** A search that ends when `finish()` is called. */
function search(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    finish,
    work: async () => {
      log.push(`start ${name}`);
      await done;
      log.push(`end ${name}`);
      return name;
    },
  };
}

describe('Admission', () => {
  it('runs at most `lanes` searches at once; the others start in arrival order as lanes come back', async () => {
    const admission = new Admission(2, 10);
    const log: string[] = [];
    const s = ['a', 'b', 'c', 'd'].map((n) => search(log, n));
    const results = s.map((x) => admission.run(x.work));
    await nextTurn();
    expect(log).toEqual(['start a', 'start b']);
    expect(admission.load).toEqual({ active: 2, queued: 2 });
    s[1]!.finish();
    await results[1];
    expect(log).toEqual(['start a', 'start b', 'end b']);
    await nextTurn();
    await nextTurn();
    expect(log).toEqual(['start a', 'start b', 'end b', 'start c']);
    s[0]!.finish();
    s[2]!.finish();
    s[3]!.finish();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd']);
    await nextTurn();
    await nextTurn();
    expect(admission.load).toEqual({ active: 0, queued: 0 });
  });

  it('refuses a search at once, running nothing, when maxQueued are already waiting', async () => {
    const admission = new Admission(1, 2);
    const log: string[] = [];
    const s = ['a', 'b', 'c'].map((n) => search(log, n));
    const results = s.map((x) => admission.run(x.work));
    let ran = false;
    const refused = admission.run(async () => {
      ran = true;
      return 'd';
    });
    await expect(refused).rejects.toThrow(BusyError);
    await expect(refused).rejects.toThrow('the gateway is busy: 2 find_tools requests are already waiting; retry in a second');
    expect(ran).toBe(false);
    for (const x of s) x.finish();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c']);
  });

  it('gives a lane back a turn of the event loop after a search ends, not in the same turn', async () => {
    const admission = new Admission(1, 10);
    const log: string[] = [];
    const first = search(log, 'a');
    const second = search(log, 'b');
    const a = admission.run(first.work);
    const b = admission.run(second.work);
    await nextTurn();
    first.finish();
    await a;
    // The caller's own work on the result (here: this line) comes before the next search starts.
    log.push('answer a');
    await nextTurn();
    await nextTurn();
    expect(log).toEqual(['start a', 'end a', 'answer a', 'start b']);
    second.finish();
    expect(await b).toBe('b');
  });
});
