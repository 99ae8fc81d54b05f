/**
 * Sampling, upstream → host. An upstream's `sampling/createMessage` during a tools/call
 * goes to the host session that made the call, without the resources inside its tool
 * results that the session's persona may not receive (withheld.ts: they would reach the
 * host's model as a tool result's would); the host's answer (or error) goes back
 * unchanged. Requests with `tools`/`toolChoice` need the host's `sampling.tools`.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { MayReceive } from '../policy/contents.js';
import { askOptions } from './ask.js';
import type { InFlight } from './registry.js';
import { withholdSampled } from './withheld.js';

/**
 * @param upstream the connection's key in `inFlight` (`<upstream>@<user>` for a user's own).
 * @param mayReceive decides the resources a request carries, for the asked session's persona; undefined passes them all (an open policy).
 */
export function relaySampling(upstream: string, client: Client, inFlight: InFlight, timeoutMs: number, mayReceive: (persona: string | undefined) => MayReceive | undefined): void {
  client.setRequestHandler('sampling/createMessage', async (req, ctx) => {
    const withTools = req.params.tools !== undefined || req.params.toolChoice !== undefined;
    const what = withTools ? 'sampling/createMessage with tools' : 'sampling/createMessage';
    const host = inFlight.askee(upstream, what, (caps) => caps.sampling !== undefined && (!withTools || caps.sampling.tools !== undefined));
    const decide = mayReceive(host.session.persona);
    const params = decide ? withholdSampled(req.params, decide) : req.params;
    return host.sendRequest({ method: 'sampling/createMessage', params }, askOptions(host, ctx.mcpReq.signal, timeoutMs));
  });
}
