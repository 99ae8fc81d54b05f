/**
 * The 2025 conformance upstream: an MCP server (the SDK's McpServer) implementing
 * everything the 2025-11-25 server scenarios of @modelcontextprotocol/conformance check —
 * the test tools, resources, resource template, subscriptions, prompts, completion,
 * logging, progress, sampling, elicitation (SEP-1034 defaults, SEP-1330 enums), SSE
 * polling (SEP-1699) and DNS-rebinding protection — and nothing of 2026-07-28: served
 * through the SDK's 2025 transports only, a client that negotiates (`server/discover`
 * first) lands on the 2025 era with it, over both transports. server.test.ts puts it
 * behind the gateway over stdio and over Streamable HTTP; upstream2026.ts extends it
 * into the 2026 upstream.
 *
 * Run: `node dist/test/conformance/upstream.js` (stdio) or `… --http PORT` (Streamable
 * HTTP on 127.0.0.1:PORT/mcp; PORT 0 picks a free one). In HTTP mode it prints
 * `conformance upstream listening on <url>` to stderr once it listens.
 *
 * Tools are served from one table with raw JSON Schemas (upstreamTools.ts), not through
 * McpServer's zod registration: the json-schema-2020-12 scenario needs `$schema`, `$defs`,
 * `$anchor`, composition and conditional keywords exactly as written, which a zod
 * conversion does not produce.
 */
import {
  completable,
  McpServer,
  mergeCapabilities,
  ProtocolError,
  ProtocolErrorCode,
  ResourceTemplate,
  type LoggingLevel,
  type McpServerOptions,
} from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
import { eachSession, legacySessions, listenLoopback, upstreamMain, type ConformanceHttp } from './upstreamServing.js';
import { PNG_BASE64, TOOLS, type TestTool, type UpstreamState } from './upstreamTools.js';

const LEVELS: LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** What the 2026 upstream adds to this one (upstream2026.ts). */
export interface ConformanceExtension {
  /** Tools served after the 2025 table. */
  tools?: TestTool[];
  /** Server options; `capabilities` are merged into the 2025 ones. */
  options?: McpServerOptions;
  /** Registers further prompts or resources. */
  register?(server: McpServer): void;
}

/** One server per session (HTTP) or process (stdio): it holds that client's log level and subscriptions. */
export function createConformanceServer(extension: ConformanceExtension = {}): McpServer {
  const capabilities = { tools: {}, resources: { subscribe: true }, prompts: {}, logging: {}, completions: {} };
  const server = new McpServer(
    { name: 'tool-curator-conformance-upstream', version: '1.0.0' },
    { ...extension.options, capabilities: mergeCapabilities(capabilities, extension.options?.capabilities ?? {}) },
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

  const table = [...TOOLS, ...(extension.tools ?? [])];
  const tools = new Map(table.map((t) => [t.definition.name, t]));
  server.server.setRequestHandler('tools/list', () => ({ tools: table.map((t) => t.definition) }));
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
  extension.register?.(server);
  return server;
}

/** Serves the conformance upstream over Streamable HTTP at `http://host:port/mcp`, one McpServer per session (2025 era only). */
export async function serveConformanceHttp(port = 0, host = '127.0.0.1'): Promise<ConformanceHttp> {
  const sessions = legacySessions(eachSession(() => createConformanceServer()));
  return listenLoopback((req, res) => sessions.handle(req, res), port, host, sessions.close);
}

upstreamMain(import.meta.url, () => createConformanceServer().connect(new StdioServerTransport()), (port) => serveConformanceHttp(port));
