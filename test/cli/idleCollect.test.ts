/**
 * The idle collector's decisions, one check at a time, over probes the test sets: it
 * collects once after a burst when the event loop goes idle, never while busy, never
 * without growth, and not again until the heap grows anew. Then the real probes of this
 * process: a burst's garbage grown past the threshold is collected on the first idle check.
 */
import v8 from 'node:v8';
import { describe, expect, test } from 'vitest';
import { IdleCollector, processProbes } from '../../src/cli/idleCollect.js';

const MiB = 2 ** 20;

/** Probes whose heap size and utilization the test sets; collect() shrinks the heap to `live`. */
function fakeProbes(start: number) {
  const state = { heap: start, live: start, utilization: 0, collected: 0 };
  return {
    state,
    probes: {
      heapBytes: () => state.heap,
      utilization: () => state.utilization,
      collect: async () => {
        state.collected++;
        state.heap = state.live;
      },
    },
  };
}

describe('IdleCollector', () => {
  test('collects once when the event loop goes idle after the heap grew, not before, not twice', async () => {
    const { state, probes } = fakeProbes(30 * MiB);
    const collector = new IdleCollector(probes);
    // A burst: the heap grows by 40 MiB while the event loop is busy.
    state.heap = 70 * MiB;
    state.live = 31 * MiB;
    state.utilization = 0.6;
    expect(await collector.check()).toBe(false);
    expect(state.collected).toBe(0);
    // Idle: one collection.
    state.utilization = 0.001;
    expect(await collector.check()).toBe(true);
    expect([state.collected, collector.collections, state.heap]).toEqual([1, 1, 31 * MiB]);
    // Still idle, nothing grew: no second collection.
    expect(await collector.check()).toBe(false);
    expect(state.collected).toBe(1);
  });

  test('idle without growth past 16 MiB: no collection; growth counts from the last collection', async () => {
    const { state, probes } = fakeProbes(30 * MiB);
    const collector = new IdleCollector(probes);
    state.heap = 45 * MiB;
    expect(await collector.check()).toBe(false);
    state.heap = 47 * MiB;
    state.live = 40 * MiB;
    expect(await collector.check()).toBe(true);
    state.heap = 55 * MiB;
    expect(await collector.check()).toBe(false);
    state.heap = 57 * MiB;
    expect(await collector.check()).toBe(true);
    expect(state.collected).toBe(2);
  });
});

test('the process probes: garbage past the threshold is collected on an idle check, and the young generation shrinks', async () => {
  const young = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_size;
  const probes = processProbes();
  const collector = new IdleCollector({ ...probes, utilization: () => 0 });
  // A burst of short-lived objects: the young generation grows into its larger semi-spaces.
  let keep: unknown[] = [];
  for (let i = 0; i < 300_000; i++) {
    keep.push(JSON.parse(JSON.stringify({ text: 'x'.repeat(200), i, list: [1, 2, 3] })));
    if (keep.length > 2_000) keep = [];
  }
  const grown = young();
  // Garbage the old generation holds until a full collection: 64 MiB of strings dropped at once.
  let held: string[] | undefined = Array.from({ length: 64 }, (_, i) => `${i}`.padEnd(MiB, 'y'));
  held = undefined;
  expect(held).toBeUndefined();
  expect(await collector.check()).toBe(true);
  expect(collector.collections).toBe(1);
  expect(young()).toBeLessThan(grown);
});
