/**
 * The change stream of a 2026-07-28 upstream: such a server sends `list_changed` only on
 * a `subscriptions/listen` stream its client opened (a 2025 one sends them unsolicited).
 * One stream per connection, asking for what the upstream advertises; its notifications
 * reach the handlers the pool registered, the same as a 2025 upstream's. A stream that
 * drops ('remote') is opened again with backoff while the connection is the current one.
 */
import type { ServerCapabilities, SubscriptionFilter } from '@modelcontextprotocol/client';
import { log } from '../log.js';
import type { Connection } from './connect.js';

/** First delay before a dropped stream is opened again; doubles per failure up to 30 s. */
const RELISTEN_BASE_MS = 1000;

/** The listen filter for what `caps` advertises; empty when the upstream announces no changes. */
export function changeFilter(caps: ServerCapabilities | undefined): SubscriptionFilter {
  return {
    ...(caps?.tools?.listChanged && { toolsListChanged: true }),
    ...(caps?.prompts?.listChanged && { promptsListChanged: true }),
    ...(caps?.resources?.listChanged && { resourcesListChanged: true }),
  };
}

/**
 * Keeps a listen stream open on `conn` while `current()` holds (the pool's connection
 * is still this one). Never throws: a refused stream is logged and tried again.
 */
export function listen(upstream: string, conn: Pick<Connection, 'client'>, caps: ServerCapabilities | undefined, current: () => boolean): void {
  const filter = changeFilter(caps);
  if (Object.keys(filter).length === 0) return;
  const open = async (failures: number): Promise<void> => {
    if (!current()) return;
    try {
      const subscription = await conn.client.listen(filter);
      log.debug({ upstream, honored: subscription.honoredFilter }, 'listening for upstream changes');
      const reason = await subscription.closed;
      // 'local': our client closed; 'graceful': the upstream ended it on purpose (it is shutting down).
      if (reason !== 'remote' || !current()) return;
      failures = 0;
    } catch (err) {
      log.warn({ upstream, err: (err as Error).message }, 'subscriptions/listen refused; trying again');
      failures++;
    }
    setTimeout(() => void open(failures), Math.min(RELISTEN_BASE_MS * 2 ** failures, 30_000)).unref();
  };
  void open(0);
}
