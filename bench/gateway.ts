/**
 * Gateway benchmarks over real upstreams — the MCP reference servers (filesystem,
 * memory, everything, spawned from node_modules) and the bundled university testbed
 * (eight servers, 191 tools): cold start and warm restart to the first tools/list answer
 * with the index in SQLite, and select() / find_tools latency over the real catalog.
 * Run: `npm run build && node dist/bench/gateway.js` (or `npm run bench`).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import Database from 'better-sqlite3';
import { dump } from 'js-yaml';
import { loadConfig, type LoadedConfig } from '../src/config/load.js';
import { storeLocation } from '../src/config/store.js';
import { embedderConfigSchema } from '../src/embedding/index.js';
import { Gateway } from '../src/gateway/gateway.js';
import { Session } from '../src/gateway/session.js';
import { percentile } from '../src/eval/metrics.js';

const ROOT = resolve(import.meta.dirname, '../..');
const server = (name: string) => join(ROOT, 'node_modules/@modelcontextprotocol', name, 'dist/index.js');

/** Queries a user of the three reference servers would type. */
const REFERENCE_QUERIES = [
  'read the contents of a file', 'show me what is in this folder', 'create a new directory', 'rename a file',
  'search for files matching a pattern', 'get file size and modification time', 'write text to a file',
  'edit some lines in a file', 'remember that Alice works at Acme', 'what do you know about Alice',
  'delete an entity from memory', 'link two entities with a relation', 'add two numbers', 'echo back my message',
  'give me a tiny image', 'run a long operation with progress', 'list the allowed directories', 'compress a file',
  'add an observation to an entity', 'show the whole knowledge graph',
];

/** Queries a student would type to the university testbed. */
const UNIVERSITY_QUERIES = [
  'what is my cgpa', 'am I allowed to sit my exams', 'how much fee do I still owe', 'pay my hostel fees',
  'download my hall ticket', 'apply for leave from the hostel', 'renew the book I borrowed', 'which placement drives can I apply to',
  'show my timetable for tomorrow', 'my attendance in data structures', 'raise a complaint about the mess food', 'book a discussion room in the library',
  'when are the end semester exams', 'apply for revaluation of my maths paper', 'check my internal marks', 'what scholarships can I get',
  'upload my resume', 'report a broken fan in my room', 'register for the coding workshop', 'what is my library fine',
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
async function startOnce(loaded: LoadedConfig, persona?: string) {
  const t0 = performance.now();
  const gateway = await Gateway.start(loaded);
  const session = new Session(gateway, { persona });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await session.server.connect(serverSide);
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(clientSide);
  await client.listTools();
  const firstListMs = performance.now() - t0;
  const db = new Database(storeLocation(loaded), { readonly: true });
  const embedded = (db.prepare('SELECT COUNT(*) AS n FROM embeddings WHERE created_at >= ?').get(Date.now() - firstListMs) as { n: number }).n;
  db.close();
  return { gateway, client, firstListMs, embedded };
}

/** Warm-restart and latency rows for one config; `persona` filters the catalog as a session would. */
export async function benchGateway(label: string, loaded: LoadedConfig, queries: string[], persona?: string): Promise<string[]> {
  const cold = await startOnce(loaded, persona);
  await cold.client.close();
  await cold.gateway.close();

  const lines = ['| start | upstreams ready ms | embedder ready ms | indexed ms | first tools/list ms | gateway time excl. upstream spawn ms | embeddings computed |', '|---|---|---|---|---|---|---|'];
  const row = (label: string, r: Awaited<ReturnType<typeof startOnce>>) => {
    const s = r.gateway.startup;
    lines.push(`| ${label} | ${s.upstreamsMs} | ${s.embedderMs} | ${s.indexedMs} | ${r.firstListMs.toFixed(0)} | ${(r.firstListMs - s.upstreamsMs).toFixed(0)} | ${r.embedded} |`);
  };
  row('cold (empty store)', cold);
  const warm = await startOnce(loaded, persona);
  row('warm (index in SQLite)', warm);

  const tools = warm.gateway.catalog.length;
  for (const q of queries.slice(0, 3)) await warm.gateway.findTools(q, persona);
  const select: number[] = [];
  const findTools: number[] = [];
  for (let round = 0; round < 5; round++) {
    for (const q of queries) {
      let t = performance.now();
      await warm.gateway.findTools(q, persona);
      select.push(performance.now() - t);
      t = performance.now();
      await warm.client.callTool({ name: 'find_tools', arguments: { query: q } });
      findTools.push(performance.now() - t);
    }
  }
  select.sort((a, b) => a - b);
  findTools.sort((a, b) => a - b);
  const pool = persona ? `${warm.gateway.allowedFor(persona).length} (${persona})` : String(tools);
  lines.push('', `| catalog | tools | allowed | queries | select() p50 ms | p99 ms | find_tools round trip p50 ms | p99 ms |`, '|---|---|---|---|---|---|---|---|');
  lines.push(`| ${label} | ${tools} | ${pool} | ${select.length} | ${percentile(select, 0.5).toFixed(1)} | ${percentile(select, 0.99).toFixed(1)} | ${percentile(findTools, 0.5).toFixed(1)} | ${percentile(findTools, 0.99).toFixed(1)} |`);
  await warm.client.close();
  await warm.gateway.close();
  return lines;
}

/** Both catalogs, each with a fresh temporary store so the cold row really is cold. */
export async function benchGateways(): Promise<string[]> {
  const reference = await benchGateway('filesystem + memory + everything', loadConfig(writeConfig()), REFERENCE_QUERIES);
  const university = loadConfig(join(ROOT, 'gateway.config.yaml'));
  university.config.store = join(mkdtempSync(join(tmpdir(), 'tc-bench-')), 'store.db');
  university.config.curator.embedder = embedderConfigSchema.parse({ provider: 'use' });
  const uni = await benchGateway('university testbed (8 servers)', university, UNIVERSITY_QUERIES, 'student');
  return ['### MCP reference servers', '', ...reference, '', '### University testbed, student persona', '', ...uni];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${(await benchGateways()).join('\n')}\n`);
}
