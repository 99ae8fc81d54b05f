/**
 * Gateway benchmarks over the MCP reference servers (filesystem, memory, everything,
 * spawned from node_modules): warm restart to the first tools/list answer with the index
 * in SQLite, and find_tools / select() latency over their real catalog.
 * Run: `npm run build && node dist/bench/gateway.js` (or `npm run bench`).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { dump } from 'js-yaml';
import { loadConfig } from '../src/config/load.js';
import { Gateway } from '../src/gateway/gateway.js';
import { Session } from '../src/gateway/session.js';

const ROOT = resolve(import.meta.dirname, '../..');
const server = (name: string) => join(ROOT, 'node_modules/@modelcontextprotocol', name, 'dist/index.js');
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

/** Queries a user of these three servers would type. */
const QUERIES = [
  'read the contents of a file', 'show me what is in this folder', 'create a new directory', 'rename a file',
  'search for files matching a pattern', 'get file size and modification time', 'write text to a file',
  'edit some lines in a file', 'remember that Alice works at Acme', 'what do you know about Alice',
  'delete an entity from memory', 'link two entities with a relation', 'add two numbers', 'echo back my message',
  'give me a tiny image', 'run a long operation with progress', 'list the allowed directories', 'compress a file',
  'add an observation to an entity', 'show the whole knowledge graph',
];

function writeConfig(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tc-bench-'));
  mkdirSync(join(dir, 'files'));
  const config = {
    upstreams: {
      files: { command: process.execPath, args: [server('server-filesystem'), join(dir, 'files')] },
      memory: { command: process.execPath, args: [server('server-memory')], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } },
      everything: { command: process.execPath, args: [server('server-everything'), 'stdio'] },
    },
    curator: { mode: 'hybrid', top_k: 12, embedder: 'use' },
    store: join(dir, 'store.db'),
  };
  const path = join(dir, 'gateway.config.yaml');
  writeFileSync(path, dump(config));
  return path;
}

/** One start: Gateway.start, then a real MCP client's tools/list over an in-memory transport. */
async function startOnce(configPath: string) {
  const t0 = performance.now();
  const gateway = await Gateway.start(loadConfig(configPath));
  const session = new Session(gateway, {});
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await session.server.connect(serverSide);
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(clientSide);
  await client.listTools();
  const firstListMs = performance.now() - t0;
  const embedded = (gateway.db.prepare('SELECT COUNT(*) AS n FROM embeddings WHERE created_at >= ?').get(Date.now() - firstListMs) as { n: number }).n;
  return { gateway, client, firstListMs, embedded };
}

export async function benchGateway(): Promise<string[]> {
  const configPath = writeConfig();
  const cold = await startOnce(configPath);
  await cold.client.close();
  await cold.gateway.close();

  const lines = ['| start | upstreams ready ms | embedder ready ms | indexed ms | first tools/list ms | gateway time excl. upstream spawn ms | embeddings computed |', '|---|---|---|---|---|---|---|'];
  const row = (label: string, r: Awaited<ReturnType<typeof startOnce>>) => {
    const s = r.gateway.startup;
    lines.push(`| ${label} | ${s.upstreamsMs} | ${s.embedderMs} | ${s.indexedMs} | ${r.firstListMs.toFixed(0)} | ${(r.firstListMs - s.upstreamsMs).toFixed(0)} | ${r.embedded} |`);
  };
  row('cold (empty store)', cold);
  const warm = await startOnce(configPath);
  row('warm (index in SQLite)', warm);

  const tools = warm.gateway.catalog.length;
  for (const q of QUERIES.slice(0, 3)) await warm.gateway.findTools(q, undefined);
  const select: number[] = [];
  const findTools: number[] = [];
  for (let round = 0; round < 5; round++) {
    for (const q of QUERIES) {
      let t = performance.now();
      await warm.gateway.findTools(q, undefined);
      select.push(performance.now() - t);
      t = performance.now();
      await warm.client.callTool({ name: 'find_tools', arguments: { query: q } });
      findTools.push(performance.now() - t);
    }
  }
  select.sort((a, b) => a - b);
  findTools.sort((a, b) => a - b);
  lines.push('', `| reference servers catalog | tools | queries | select() p50 ms | p99 ms | find_tools round trip p50 ms | p99 ms |`, '|---|---|---|---|---|---|---|');
  lines.push(`| filesystem + memory + everything | ${tools} | ${select.length} | ${pct(select, 0.5).toFixed(1)} | ${pct(select, 0.99).toFixed(1)} | ${pct(findTools, 0.5).toFixed(1)} | ${pct(findTools, 0.99).toFixed(1)} |`);
  await warm.client.close();
  await warm.gateway.close();
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const lines = await benchGateway();
  process.stdout.write(`${lines.join('\n')}\n`);
}
