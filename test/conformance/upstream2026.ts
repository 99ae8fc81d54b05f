/**
 * The 2026 conformance upstream: the 2025 conformance upstream (upstream.ts) plus what
 * the 2026-07-28 server scenarios of @modelcontextprotocol/conformance 0.2.0-alpha.12
 * call — the multi-round-trip tools and prompt (upstream2026Tools.ts), caching hints on every
 * cacheable result, sealed `requestState`, `subscriptions/listen` — served to both
 * protocol eras the way the SDK's serving docs show:
 *
 * - HTTP: `createMcpHandler(factory, { legacy: 'reject' })` serves 2026-07-28 requests;
 *   a request `isLegacyRequest` classifies as 2025-era goes to the sessionful 2025
 *   wiring of upstream.ts (sessions, GET stream, event store, logging/setLevel), so the
 *   same endpoint also passes every 2025-11-25 scenario.
 * - stdio: `serveStdio(factory)`: the opening exchange pins the connection's era.
 *
 * Run: `node dist/test/conformance/upstream2026.js` (stdio) or `… --http PORT
 * [--catalogue-2025]`; in HTTP mode it prints `conformance upstream listening on <url>`
 * to stderr.
 */
import { randomBytes } from 'node:crypto';
import { acceptedContent, createMcpHandler, createRequestStateCodec, inputRequired, type McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
import { tools2026, type Hooks2026, type RoundState } from './upstream2026Tools.js';
import { createConformanceServer } from './upstream.js';
import { eachSession, legacySessions, serveBothEras, upstreamMain, type ConformanceHttp } from './upstreamServing.js';

/** Lists change only when a trigger tool says so; a client may keep them this long. */
const LIST_TTL_MS = 300_000;

/**
 * Which tools and prompts the upstream offers: `2026` all, `2025` only those of the 2025
 * upstream — served the 2026 way, this is what a perfect gateway in front of the 2025
 * upstream would show a 2026 host, so its run names the scenarios only a 2026 upstream
 * can pass.
 */
export type Catalogue = '2025' | '2026';

/** One server for one request (HTTP, 2026), one session (HTTP, 2025) or one connection (stdio). */
export function create2026Server(hooks: Hooks2026, catalogue: Catalogue = '2026'): McpServer {
  return createConformanceServer({
    tools: catalogue === '2026' ? tools2026(hooks) : [],
    options: {
      capabilities: { tools: { listChanged: true }, prompts: { listChanged: true } },
      cacheHints: {
        'tools/list': { ttlMs: LIST_TTL_MS, cacheScope: 'public' },
        'prompts/list': { ttlMs: LIST_TTL_MS, cacheScope: 'public' },
        'resources/list': { ttlMs: LIST_TTL_MS, cacheScope: 'public' },
        'resources/templates/list': { ttlMs: LIST_TTL_MS, cacheScope: 'public' },
        'resources/read': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
      },
      requestState: { verify: hooks.codec.verify },
    },
    register: (server) => {
      if (catalogue === '2025') return;
      const context = z.object({ context: z.string() });
      server.registerPrompt('test_input_required_result_prompt', { description: 'Asks for the context to use (input_required), then returns the prompt.' }, (ctx) => {
        const answer = acceptedContent(ctx.mcpReq.inputResponses, 'user_context', context);
        if (answer) return { messages: [{ role: 'user', content: { type: 'text', text: `Prompt with context: ${answer.context}` } }] };
        return inputRequired({
          inputRequests: { user_context: inputRequired.elicit({ message: 'What context should the prompt use?', requestedSchema: context }) },
        });
      });
    },
  });
}

/** A codec with a key of this process: every round of a flow reaches the same process. */
function stateCodec() {
  return createRequestStateCodec<RoundState>({ key: randomBytes(32), ttlSeconds: 600 });
}

/** Serves the 2026 upstream over Streamable HTTP at `http://host:port/mcp`, both eras on one endpoint. */
export async function serve2026Http(port = 0, host = '127.0.0.1', catalogue: Catalogue = '2026'): Promise<ConformanceHttp> {
  const codec = stateCodec();
  const hooks: Hooks2026 = {
    codec,
    listChanged: (kind) => (kind === 'tools' ? modern.notify.toolsChanged() : modern.notify.promptsChanged()),
  };
  const modern = createMcpHandler(() => create2026Server(hooks, catalogue), { legacy: 'reject' });
  return serveBothEras(legacySessions(eachSession(() => create2026Server(hooks, catalogue))), modern, port, host);
}

/** Serves the 2026 upstream over this process's stdio. */
export function serve2026Stdio(): void {
  const hooks: Hooks2026 = {
    codec: stateCodec(),
    // A stdio connection has one instance: its own list_changed (2025) or listen stream (2026) carries the change.
    listChanged: (kind) => void (kind === 'tools' ? server?.sendToolListChanged() : server?.sendPromptListChanged()),
  };
  let server: McpServer | undefined;
  serveStdio(() => (server = create2026Server(hooks)));
}

upstreamMain(import.meta.url, serve2026Stdio, (port, argv) => serve2026Http(port, '127.0.0.1', argv.includes('--catalogue-2025') ? '2025' : '2026'));
