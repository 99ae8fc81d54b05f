/**
 * What differs between the two protocol eras on the host face, in one place (the rest of
 * a Session is the same for both; docs/PROTOCOL.md):
 *
 *   legacy (2025-11-25)  one Session per connection or MCP session; the host's
 *                        capabilities come from its initialize; questions are server-to-
 *                        client requests; list changes are `list_changed` notifications.
 *   modern (2026-07-28)  one Session per request; capabilities, log level and the answers
 *                        to an earlier `input_required` come in the request's `_meta` and
 *                        params; lists carry cache hints; changes go out on
 *                        `subscriptions/listen` (listen.ts).
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
  type CacheHint,
  type ClientCapabilities,
  type JSONRPCMessage,
  type LoggingLevel,
  type ServerContext,
  type Transport,
} from '@modelcontextprotocol/server';
import { accountOf } from '../gateway/accounts.js';
import type { SealedBinding, SealedState } from '../guards/sealed.js';
import type { CallContext, ProtocolEra, SessionIdentity } from '../guards/types.js';

export type { ProtocolEra } from '../guards/types.js';

/**
 * How long a 2026 host may reuse a list or the discover answer: 60 s. Every list the
 * gateway serves depends on who asks (persona, user), so the scope is always `private`.
 * A change inside that minute is announced at once on `subscriptions/listen`; a host that
 * does not listen sees it within the minute, and meanwhile find_tools and call_tool reach
 * every current tool anyway (they are never cached: tools/call is not cacheable).
 */
export const LIST_TTL_MS = 60_000;

/**
 * The gateway's cache hints (`ServerOptions.cacheHints`, applied by the SDK to 2026
 * results only). `resources/read`: 0 ms, private, unless the relayed result carries the
 * upstream's own hint (relay/: the result's fields win over these).
 */
export const CACHE_HINTS: Partial<Record<'tools/list' | 'prompts/list' | 'resources/list' | 'resources/templates/list' | 'resources/read' | 'server/discover', CacheHint>> = {
  'tools/list': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
  'prompts/list': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
  'resources/list': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
  'resources/templates/list': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
  'resources/read': { ttlMs: 0, cacheScope: 'private' },
  'server/discover': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
};

/**
 * The authorization a sealed state is bound to: the session's persona and user account key,
 * and for a session without a user the static token it came with (its fingerprint): two
 * tokens of one persona are two authorizations.
 */
export function bindingOf(identity: SessionIdentity): SealedBinding {
  const account = accountOf(identity);
  return {
    ...(identity.persona !== undefined && { persona: identity.persona }),
    ...(account !== undefined && { account }),
    ...(account === undefined && identity.credential !== undefined && { credential: identity.credential }),
  };
}

function envelopeOf(ctx: ServerContext): Record<string, unknown> {
  return (ctx.mcpReq.envelope ?? {}) as Record<string, unknown>;
}

/** The log level a 2026 request asked for in its `_meta`; undefined: no log messages for it. */
export function requestLogLevel(ctx: ServerContext): LoggingLevel | undefined {
  return envelopeOf(ctx)[LOG_LEVEL_META_KEY] as LoggingLevel | undefined;
}

/** The CallContext fields of a host's tools/call in `era`: capabilities, and on a 2026 retry the host's answers and the opened sealed state. */
export function callFieldsOf(era: ProtocolEra, ctx: ServerContext, legacyCapabilities: ClientCapabilities | undefined): Pick<CallContext, 'era' | 'hostCapabilities' | 'input'> {
  if (era === 'legacy') return { era, ...(legacyCapabilities && { hostCapabilities: legacyCapabilities }) };
  const capabilities = envelopeOf(ctx)[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  const responses = ctx.mcpReq.inputResponses;
  const state = ctx.mcpReq.requestState<SealedState>();
  const input = responses !== undefined || state !== undefined ? { responses: responses ?? {}, ...(state !== undefined && { state }) } : undefined;
  return { era, ...(capabilities && { hostCapabilities: capabilities }), ...(input && { input }) };
}

/**
 * On a 2026 request, relayed log messages go to the host only when the request's `_meta`
 * asked for a level (the relay filters by it): `level()` reads the current request's.
 */
export function modernLogFilter<T extends Transport>(transport: T, level: () => LoggingLevel | undefined): T {
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options) =>
    (message as { method?: string }).method === 'notifications/message' && level() === undefined ? Promise.resolve() : send(message, options);
  return transport;
}
