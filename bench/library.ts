/**
 * The library's costs (issue 13): how long `import 'tool-curator'` takes in a fresh
 * process (median of 7), and the added cost of curation per model call for each adapter
 * path at the university catalog's 191 tools, warm index (USE embedder, query embedding
 * included; 100 university-suite queries). The MCP path talks to the eight university
 * servers over stdio; the other adapters get the same 191 tools as their own tool types.
 * Run: `node dist/bench/library.js`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { tool as langchainTool } from '@langchain/core/tools';
import { Client, type Tool } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Agent, tool as agentTool } from '@openai/agents';
import { jsonSchema, tool as aiTool, type ToolSet } from 'ai';
import { curateAiSdkTools } from '../src/adapters/ai.js';
import { curateLangChainTools } from '../src/adapters/langchain.js';
import { curateMcpClients } from '../src/adapters/mcp.js';
import { curateAgentTools } from '../src/adapters/openai-agents.js';
import { percentile } from '../src/eval/metrics.js';
import { loadSuite, UNIVERSITY_SUITE } from '../src/eval/university.js';
import { createEmbedder } from '../src/embedding/index.js';
import type { Embedder } from '../src/embedding/types.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SERVERS = ['academics', 'attendance', 'examinations', 'finance', 'hostel', 'library', 'placements', 'administration'];
const QUERIES = 100;
const IMPORT_RUNS = 7;

function importMs(specifiers: string[]): number {
  const times: number[] = [];
  for (let i = 0; i < IMPORT_RUNS; i++) {
    const script = `const t = performance.now(); for (const s of ${JSON.stringify(specifiers)}) await import(s); process.stdout.write(String(performance.now() - t));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(run.stderr);
    times.push(Number(run.stdout));
  }
  return percentile(times.sort((a, b) => a - b), 0.5);
}

async function perCall(queries: string[], fn: (q: string) => Promise<unknown>): Promise<string> {
  await fn(queries[0]!);
  const times: number[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    await fn(q);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return `${percentile(times, 0.5).toFixed(1)} / ${percentile(times, 0.99).toFixed(1)}`;
}

export async function benchLibrary(embedder: Embedder): Promise<string[]> {
  const lines = [
    `| measure | figure |`,
    `|---|---|`,
    `| \`import 'tool-curator'\`, fresh process, median of ${IMPORT_RUNS} | ${importMs(['tool-curator']).toFixed(0)} ms |`,
    `| the entry point and all four adapters | ${importMs(['tool-curator', 'tool-curator/ai', 'tool-curator/langchain', 'tool-curator/openai-agents', 'tool-curator/mcp']).toFixed(0)} ms |`,
  ];
  const dbDir = mkdtempSync(join(tmpdir(), 'tc-bench-lib-'));
  const clients: Record<string, Client> = {};
  for (const s of SERVERS) {
    const client = new Client({ name: `bench-${s}`, version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [join(ROOT, 'dist/mock-servers', `${s}.js`)], env: { PATH: process.env.PATH ?? '', UNIVERSITY_DB: join(dbDir, 'university.db') }, stderr: 'ignore' }));
    clients[s] = client;
  }
  const cachePath = join(dbDir, 'cache.db');
  const options = { embedder, cachePath, topK: 12 };
  try {
    const mcp = await curateMcpClients(clients, options);
    const tools: Tool[] = mcp.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
    const queries = loadSuite(join(ROOT, UNIVERSITY_SUITE)).slice(0, QUERIES).map((c) => c.query);
    const messages = (q: string) => [{ role: 'user' as const, content: q }];

    const toolSet: ToolSet = Object.fromEntries(tools.map((t) => [t.name, aiTool({ description: t.description, inputSchema: jsonSchema(t.inputSchema as never), execute: async () => 'ok' })]));
    const ai = await curateAiSdkTools(toolSet, options);
    const lc = await curateLangChainTools(tools.map((t) => langchainTool(async () => 'ok', { name: t.name, description: t.description ?? '', schema: t.inputSchema as never })), options);
    const agent = new Agent({ name: 'bench', tools: tools.map((t) => agentTool({ name: t.name, description: t.description ?? '', parameters: t.inputSchema as never, strict: false, execute: async () => 'ok' })) });
    const agents = await curateAgentTools(agent, options);

    lines.push(`| tools curated | ${tools.length} (university catalog, warm index, top_k 12) |`);
    lines.push(`| per model call, p50 / p99 ms: ToolSelector.select | ${await perCall(queries, (q) => mcp.selector.select(q))} |`);
    lines.push(`| AI SDK: curation.select(messages) → ToolSet | ${await perCall(queries, (q) => ai.select(messages(q)))} |`);
    lines.push(`| AI SDK: prepareStep (one step of a loop) | ${await perCall(queries, (q) => ai.prepareStep({ messages: messages(q), stepNumber: 0 }))} |`);
    lines.push(`| LangChain: curation.select(messages) → tools | ${await perCall(queries, (q) => lc.select(messages(q)))} |`);
    lines.push(`| OpenAI Agents: agentFor(input) → cloned agent | ${await perCall(queries, (q) => agents.agentFor(q))} |`);
    lines.push(`| MCP clients: curation.select(query) → Tool[] | ${await perCall(queries, (q) => mcp.select(q))} |`);
    await Promise.all([ai.selector.close(), lc.selector.close(), agents.selector.close(), mcp.close()]);
  } finally {
    await Promise.all(Object.values(clients).map((c) => c.close()));
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const embedder = await createEmbedder({ provider: 'use' });
  try {
    process.stdout.write(`${(await benchLibrary(embedder)).join('\n')}\n`);
  } finally {
    await embedder.close();
  }
}
