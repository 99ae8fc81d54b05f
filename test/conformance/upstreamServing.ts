/**
 * How the conformance upstreams are served over HTTP: a loopback listener with
 * DNS-rebinding protection (Host, and Origin when sent, must name a loopback host), and
 * the sessionful 2025 wiring — one server and `NodeStreamableHTTPServerTransport` per
 * session, with a bounded event store so a client that reconnects with `Last-Event-ID`
 * gets what it missed (SEP-1699). upstream.ts serves the 2025 upstream with it alone;
 * upstream2026.ts routes the 2025-era requests of its endpoint to it.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest, type FetchLikeMcpHandler } from '@modelcontextprotocol/node';
import { isLegacyRequest, type EventStore, type JSONRPCMessage, type McpServer } from '@modelcontextprotocol/server';

/**
 * Keeps a session's SSE events so a client that reconnects with `Last-Event-ID` gets what
 * it missed (SEP-1699). Bounded: the oldest events go past `max`.
 */
export function memoryEventStore(max = 1000): EventStore {
  const events = new Map<string, { streamId: string; seq: number; message: JSONRPCMessage }>();
  let seq = 0;
  return {
    async storeEvent(streamId, message) {
      const id = `${streamId}_${++seq}`;
      events.set(id, { streamId, seq, message });
      for (const oldest of events.keys()) {
        if (events.size <= max) break;
        events.delete(oldest);
      }
      return id;
    },
    async getStreamIdForEventId(eventId) {
      return events.get(eventId)?.streamId;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const last = events.get(lastEventId);
      if (!last) throw new Error(`unknown event id ${lastEventId}`);
      for (const [id, e] of events) {
        // Priming events carry an empty message: nothing to replay.
        if (e.streamId === last.streamId && e.seq > last.seq && Object.keys(e.message).length > 0) await send(id, e.message);
      }
      return last.streamId;
    },
  };
}

const LOCAL_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** DNS-rebinding protection for a loopback server: Host (and Origin, when sent) must name a loopback host. */
function isLocalRequest(req: IncomingMessage): boolean {
  const hostname = (value: string) => {
    try {
      return new URL(value).hostname;
    } catch {
      return '';
    }
  };
  if (!LOCAL_HOSTNAMES.has(hostname(`http://${req.headers.host ?? ''}`))) return false;
  const origin = req.headers.origin;
  return origin === undefined || LOCAL_HOSTNAMES.has(hostname(origin));
}

export interface ConformanceHttp {
  url: string;
  port: number;
  close(): Promise<void>;
}

const reply = (res: ServerResponse, status: number, message: string): void =>
  void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));

export interface LegacySessions {
  /** Serves one HTTP request of a 2025-era session; `body` when it was already read from `req`. */
  handle(req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void>;
  close(): Promise<void>;
}

/** Connects something to a new session's transport; resolves with what closes it again. */
export type Attach = (transport: NodeStreamableHTTPServerTransport) => Promise<() => Promise<void>>;

/** Attaches a fresh server from `create` (an McpServer, or a low-level Server) to each session. */
export const eachSession = (create: () => Pick<McpServer, 'connect' | 'close'>): Attach => async (transport) => {
  const server = create();
  await server.connect(transport);
  return () => server.close();
};

/**
 * The 2025 wiring over Streamable HTTP: one SDK transport per session, with an event store
 * (SEP-1699), and what `attach` connects to it (a server, or stdioBridge.ts's child).
 */
export function legacySessions(attach: Attach): LegacySessions {
  const transports = new Map<string, NodeStreamableHTTPServerTransport>();
  return {
    handle: async (req, res, body) => {
      const sid = req.headers['mcp-session-id'];
      if (typeof sid === 'string') {
        const transport = transports.get(sid);
        return transport ? transport.handleRequest(req, res, body) : reply(res, 404, 'session not found');
      }
      if (req.method !== 'POST') return reply(res, 400, 'no session id; send initialize first');
      const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        eventStore: memoryEventStore(),
        // Short, so that a reconnecting client (the gateway's upstream client included) does not wait long.
        retryInterval: 200,
        onsessioninitialized: (id) => void transports.set(id, transport),
      });
      let detach = async () => {};
      transport.onclose = () => {
        if (transport.sessionId) transports.delete(transport.sessionId);
        void detach();
      };
      detach = await attach(transport);
      await transport.handleRequest(req, res, body);
      if (transport.sessionId === undefined) await transport.close();
    },
    close: async () => void (await Promise.all([...transports.values()].map((t) => t.close()))),
  };
}

/** Listens on `host:port` and serves `handle` at `/mcp`, to loopback Host/Origin only. */
export async function listenLoopback(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  port: number,
  host: string,
  onClose: () => Promise<void>,
): Promise<ConformanceHttp> {
  const http = createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/mcp') return reply(res, 404, 'not found; the MCP endpoint is /mcp');
    if (!isLocalRequest(req)) return reply(res, 403, `Host/Origin not allowed: ${req.headers.host ?? ''} ${req.headers.origin ?? ''}`.trim());
    handle(req, res).catch((err: Error) => {
      process.stderr.write(`conformance upstream: ${err.stack ?? err.message}\n`);
      if (!res.headersSent) reply(res, 500, 'internal error');
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, resolve);
  });
  const bound = (http.address() as { port: number }).port;
  return {
    url: `http://${host}:${bound}/mcp`,
    port: bound,
    close: async () => {
      await onClose();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

/**
 * A Node handler serving both eras: a request `isLegacyRequest` classifies as 2025-era
 * goes to `legacy`, any other to `modern` (a fetch-shaped handler). `parsed`: the body,
 * when a body parser (express.json) already read it from `req`.
 */
export function bothEras(legacy: LegacySessions, modern: FetchLikeMcpHandler): (req: IncomingMessage, res: ServerResponse, parsed?: unknown) => Promise<void> {
  const serveModern = toNodeHandler(modern);
  return async (req, res, parsed) => {
    const request = await toWebRequest(req, parsed);
    const body: unknown = parsed ?? (req.method === 'POST' ? await request.clone().json().catch(() => undefined) : undefined);
    if (await isLegacyRequest(request)) return legacy.handle(req, res, body);
    return serveModern(req, res, body);
  };
}

/** Serves both eras (bothEras) on one loopback endpoint. */
export function serveBothEras(
  legacy: LegacySessions,
  modern: FetchLikeMcpHandler & { close(): Promise<void> },
  port: number,
  host: string,
): Promise<ConformanceHttp> {
  return listenLoopback(bothEras(legacy, modern), port, host, async () => {
    await modern.close();
    await legacy.close();
  });
}

/**
 * The command line of a conformance upstream, run only when `moduleUrl` is the script
 * node was started with: stdio by default; `--http PORT` serves Streamable HTTP on
 * 127.0.0.1:PORT (0 picks a free one) and prints `conformance upstream listening on <url>`
 * to stderr once it listens.
 */
export function upstreamMain(moduleUrl: string, stdio: () => unknown, http: (port: number, argv: string[]) => Promise<ConformanceHttp>): void {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  const argv = process.argv.slice(2);
  const run = async () => {
    const i = argv.indexOf('--http');
    if (i < 0) return void (await stdio());
    const port = Number(argv[i + 1]);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--http needs a port number (0 for any free one), got "${argv[i + 1] ?? ''}"`);
    const served = await http(port, argv);
    process.stderr.write(`conformance upstream listening on ${served.url}\n`);
    const stop = () => void served.close().then(() => process.exit(0));
    process.on('SIGINT', stop).on('SIGTERM', stop);
  };
  run().catch((err: Error) => {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  });
}
