/**
 * `subscriptions/listen` for 2026-07-28 hosts over HTTP: what changes the lists the
 * gateway serves goes out on the handler's bus (the SDK's listen router stamps each
 * stream's subscription id and honours its filter).
 *
 *   tools      a 2026 host's tools/list is the meta tools and the persona's pinned tools
 *              (era.ts): announced when a pinned tool's definition comes, goes or changes,
 *              or a personas edit changes which pinned tools a persona may use; other
 *              catalog changes do not change any 2026 list (find_tools reaches them).
 *   prompts,   the relayed lists (relay/), when an upstream announces a change.
 *   resources
 *
 * Each replica watches the same upstreams, so each announces a change on the streams it
 * holds: the bus is in-process per replica. What a listener learns is only that a list
 * changed, never whose or what: it re-lists with its own authorization. (A per-user
 * upstream's change reaches every listener of the replica: the SDK's bus has no per-listener filter.)
 */
import type { ServerResponse } from 'node:http';
import type { ServerNotifier } from '@modelcontextprotocol/server';
import type { Gateway } from '../gateway/gateway.js';
import type { ListKind } from '../upstream/lists.js';

/**
 * What every 2026 tools/list is made of, besides the meta tools, as one string: the pinned
 * tools' definitions, and which of them each persona (and a host without one) may use. A
 * personas edit that denies or allows a pinned tool changes a list as surely as a changed
 * definition does.
 */
function pinnedFingerprint(gateway: Gateway): string {
  const pinned = new Set(gateway.loaded.config.exposure.pinned);
  const defs = gateway.catalog.filter((t) => pinned.has(t.name));
  const personas = [undefined, ...Object.keys(gateway.policy.personas)];
  const mayUse = personas.map((persona) => {
    const allowed = new Set(gateway.allowedFor(persona).map((t) => t.name));
    return [persona ?? '', defs.filter((t) => allowed.has(t.name)).map((t) => t.name)];
  });
  return JSON.stringify([defs.map((t) => [t.server, t.name, t.title, t.description, t.inputSchema, t.outputSchema, t.annotations]), mayUse]);
}

/**
 * Announces the gateway's list changes on `notify` until the returned function is called.
 *
 * ### Usage
 * ```ts
 * const handler = createMcpHandler(factory, { legacy: 'reject' });
 * const stop = announceChanges(gateway, handler.notify);
 * ```
 */
export function announceChanges(gateway: Gateway, notify: ServerNotifier): () => void {
  // The first catalog is announced to nobody (gateway.ts): what it makes the lists is the baseline.
  let tools: string | undefined;
  void gateway.catalogReady.then(() => (tools ??= pinnedFingerprint(gateway)));
  const onCatalog = () => {
    const now = pinnedFingerprint(gateway);
    if (now === tools) return;
    tools = now;
    notify.toolsChanged();
  };
  const onList = (kind: ListKind) => (kind === 'resources' ? notify.resourcesChanged() : notify.promptsChanged());
  gateway.on('catalog', onCatalog);
  gateway.relay.on('list-changed', onList);
  return () => {
    gateway.off('catalog', onCatalog);
    gateway.relay.off('list-changed', onList);
  };
}

/**
 * Open `subscriptions/listen` streams per token, bounded like a token's 2025 sessions
 * (`http.max_sessions_per_token`): the SDK's own bound (1,024 streams) is per handler, so
 * without this one token could hold every place and every other host's listen would be refused.
 *
 * ### Usage
 * ```ts
 * const slots = listenSlots(64);
 * if (isListen(body) && !slots.take(token, res)) return reply(res, 429, ...); // freed when res closes
 * ```
 */
export function listenSlots(max: number): { take(key: string, res: ServerResponse): boolean; open(key: string): number } {
  const open = new Map<string, number>();
  return {
    open: (key) => open.get(key) ?? 0,
    take(key, res) {
      const now = open.get(key) ?? 0;
      if (now >= max) return false;
      open.set(key, now + 1);
      res.once('close', () => {
        const left = (open.get(key) ?? 1) - 1;
        if (left > 0) open.set(key, left);
        else open.delete(key);
      });
      return true;
    },
  };
}

/** Whether a posted body is a `subscriptions/listen` request. */
export function isListen(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'subscriptions/listen';
}
