/**
 * Gives back the memory a burst of requests leaves behind, once the serving process is
 * idle. V8 collects garbage when the process allocates; an idle gateway allocates next to
 * nothing, so a burst's garbage and the young generation V8 grew into during it (up
 * to 32 MiB of new space, from 1 MiB) stay resident, V8 giving them back by itself late
 * if at all: after the 10,000-message stdio fuzz the gateway held nothing more than
 * before it, yet its RSS stayed above its level before the fuzz for a minute and more of
 * idling (docs/RELIABILITY.md, "Fuzz").
 *
 * Every CHECK_MS: when the event loop was busy less than IDLE_UTILIZATION of that time and
 * the V8 heap has grown by GROWTH_BYTES since the last collection, one full collection
 * runs (the in-process inspector's `HeapProfiler.collectGarbage`; no `--expose-gc`
 * needed). It costs the main thread tens to hundreds of milliseconds, once per burst,
 * at a time nothing waits for it.
 */
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import { log } from '../log.js';

/** How often the heap and the event loop are looked at. */
const CHECK_MS = 5_000;
/** An event loop busy less than this share of CHECK_MS is idle. */
const IDLE_UTILIZATION = 0.05;
/** Heap growth since the last collection that makes one worth its cost: a burst grows the young generation alone by up to 31 MiB. */
const GROWTH_BYTES = 16 * 2 ** 20;

/** What the collector reads and does; `processProbes()` gives the process's own. */
export interface CollectorProbes {
  /** The V8 heap's size in bytes (`total_heap_size`: live objects, garbage and free space V8 holds). */
  heapBytes(): number;
  /** Share (0–1) of the time since the last call that the event loop was busy. */
  utilization(): number;
  /** Runs one full garbage collection. */
  collect(): Promise<void>;
}

/**
 * Decides, one check at a time, whether a collection is due, and runs it.
 *
 * ### Usage
 * ```ts
 * const collector = new IdleCollector(probes);
 * await collector.check(); // true when it collected
 * collector.collections;   // how many times it has
 * ```
 */
export class IdleCollector {
  /** Collections run so far. */
  collections = 0;
  /** The heap's size after the last collection (at first: when the collector was made). */
  private floor: number;

  constructor(private readonly probes: CollectorProbes) {
    this.floor = probes.heapBytes();
  }

  /** One check: collects when the event loop was idle and the heap grew by GROWTH_BYTES since the last collection. Resolves true when it collected. */
  async check(): Promise<boolean> {
    const idle = this.probes.utilization() < IDLE_UTILIZATION;
    const before = this.probes.heapBytes();
    if (!idle || before < this.floor + GROWTH_BYTES) return false;
    const started = performance.now();
    await this.probes.collect();
    this.floor = this.probes.heapBytes();
    this.collections++;
    const mib = (n: number) => Math.round(n / 2 ** 20);
    const ms = Math.round(performance.now() - started);
    log.debug({ beforeMiB: mib(before), afterMiB: mib(this.floor), ms, collections: this.collections }, `memory: idle after a burst; heap ${mib(before)} → ${mib(this.floor)} MiB in ${ms} ms`);
    return true;
  }
}

/** One full collection through the in-process inspector. */
async function inspectorCollect(): Promise<void> {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.collectGarbage');
  } finally {
    session.disconnect();
  }
}

/** The probes of this process: its V8 heap, its event loop, a collection through the in-process inspector. */
export function processProbes(): CollectorProbes {
  let last = performance.eventLoopUtilization();
  return {
    heapBytes: () => v8.getHeapStatistics().total_heap_size,
    utilization: () => {
      const now = performance.eventLoopUtilization();
      const since = performance.eventLoopUtilization(now, last);
      last = now;
      return since.utilization;
    },
    collect: inspectorCollect,
  };
}

/** Checks every CHECK_MS (an unref'd timer: it never keeps the process alive) for the rest of the process's life. */
export function collectWhenIdle(): IdleCollector {
  const collector = new IdleCollector(processProbes());
  let running = false;
  setInterval(() => {
    if (running) return;
    running = true;
    collector
      .check()
      .catch((err: Error) => log.debug({ err: err.message }, 'memory: idle collection failed'))
      .finally(() => (running = false));
  }, CHECK_MS).unref();
  return collector;
}
