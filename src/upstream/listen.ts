/**
 * What a connection to an upstream carries besides answers: its list changes and the
 * resources the gateway is subscribed to. A 2025-11-25 upstream sends list_changed
 * unsolicited and takes resources/subscribe and resources/unsubscribe per URI. A
 * 2026-07-28 upstream has neither: it sends changes only on a `subscriptions/listen`
 * stream its client opened, whose filter names the list changes wanted (what the upstream
 * advertises) and every subscribed URI (`resourceSubscriptions`). For such an upstream one
 * stream per connection carries both: a change of the subscribed URIs opens a stream with
 * the new filter, and the old one closes once the upstream has acknowledged the new one,
 * so no update is lost in between (one published in that moment may arrive twice; it only
 * says "read it again"). Nothing left to carry, no stream. A stream that drops ('remote')
 * is opened again with backoff while the connection is the current one. The notifications
 * reach the handlers the pool registered, as a 2025 upstream's do.
 */
import { ProtocolError, ProtocolErrorCode, type Client, type McpSubscription, type ServerCapabilities, type SubscriptionFilter } from '@modelcontextprotocol/client';
import { log } from '../log.js';
import type { Connection } from './connect.js';

/** First delay before a dropped stream is opened again; doubles per failure up to 30 s. */
const RELISTEN_BASE_MS = 1000;

/** URIs one listen stream carries at most: every subscription of every host to one upstream connection. */
export const MAX_LISTEN_URIS = 10_000;
/**
 * Characters of those URIs together at most (1 MiB): each change of them sends the whole
 * filter, which stays well under the 4 MiB request body an SDK server takes by default.
 */
export const MAX_LISTEN_URI_CHARS = 1_048_576;

/** A connection's resource subscriptions, whatever the upstream's era. */
export interface ResourceWatch {
  /** Subscribes the connection to `uri`. @throws the upstream's refusal; an Error naming the bound reached. */
  subscribe(uri: string): Promise<void>;
  /** Ends the connection's subscription to `uri` (nothing happens for one it does not hold). @throws the upstream's error (2025). */
  unsubscribe(uri: string): Promise<void>;
}

export interface WatchOptions {
  /** Whether the connection is still the one in use: a dropped stream is opened again only while it is. */
  current: () => boolean;
  /** Wait for the upstream's answer to a subscribe or unsubscribe, or for its acknowledgement of a listen stream, in ms. */
  timeoutMs: number;
  /** URIs one listen stream carries at most. Default MAX_LISTEN_URIS. */
  maxUris?: number;
  /** Characters of those URIs together at most. Default MAX_LISTEN_URI_CHARS. */
  maxUriChars?: number;
}

/** The listen filter for the list changes `caps` advertises; empty when the upstream announces none. */
export function changeFilter(caps: ServerCapabilities | undefined): SubscriptionFilter {
  return {
    ...(caps?.tools?.listChanged && { toolsListChanged: true }),
    ...(caps?.prompts?.listChanged && { promptsListChanged: true }),
    ...(caps?.resources?.listChanged && { resourcesListChanged: true }),
  };
}

/**
 * Starts following `conn`'s changes (at 2026-07-28 its list-change stream opens at once)
 * and returns how to subscribe it to resources. Never throws.
 *
 * ### Usage
 * ```ts
 * const watch = watchChanges('docs', conn, { current: () => pool.conn === conn, timeoutMs: 30_000 });
 * await watch.subscribe('file:///notes.md'); // notifications/resources/updated follow
 * await watch.unsubscribe('file:///notes.md');
 * ```
 */
export function watchChanges(upstream: string, conn: Pick<Connection, 'client' | 'era'>, opts: WatchOptions): ResourceWatch {
  if (conn.era === '2026-07-28') return new ListenStream(upstream, conn.client, opts);
  const { client } = conn;
  return {
    subscribe: async (uri) => void (await client.subscribeResource({ uri }, { timeout: opts.timeoutMs })),
    unsubscribe: async (uri) => void (await client.unsubscribeResource({ uri }, { timeout: opts.timeoutMs })),
  };
}

/** The one listen stream of a 2026-07-28 connection. */
class ListenStream implements ResourceWatch {
  private readonly flags: SubscriptionFilter;
  private readonly subscribable: boolean;
  /** The URIs subscribed to, in the order they came. */
  private readonly wanted = new Set<string>();
  private chars = 0;
  /** The open stream and the URIs the upstream agreed to carry on it. */
  private stream?: { subscription: McpSubscription; carried: ReadonlySet<string> };
  /** The stream being brought up to `wanted`; callers meanwhile wait for the same run. */
  private syncing?: Promise<void>;
  private again = false;
  /** Why the last attempt to open a stream failed, for the subscribers who waited on it. */
  private refusal?: Error;
  private failures = 0;
  private retry?: NodeJS.Timeout;

  constructor(
    private readonly upstream: string,
    private readonly client: Client,
    private readonly opts: WatchOptions,
  ) {
    const caps = client.getServerCapabilities();
    this.flags = changeFilter(caps);
    this.subscribable = caps?.resources?.subscribe === true;
    void this.sync();
  }

  async subscribe(uri: string): Promise<void> {
    if (!this.subscribable) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `upstream "${this.upstream}" offers no resource subscriptions`);
    if (!this.wanted.has(uri)) {
      const { maxUris = MAX_LISTEN_URIS, maxUriChars = MAX_LISTEN_URI_CHARS } = this.opts;
      if (this.wanted.size >= maxUris || this.chars + uri.length > maxUriChars) {
        throw new Error(`the gateway's subscriptions/listen stream to upstream "${this.upstream}" already carries ${this.wanted.size} resource subscriptions (at most ${maxUris} URIs, ${maxUriChars} characters together); unsubscribe from some first`);
      }
      this.wanted.add(uri);
      this.chars += uri.length;
    }
    await this.sync();
    if (this.stream?.carried.has(uri)) return;
    this.forget(uri);
    throw this.refusal ?? new Error(`upstream "${this.upstream}" did not take a subscription to ${uri} on its subscriptions/listen stream`);
  }

  async unsubscribe(uri: string): Promise<void> {
    if (this.forget(uri)) await this.sync();
  }

  private forget(uri: string): boolean {
    if (!this.wanted.delete(uri)) return false;
    this.chars -= uri.length;
    return true;
  }

  /** Brings the stream up to `wanted`; resolves once a run that started after this call has ended. Never rejects. */
  private sync(): Promise<void> {
    this.again = true;
    this.syncing ??= this.drain();
    return this.syncing;
  }

  private async drain(): Promise<void> {
    while (this.again) {
      this.again = false;
      await this.reopen();
    }
    this.syncing = undefined;
  }

  /** Opens a stream with the filter of now, then closes the one it replaces (an open stream stays when the new one is refused). */
  private async reopen(): Promise<void> {
    clearTimeout(this.retry);
    this.retry = undefined;
    this.refusal = undefined;
    const old = this.stream;
    const uris = [...this.wanted];
    const filter: SubscriptionFilter = { ...this.flags, ...(uris.length > 0 && { resourceSubscriptions: uris }) };
    if (!this.opts.current() || Object.keys(filter).length === 0) {
      this.stream = undefined;
      await old?.subscription.close();
      return;
    }
    try {
      const subscription = await this.client.listen(filter, { timeout: this.opts.timeoutMs });
      const honored = subscription.honoredFilter;
      this.stream = { subscription, carried: new Set(honored.resourceSubscriptions ?? []) };
      this.failures = 0;
      log.debug({ upstream: this.upstream, honored: { ...honored, resourceSubscriptions: honored.resourceSubscriptions?.length } }, 'listening for upstream changes');
      void subscription.closed.then((reason) => this.closed(subscription, reason));
    } catch (err) {
      this.refusal = err as Error;
      log.warn({ upstream: this.upstream, err: this.refusal.message }, 'subscriptions/listen refused');
      // Without a stream nothing arrives: tried again later. An open one still carries what it did.
      if (!old) this.later();
      return;
    }
    await old?.subscription.close();
  }

  private closed(subscription: McpSubscription, reason: 'local' | 'graceful' | 'remote'): void {
    if (this.stream?.subscription !== subscription) return;
    this.stream = undefined;
    // 'local': closed here; 'graceful': the upstream ended it on purpose (it is shutting down).
    if (reason === 'remote') this.later();
  }

  private later(): void {
    if (this.retry || !this.opts.current()) return;
    const delay = Math.min(RELISTEN_BASE_MS * 2 ** this.failures++, 30_000);
    this.retry = setTimeout(() => void this.sync(), delay).unref();
  }
}
