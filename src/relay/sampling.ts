/**
 * Sampling, upstream → host. An upstream's `sampling/createMessage` during a tools/call
 * goes to the host session that made the call; the host's answer (or error) goes back
 * unchanged. Requests with `tools`/`toolChoice` need the host's `sampling.tools`.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, type CreateMessageRequestParamsWithTools } from '@modelcontextprotocol/sdk/types.js';
import { askOptions } from './ask.js';
import type { InFlight } from './registry.js';

export function relaySampling(upstream: string, client: Client, inFlight: InFlight, timeoutMs: number): void {
  client.setRequestHandler(CreateMessageRequestSchema, async (req, extra) => {
    const withTools = req.params.tools !== undefined || req.params.toolChoice !== undefined;
    const what = withTools ? 'sampling/createMessage with tools' : 'sampling/createMessage';
    const host = inFlight.askee(upstream, what, (caps) => caps.sampling !== undefined && (!withTools || caps.sampling.tools !== undefined));
    return host.session.server.createMessage(req.params as CreateMessageRequestParamsWithTools, askOptions(host, extra.signal, timeoutMs));
  });
}
