/**
 * Roots, upstream → host. An upstream's `roots/list` during a tools/call is answered by
 * the host session that made the call. A host's `notifications/roots/list_changed` is
 * passed to the upstreams its persona may use.
 */
import type { Client } from '@modelcontextprotocol/client';
import { log } from '../log.js';
import { askOptions } from './ask.js';
import type { InFlight } from './registry.js';

export function relayRoots(upstream: string, client: Client, inFlight: InFlight, timeoutMs: number): void {
  client.setRequestHandler('roots/list', async (req, ctx) => {
    const host = inFlight.askee(upstream, 'roots/list', (caps) => caps.roots !== undefined);
    return host.sendRequest({ method: 'roots/list', params: req.params }, askOptions(host, ctx.mcpReq.signal, timeoutMs));
  });
}

/** Tells `upstreams` that a host's roots changed; they may ask again during a call. */
export function rootsChanged(upstreams: Map<string, Client>): void {
  for (const [name, client] of upstreams) {
    client.sendRootsListChanged().catch((err: Error) => log.debug({ upstream: name, err: err.message }, 'could not pass roots/list_changed on'));
  }
}
