/**
 * What of an upstream's result belongs to its hop, not to the host's: a 2026-07-28 server
 * names itself in every result's `_meta` (`io.modelcontextprotocol/serverInfo`). Passed
 * on, it would tell the host that the upstream answered its request, when the gateway
 * did; without it, the SDK server stamps the gateway's own name on the way out.
 */
import { SERVER_INFO_META_KEY } from '@modelcontextprotocol/client';

/** `result` without the upstream's own name in its `_meta` (the same object when it has none). */
export function hostBound<T extends { _meta?: Record<string, unknown> }>(result: T): T {
  const meta = result._meta;
  if (meta === undefined || !(SERVER_INFO_META_KEY in meta)) return result;
  const { [SERVER_INFO_META_KEY]: _upstream, ...rest } = meta;
  const { _meta: _dropped, ...body } = result;
  return (Object.keys(rest).length > 0 ? { ...body, _meta: rest } : body) as T;
}
