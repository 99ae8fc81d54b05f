/**
 * The conformance upstream: an MCP server (the SDK's McpServer) implementing everything
 * the server scenarios of @modelcontextprotocol/conformance 0.1.16 (spec 2025-11-25)
 * check — the test tools, resources, resource template, subscriptions, prompts,
 * completion, logging, progress, sampling, elicitation (SEP-1034 defaults, SEP-1330
 * enums), SSE polling (SEP-1699) and DNS-rebinding protection. The gateway's conformance
 * test puts it behind the gateway, over stdio and over Streamable HTTP, and runs the
 * suite against both; docs/CONFORMANCE.md also records the suite run against it directly.
 *
 * Run: `node dist/test/conformance/upstream.js` (stdio) or `… --http PORT` (Streamable
 * HTTP on 127.0.0.1:PORT/mcp; PORT 0 picks a free one). In HTTP mode it prints
 * `conformance upstream listening on <url>` to stderr once it listens.
 *
 * Tools are served from one table with raw JSON Schemas (upstreamTools.ts), not through
 * McpServer's zod registration: the json-schema-2020-12 scenario needs `$schema`, `$defs`
 * and `additionalProperties` exactly as written, which a zod conversion does not produce.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import {
  completable,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  ResourceTemplate,
  type EventStore,
  type JSONRPCMessage,
  type LoggingLevel,
} from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
import { PNG_BASE64, TOOLS, type UpstreamState } from './upstreamTools.js';

const LEVELS: LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** One server per session (HTTP) or process (stdio): it holds that client's log level and subscriptions. */
export function createConformanceServer(): McpServer {
  const server = new McpServer(
    { name: 'tool-curator-conformance-upstream', version: '1.0.0' },
    { capabilities: { tools: {}, resources: { subscribe: true }, prompts: {}, logging: {}, completions: {} } },
  );
  let minLevel: LoggingLevel = 'info';
  const subscriptions = new Set<string>();
  const upstream: UpstreamState = {
    server,
    log: async (ctx, level, data) => {
      if (LEVELS.indexOf(level) < LEVELS.indexOf(minLevel)) return;
      await ctx.mcpReq.notify({ method: 'notifications/message', params: { level, logger: 'conformance-upstream', data } });
    },
  };

  const tools = new Map(TOOLS.map((t) => [t.definition.name, t]));
  server.server.setRequestHandler('tools/list', () => ({ tools: TOOLS.map((t) => t.definition) }));
  server.server.setRequestHandler('tools/call', (req, ctx) => {
    const tool = tools.get(req.params.name);
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${req.params.name} not found`);
    return tool.run(req.params.arguments ?? {}, ctx, upstream);
  });
  server.server.setRequestHandler('logging/setLevel', (req) => {
    minLevel = req.params.level;
    return {};
  });

  server.registerResource(
    'static-text',
    'test://static-text',
    { title: 'Static text', description: 'A static text resource.', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] }),
  );
  server.registerResource(
    'static-binary',
    'test://static-binary',
    { title: 'Static binary', description: 'A static binary resource (a PNG).', mimeType: 'image/png' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'image/png', blob: PNG_BASE64 }] }),
  );
  server.registerResource(
    'watched-resource',
    'test://watched-resource',
    { title: 'Watched resource', description: 'A resource clients may subscribe to.', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Watched resource content' }] }),
  );
  server.registerResource(
    'template',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { title: 'Data by id', description: 'A resource template: {id} is substituted.', mimeType: 'application/json' },
    async (uri, { id }) => ({
      contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${String(id)}` }) }],
    }),
  );
  server.server.setRequestHandler('resources/subscribe', (req) => {
    subscriptions.add(req.params.uri);
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', (req) => {
    subscriptions.delete(req.params.uri);
    return {};
  });

  server.registerPrompt('test_simple_prompt', { title: 'Simple prompt', description: 'A prompt without arguments.' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }));
  const suggest = (value: string) => ['paris', 'park', 'party', 'test-value'].filter((v) => v.startsWith(value));
  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      title: 'Prompt with arguments',
      description: 'A prompt with two required arguments.',
      argsSchema: z.object({ arg1: completable(z.string().describe('First test argument'), suggest), arg2: z.string().describe('Second test argument') }),
    },
    ({ arg1, arg2 }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }] }),
  );
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    { title: 'Prompt with an embedded resource', description: 'Embeds the resource named by resourceUri.', argsSchema: z.object({ resourceUri: z.string().describe('URI of the resource to embed') }) },
    ({ resourceUri }) => ({
      messages: [
        { role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  );
  server.registerPrompt('test_prompt_with_image', { title: 'Prompt with an image', description: 'A prompt that includes an image.' }, () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: PNG_BASE64, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }));
  return server;
}

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

/** Serves the conformance upstream over Streamable HTTP at `http://host:port/mcp`, one McpServer per session. */
export async function serveConformanceHttp(port = 0, host = '127.0.0.1'): Promise<ConformanceHttp> {
  const transports = new Map<string, NodeStreamableHTTPServerTransport>();
  const reply = (res: ServerResponse, status: number, message: string) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/mcp') return reply(res, 404, 'not found; the MCP endpoint is /mcp');
    if (!isLocalRequest(req)) return reply(res, 403, `Host/Origin not allowed: ${req.headers.host ?? ''} ${req.headers.origin ?? ''}`.trim());
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const transport = transports.get(sid);
      return transport ? transport.handleRequest(req, res) : reply(res, 404, 'session not found');
    }
    if (req.method !== 'POST') return reply(res, 400, 'no session id; send initialize first');
    const server = createConformanceServer();
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      eventStore: memoryEventStore(),
      // Short, so that a reconnecting client (the gateway's upstream client included) does not wait long.
      retryInterval: 200,
      onsessioninitialized: (id) => void transports.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
      void server.close();
    };
    await server.connect(transport);
    await transport.handleRequest(req, res);
    if (transport.sessionId === undefined) await transport.close();
  };

  const http = createServer((req, res) => {
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
      await Promise.all([...transports.values()].map((t) => t.close()));
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

async function main(argv: string[]): Promise<void> {
  const i = argv.indexOf('--http');
  if (i < 0) {
    await createConformanceServer().connect(new StdioServerTransport());
    return;
  }
  const port = Number(argv[i + 1]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--http needs a port number (0 for any free one), got "${argv[i + 1] ?? ''}"`);
  const served = await serveConformanceHttp(port);
  process.stderr.write(`conformance upstream listening on ${served.url}\n`);
  const stop = () => void served.close().then(() => process.exit(0));
  process.on('SIGINT', stop).on('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((err: Error) => {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  });
}
