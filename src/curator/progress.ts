/**
 * Progress of a long index build (embedding a cold catalog can take minutes): a log line
 * on stderr at most every few seconds with the count, the rate and an ETA, and the same
 * figures to an optional listener (`tool-curator index` draws a bar from it). Also the one
 * way the build gives the event loop back between chunks of work, so a host's requests
 * (tools/list, find_tools from BM25) are answered while the index builds.
 */
import { log } from '../log.js';

/** One progress report: texts embedded so far of `total`, texts/s since the start, seconds left (undefined before the first batch). */
export interface BuildProgress {
  done: number;
  total: number;
  ratePerSecond: number;
  etaSeconds: number | undefined;
}

export type ProgressListener = (progress: BuildProgress) => void;

/** Log a progress line at most this often (ms): often enough to show life, rarely enough to stay readable. */
export const PROGRESS_LOG_EVERY_MS = 5_000;

/** Lets pending I/O (requests, timers) run before the next chunk of synchronous work. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Counts work done against a known total; logs and notifies as described above. */
export class ProgressMeter {
  private done = 0;
  private readonly started = performance.now();
  private lastLog = this.started;

  /** Logs the start of a build with work to do at once, so a cold build is visible before its first batch is done. */
  constructor(
    private readonly total: number,
    private readonly what: Record<string, unknown>,
    private readonly listener?: ProgressListener,
  ) {
    if (total > 0) log.info({ ...what, done: 0, total }, `curator: embedding the catalog, ${total} texts to embed`);
  }

  advance(n: number): void {
    this.done += n;
    const now = performance.now();
    const seconds = (now - this.started) / 1000;
    const rate = seconds > 0 ? this.done / seconds : 0;
    const progress: BuildProgress = {
      done: this.done,
      total: this.total,
      ratePerSecond: Math.round(rate * 10) / 10,
      etaSeconds: rate > 0 ? Math.round((this.total - this.done) / rate) : undefined,
    };
    this.listener?.(progress);
    // The first batch is always reported: it gives the rate and the ETA.
    if (this.done === n || now - this.lastLog >= PROGRESS_LOG_EVERY_MS || this.done >= this.total) {
      this.lastLog = now;
      if (this.done === n || this.done < this.total || seconds * 1000 >= PROGRESS_LOG_EVERY_MS) log.info({ ...this.what, ...progress }, 'curator: embedding the catalog');
    }
  }
}
