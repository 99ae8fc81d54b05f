/**
 * Stateless MCP over Streamable HTTP (`http.stateless`, static exposure only): every POST
 * is served by a Session, SDK Server and transport of its own (the SDK transport without
 * a `sessionIdGenerator`), closed once answered. No `Mcp-Session-Id` is issued, so any
 * replica behind a load balancer can answer any request (docs/FLEET.md, "Stateless").
 *
 * What needs a session cannot happen: the gateway does not remember a host's
 * capabilities from its initialize, so confirmations go to the approvals list (the HTTP
 * default anyway) and an upstream's sampling, elicitation or roots request gets the
 * immediate error a host without the capability gives; there is no GET stream, so no
 * resource-update or list_changed notifications (static tools/list never changes).
 * Progress and log messages of a call still reach the host on that call's response stream.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { ConfigError, type LoadedConfig } from '../config/load.js';
import type { GatewayMetrics } from './metrics.js';
import type { Session } from './session.js';

/**
 * Refuses `http.stateless` outside the static exposure mode: in dynamic mode find_tools
 * adds tools to the session's tools/list, which is session state.
 * @throws ConfigError naming `http.stateless`.
 */
export function checkStateless(loaded: LoadedConfig): void {
  const { config, file } = loaded;
  if (config.http.stateless && config.exposure.mode !== 'static') {
    throw new ConfigError(file, 'http.stateless', 'stateless HTTP needs exposure.mode: static (in dynamic mode find_tools changes the session\'s tools/list, which is session state)');
  }
}

export interface StatelessRequest {
  req: IncomingMessage;
  res: ServerResponse;
  /** Reads the POST body; `ok: false` once the face has answered (413, 400). */
  read(): Promise<{ ok: true; body: unknown } | { ok: false }>;
  /** A new Session with the request's identity. */
  open(): Session;
  metrics?: GatewayMetrics;
}

/** Serves one request statelessly; GET and DELETE get 405 (there is no stream or session). */
export async function serveStateless({ req, res, read, open, metrics }: StatelessRequest): Promise<void> {
  if (req.method !== 'POST') {
    res.writeHead(405, { 'content-type': 'application/json', allow: 'POST' }).end(JSON.stringify({
      jsonrpc: '2.0', error: { code: -32000, message: `${req.method} not served: this gateway serves MCP statelessly (http.stateless), without streams or sessions` }, id: null,
    }));
    return;
  }
  const posted = await read();
  if (!posted.ok) return;
  const session = open();
  const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => void session.close());
  await session.connect(transport);
  metrics?.observe(transport);
  await transport.handleRequest(req, res, posted.body);
}
