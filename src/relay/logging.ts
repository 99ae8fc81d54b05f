/**
 * Logging, host ↔ upstream. An upstream's `notifications/message` goes to the sessions
 * with a tools/call in flight to that upstream; outside any call, to every session whose
 * persona may use that upstream. Each session gets only messages at or above the level it
 * set with `logging/setLevel`. The gateway answers `logging/setLevel` itself (per session)
 * and passes the most verbose level any session asked for on to the upstreams that offer
 * logging, so no session misses what it asked for; the per-session filter does the rest.
 * A flood is cut to a rate per upstream and session (logRate.ts).
 */
import type { Client, LoggingLevel, LoggingMessageNotification } from '@modelcontextprotocol/client';
import { LoggingLevelSchema } from '@modelcontextprotocol/core';
import { log } from '../log.js';
import type { HostRequest, HostSession } from './types.js';

/** Severity rank: debug 0 … emergency 7 (RFC 5424 order, as the MCP spec lists them). */
const SEVERITY = new Map(LoggingLevelSchema.options.map((level, i) => [level, i]));

/** Whether a message at `level` passes a session that set `threshold` (none set: everything passes). */
export function passes(level: LoggingLevel, threshold: LoggingLevel | undefined): boolean {
  return threshold === undefined || SEVERITY.get(level)! >= SEVERITY.get(threshold)!;
}

/** The most verbose of `levels`, or undefined when none is set. */
export function mostVerbose(levels: (LoggingLevel | undefined)[]): LoggingLevel | undefined {
  let best: LoggingLevel | undefined;
  for (const l of levels) if (l !== undefined && (best === undefined || SEVERITY.get(l)! < SEVERITY.get(best)!)) best = l;
  return best;
}

/** Where a log message of an upstream goes. */
export interface LogTargets {
  /** Host requests in flight to the upstream, oldest first. */
  inFlight: HostRequest[];
  /** Sessions whose persona may use the upstream (used when nothing is in flight). */
  mayUse: HostSession[];
  /** Whether the session may get one more message now (logRate.ts); default: always. */
  admit?: (session: HostSession) => boolean;
}

/** Sends `params` to its targets: in-flight sessions on the call's own stream, else the permitted sessions. */
export async function deliverLog(upstream: string, params: LoggingMessageNotification['params'], targets: LogTargets): Promise<void> {
  const message = { method: 'notifications/message' as const, params };
  const sends: Promise<void>[] = [];
  const wanted = (s: HostSession) => passes(params.level, s.logLevel) && (targets.admit?.(s) ?? true);
  if (targets.inFlight.length > 0) {
    const seen = new Set<string>();
    for (const r of targets.inFlight) {
      if (seen.has(r.session.id)) continue;
      seen.add(r.session.id);
      if (wanted(r.session)) sends.push(r.sendNotification(message));
    }
  } else {
    for (const s of targets.mayUse) if (wanted(s)) sends.push(s.server.notification(message));
  }
  for (const r of await Promise.allSettled(sends)) {
    if (r.status === 'rejected') log.debug({ upstream, err: (r.reason as Error).message }, 'could not relay a log message (host gone?)');
  }
}

/** Routes `client`'s log messages through `targets(upstream)`. */
export function relayLogging(upstream: string, client: Client, targets: (upstream: string) => LogTargets): void {
  client.setNotificationHandler('notifications/message', (n) => deliverLog(upstream, n.params, targets(upstream)));
}

/** Sets `level` on every upstream that offers logging; failures are logged, never thrown. */
export async function setUpstreamLevel(upstreams: Map<string, Client>, level: LoggingLevel, timeoutMs: number): Promise<void> {
  await Promise.all(
    [...upstreams].map(async ([name, client]) => {
      if (!client.getServerCapabilities()?.logging) return;
      await client.setLoggingLevel(level, { timeout: timeoutMs }).catch((err: Error) => log.warn({ upstream: name, level, err: err.message }, 'could not pass logging/setLevel on'));
    }),
  );
}
