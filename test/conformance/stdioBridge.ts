/**
 * An HTTP front for an MCP server on stdio, so the conformance suite — whose `server`
 * command drives only HTTP servers (its stdio harness is not implemented,
 * modelcontextprotocol/conformance#258) — can measure a stdio face: the gateway's
 * `serve` over stdio, or a conformance upstream.
 *
 * The bridge relays messages; it answers nothing itself. Every JSON-RPC result and error
 * comes from the stdio server. The HTTP side is the SDK's:
 *
 * - a 2025-era request (`isLegacyRequest`) opens or continues a session: each session is
 *   its own stdio connection (a fresh child process, as a host launches a stdio server),
 *   behind an SDK `NodeStreamableHTTPServerTransport` (session ids, GET stream, event
 *   store). A message the server sends while exactly one request is in flight goes on that
 *   request's stream, anything else on the GET stream (stdio carries no relation).
 * - a 2026-07-28 request goes to one long-lived stdio connection, opened with a
 *   `server/discover` as a 2026 host opens it (and pinned to 2026-07-28 by a `ping`),
 *   behind a per-request SDK
 *   `PerRequestHTTPServerTransport`; ids are mapped so concurrent requests cannot collide,
 *   and a notification reaches the request its progress token, its subscription id or
 *   (failing both) the only request in flight names.
 *
 * What a stdio face cannot show stays the bridge's: HTTP statuses (a relayed error is
 * in-band HTTP 200, as the SDK answers handler errors, except -32021's 400), the
 * `MCP-Protocol-Version`/`Mcp-Method` headers, DNS-rebinding protection.
 */
import { StdioClientTransport, type StdioServerParameters } from '@modelcontextprotocol/client/stdio';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  PerRequestHTTPServerTransport,
  PROTOCOL_VERSION_META_KEY,
  SUBSCRIPTION_ID_META_KEY,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/server';
import { legacySessions, serveBothEras, type Attach, type ConformanceHttp } from './upstreamServing.js';

const isResponse = (m: JSONRPCMessage) => isJSONRPCResultResponse(m) || isJSONRPCErrorResponse(m);

function spawnChild(server: StdioServerParameters): StdioClientTransport {
  return new StdioClientTransport({ stderr: 'ignore', ...server });
}

/** 2025 era: each HTTP session is one stdio connection (a fresh child), relayed both ways. */
function attachChild(server: StdioServerParameters): Attach {
  return async (http) => {
    const child = spawnChild(server);
    const inFlight = new Set<RequestId>();
    http.onmessage = (m) => {
      if (isJSONRPCRequest(m)) inFlight.add(m.id);
      void child.send(m).catch(() => undefined);
    };
    child.onmessage = (m) => {
      if (isResponse(m)) inFlight.delete(m.id as RequestId);
      const only = !isResponse(m) && inFlight.size === 1 ? [...inFlight][0] : undefined;
      void http.send(m, only === undefined ? undefined : { relatedRequestId: only }).catch(() => undefined);
    };
    child.onclose = () => void http.close();
    await child.start();
    await http.start();
    return () => child.close();
  };
}

interface Exchange {
  /** The id the suite sent. */
  id: RequestId;
  progressToken?: unknown;
  send(message: JSONRPCMessage, options?: { relatedRequestId: RequestId }): Promise<void>;
}

/** 2026-07-28: one stdio connection for every request, opened the way a 2026 host opens it. */
function modernBridge(server: StdioServerParameters) {
  const pending = new Map<RequestId, Exchange>();
  let next = 0;
  let connection: Promise<StdioClientTransport> | undefined;

  const route = (m: JSONRPCMessage) => {
    if (isResponse(m)) {
      const exchange = pending.get(m.id as RequestId);
      pending.delete(m.id as RequestId);
      return void exchange?.send({ ...m, id: exchange.id });
    }
    if (!isJSONRPCNotification(m)) return;
    const params = (m.params ?? {}) as { progressToken?: unknown; _meta?: Record<string, unknown> };
    const subscription = params._meta?.[SUBSCRIPTION_ID_META_KEY];
    const all = [...pending.entries()];
    const found =
      all.find(([, e]) => params.progressToken !== undefined && e.progressToken === params.progressToken) ??
      all.find(([bridged]) => subscription !== undefined && String(bridged) === String(subscription)) ??
      (all.length === 1 ? all[0] : undefined);
    if (found) void found[1].send(m, { relatedRequestId: found[1].id });
  };

  const open = async () => {
    const child = spawnChild(server);
    child.onmessage = route;
    child.onclose = () => (connection = undefined);
    await child.start();
    const envelope = {
      [PROTOCOL_VERSION_META_KEY]: '2026-07-28',
      [CLIENT_INFO_META_KEY]: { name: 'conformance-stdio-bridge', version: '1.0.0' },
      [CLIENT_CAPABILITIES_META_KEY]: {},
    };
    // server/discover is answered by a probe instance; the first other 2026 request pins the
    // connection's era (serveStdio), so no malformed request of the suite can pin it to 2025.
    // ping, removed in 2026-07-28, is answered -32601 and changes nothing.
    for (const method of ['server/discover', 'ping']) {
      const id = `bridge-open-${method}`;
      const answered = new Promise<void>((resolve) => pending.set(id, { id, send: async () => resolve() }));
      await child.send({ jsonrpc: '2.0', id, method, params: { _meta: envelope } });
      await answered;
    }
    return child;
  };

  const fetch = async (request: Request): Promise<Response> => {
    const message = (await request.clone().json().catch(() => undefined)) as JSONRPCMessage | undefined;
    if (!message || !(isJSONRPCRequest(message) || isJSONRPCNotification(message))) {
      return Response.json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'the bridge relays one JSON-RPC request or notification per POST' } }, { status: 400 });
    }
    const child = await (connection ??= open());
    const transport = new PerRequestHTTPServerTransport({ classification: { era: 'modern' } });
    let bridged: RequestId | undefined;
    transport.onmessage = (m) => {
      if (!isJSONRPCRequest(m)) return void child.send(m).catch(() => undefined);
      bridged = `bridge-${++next}`;
      const meta = (m.params as { _meta?: { progressToken?: unknown } } | undefined)?._meta;
      pending.set(bridged, { id: m.id, progressToken: meta?.progressToken, send: (out, options) => transport.send(out, options) });
      void child.send({ ...m, id: bridged }).catch(() => undefined);
    };
    // The suite closed the stream (a listen it is done with): nothing more goes to it.
    transport.onclose = () => void (bridged !== undefined && pending.delete(bridged));
    await transport.start();
    return transport.handleMessage(message, { request });
  };
  return { fetch, close: async () => void (await (await connection)?.close()) };
}

/**
 * Serves `server` (a stdio MCP server command) at `http://127.0.0.1:<port>/mcp` for the
 * conformance suite, both eras on one endpoint.
 */
export function serveStdioOverHttp(server: StdioServerParameters, port = 0, host = '127.0.0.1'): Promise<ConformanceHttp> {
  return serveBothEras(legacySessions(attachChild(server)), modernBridge(server), port, host);
}
