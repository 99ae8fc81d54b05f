/**
 * The rate bound on relayed log messages: one upstream sends one session at most
 * `perSecond` messages in any second (a token bucket of that size, refilled as time
 * passes), so a flood from an upstream is neither queued without bound towards a slow
 * host nor passed on in full. What is dropped is counted, and a second after the last
 * drop the session gets one warning from the gateway saying how many messages it missed.
 */
import type { LoggingMessageNotification } from '@modelcontextprotocol/server';
import type { HostSession } from './types.js';

interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date (performance.now()). */
  at: number;
  dropped: number;
  lastDrop: number;
  report?: NodeJS.Timeout;
}

/** Quiet time after the last drop before the session is told what it missed. */
const REPORT_AFTER_MS = 1000;

/** The warning a session gets for `dropped` messages of `upstream`. */
export function droppedNotice(upstream: string, dropped: number, perSecond: number): LoggingMessageNotification['params'] {
  return {
    level: 'warning',
    logger: 'tool-curator',
    data: `dropped ${dropped} log messages of upstream "${upstream}": more than ${perSecond} per second (relay.max_log_per_second)`,
  };
}

export class LogRate {
  private readonly buckets = new WeakMap<HostSession, Map<string, Bucket>>();

  /**
   * @param perSecond messages per upstream and session per second (config `relay.max_log_per_second`).
   * @param report sends a session the warning about what was dropped.
   */
  constructor(
    private readonly perSecond: number,
    private readonly report: (session: HostSession, upstream: string, dropped: number) => void,
  ) {}

  /** Whether a message of `upstream` may go to `session` now; counts it as dropped when not. */
  admit(session: HostSession, upstream: string): boolean {
    let bySession = this.buckets.get(session);
    if (!bySession) this.buckets.set(session, (bySession = new Map()));
    let bucket = bySession.get(upstream);
    const now = performance.now();
    if (!bucket) bySession.set(upstream, (bucket = { tokens: this.perSecond, at: now, dropped: 0, lastDrop: 0 }));
    bucket.tokens = Math.min(this.perSecond, bucket.tokens + ((now - bucket.at) * this.perSecond) / 1000);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return true;
    }
    bucket.dropped++;
    bucket.lastDrop = now;
    if (!bucket.report) this.reportLater(session, upstream, bucket, REPORT_AFTER_MS);
    return false;
  }

  /** Tells `session` what it missed once no message has been dropped for REPORT_AFTER_MS. */
  private reportLater(session: HostSession, upstream: string, bucket: Bucket, ms: number): void {
    bucket.report = setTimeout(() => {
      const quiet = performance.now() - bucket.lastDrop;
      if (quiet < REPORT_AFTER_MS) return this.reportLater(session, upstream, bucket, REPORT_AFTER_MS - quiet);
      const dropped = bucket.dropped;
      bucket.dropped = 0;
      bucket.report = undefined;
      this.report(session, upstream, dropped);
    }, ms);
    bucket.report.unref();
  }
}
