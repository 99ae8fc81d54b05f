/**
 * The embedders compiled and run in a child process, as the gateway runs them:
 * - USE `embedDocuments` spreads batches over worker threads, returns the same vectors
 *   as the main thread in input order, and an idle pool does not keep the process alive;
 * - `embedQuery` runs on a query worker (USE and transformers): concurrent queries are
 *   embedded together and each gets its own text's vector, equal to the main thread's;
 * - `auto` facing a hub that accepts connections but never answers falls back to USE at
 *   its deadline, and the abandoned download does not keep the process alive either.
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { compileEmbedding, type CompiledEmbedding } from './compile-embedding.js';
import { maxAbsDiff, TOOL_TEXTS } from './helpers.js';
import { writeTinyBert } from './tiny-bert.js';

let compiled: CompiledEmbedding;
beforeAll(async () => {
  compiled = await compileEmbedding();
});
afterAll(() => compiled?.remove());

/** The compiled log module's `configureLogging`, as the CLI calls it first (the library alone is silent). */
const logging = () => `import { configureLogging } from ${JSON.stringify(pathToFileURL(path.join(compiled.dir, 'src/log.js')).href)};
configureLogging({ format: 'json' });`;

/** Embeds argv[2] (JSON texts) with 2 workers and with none; prints both; never closes. */
const childScript = (useModule: string) => `
${logging()}
import { createUseEmbedder } from ${JSON.stringify(useModule)};
const texts = JSON.parse(process.argv[2]);
const pooled = await createUseEmbedder({ workers: 2, queryWorkers: 0, batchSize: 8 });
const single = await createUseEmbedder({ workers: 0, queryWorkers: 0, batchSize: 8 });
const rows = (vs) => vs.map((v) => Array.from(v));
const out = {
  pooled: rows(await pooled.embedDocuments(texts)),
  single: rows(await single.embedDocuments(texts)),
  again: rows(await pooled.embedDocuments(texts.slice(0, 20))),
};
process.stdout.write(JSON.stringify(out));
`;

test('worker pool: same vectors as the main thread, in input order; exits without close()', async () => {
  // 40 distinct texts = 5 batches of 8 over 2 workers
  const texts = Array.from({ length: 40 }, (_, i) => `${TOOL_TEXTS[i % TOOL_TEXTS.length]} (variant ${i})`);
  const script = path.join(compiled.dir, 'pool-child.mjs');
  await writeFile(script, childScript(pathToFileURL(compiled.module('use.js')).href));
  // An idle pool lets the child exit by itself: execFile resolves only once it has. A pool
  // that held it would keep it until this timeout kills it, and execFile would reject.
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [script, JSON.stringify(texts)], {
    env: { ...process.env, TOOL_CURATOR_LOG: 'debug' },
    timeout: 150_000,
    maxBuffer: 64 << 20,
  });
  const out = JSON.parse(stdout) as Record<'pooled' | 'single' | 'again', number[][]>;

  expect(stderr).toContain('"texts":40,"batches":5,"workers":2,"msg":"embedder: use documents on the worker pool"');
  expect(out.pooled).toHaveLength(40);
  for (let i = 0; i < 40; i++) {
    expect(maxAbsDiff(out.pooled[i]!, out.single[i]!)).toBeLessThan(1e-5);
    // neighbours differ, so equality at the same index really checks the order
    if (i > 0) expect(maxAbsDiff(out.pooled[i]!, out.single[i - 1]!)).toBeGreaterThan(1e-3);
  }
  for (let i = 0; i < 20; i++) expect(maxAbsDiff(out.again[i]!, out.single[i]!)).toBeLessThan(1e-5);
}, 180_000);

/** Embeds argv[2] (JSON texts) as queries, all at once on query workers and one by one on the main thread; prints both. */
const queryChild = (module: string, create: string) => `
import * as embedding from ${JSON.stringify(module)};
${logging()}
const texts = JSON.parse(process.argv[2]);
const settings = JSON.parse(process.argv[3]);
const workers = await embedding.${create}({ ...settings, queryWorkers: 1 });
const main = await embedding.${create}({ ...settings, queryWorkers: 0 });
const rows = (vs) => vs.map((v) => Array.from(v));
const out = { workers: rows(await Promise.all(texts.map((t) => workers.embedQuery(t)))), main: [] };
for (const t of texts) out.main.push(Array.from(await main.embedQuery(t)));
process.stdout.write(JSON.stringify(out));
`;

/** The query child's vectors, and the provider of each worker it started (from its debug log). */
async function queriesBothWays(module: string, create: string, texts: string[], settings: object): Promise<Record<'workers' | 'main', number[][]> & { started: string[] }> {
  const script = path.join(compiled.dir, `query-child-${create}.mjs`);
  await writeFile(script, queryChild(pathToFileURL(compiled.module(module)).href, create));
  // execFile resolves only once the child exits by itself: idle query workers must not hold it.
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [script, JSON.stringify(texts), JSON.stringify(settings)], {
    env: { ...process.env, TOOL_CURATOR_LOG: 'debug' },
    timeout: 150_000,
    maxBuffer: 64 << 20,
  });
  const started = [...stderr.matchAll(/"model":"(\w+)","queries":true,"workers":1,"msg":"embedder: worker started"/g)].map((m) => m[1]!);
  return { ...(JSON.parse(stdout) as Record<'workers' | 'main', number[][]>), started };
}

test('USE queries on a query worker: 24 at once, each its own vector, as on the main thread', async () => {
  const texts = Array.from({ length: 24 }, (_, i) => `${TOOL_TEXTS[i % TOOL_TEXTS.length]} (query ${i})`);
  const out = await queriesBothWays('use.js', 'createUseEmbedder', texts, { workers: 0, batchSize: 8 });
  expect(out.started).toEqual(['use']);
  expect(out.workers).toHaveLength(24);
  for (let i = 0; i < 24; i++) {
    // joined into batches of up to 8: the same vector to float rounding (measured ≤ 2e-7)
    expect(maxAbsDiff(out.workers[i]!, out.main[i]!)).toBeLessThan(1e-5);
    if (i > 0) expect(maxAbsDiff(out.workers[i]!, out.main[i - 1]!)).toBeGreaterThan(1e-3);
  }
}, 180_000);

test('transformers queries on a query worker: the query instruction applies, as on the main thread', async () => {
  const root = path.join(compiled.dir, 'models');
  await writeTinyBert(root, 'tiny-bert');
  const texts = ['read the file', 'create a graph entity', 'graph files', 'the contents of a file'];
  const out = await queriesBothWays('transformers.js', 'createTransformersEmbedder', texts, {
    model: 'tiny-bert', localModelPath: root, allowRemoteModels: false, dtype: 'fp32', pooling: 'mean', queryInstruction: 'read ',
  });
  expect(out.started).toEqual(['transformers']);
  expect(out.workers).toHaveLength(4);
  for (let i = 0; i < 4; i++) {
    expect(maxAbsDiff(out.workers[i]!, out.main[i]!)).toBeLessThan(1e-6);
    if (i > 0) expect(maxAbsDiff(out.workers[i]!, out.main[i - 1]!)).toBeGreaterThan(1e-3);
  }
}, 180_000);

test('a worker that dies rejects its batch instead of hanging, and close() is idempotent', async () => {
  const { EmbedPool } = await import('../../src/embedding/pool.js');
  const crashing = path.join(compiled.dir, 'crashing-worker.mjs');
  await writeFile(crashing, "import { parentPort } from 'node:worker_threads';\n"
    + "parentPort.on('message', () => { throw new Error('boom in worker'); });\n");
  const pool = new EmbedPool(2, pathToFileURL(crashing));
  await expect(pool.embed([['a'], ['b'], ['c']])).rejects.toThrow('boom in worker');
  await pool.close();
  await pool.close();
  await expect(pool.embed([['a']])).rejects.toThrow(/closed/);
});

test('auto with a hub that never answers: use at the deadline, and the process still exits', async () => {
  const requests: string[] = [];
  const hub = http.createServer((req) => requests.push(req.url ?? ''));
  hub.headersTimeout = hub.requestTimeout = 600_000;
  await new Promise<void>((resolve) => hub.listen(0, '127.0.0.1', resolve));
  const remoteHost = `http://127.0.0.1:${(hub.address() as AddressInfo).port}/`;
  const script = path.join(compiled.dir, 'auto-child.mjs');
  await writeFile(script, `
${logging()}
import { createEmbedder } from ${JSON.stringify(pathToFileURL(compiled.module('index.js')).href)};
const e = await createEmbedder({ provider: 'auto', autoTimeoutMs: 8000, remoteHost: process.argv[2], workers: 0 });
process.stdout.write(e.id);
`);
  try {
    // The deadline (8 s) leaves a loaded machine time to import transformers and ask the hub
    // before it: with 1 s the child sometimes gave up before its first request.
    // A request left pending would hold the child as long as this server keeps it open
    // (headersTimeout / requestTimeout below: longer than the test); execFile resolves only
    // if the child exits by itself, and its timeout turns a hang into a failure.
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [script, remoteHost], { timeout: 100_000 });
    expect(stdout).toBe('use:lite-512');
    expect(stderr).toContain('embedder: use:lite-512 (transformers model Xenova/bge-small-en-v1.5 not available: '
      + 'not loaded within 8000 ms; the hub is not asked again for a day (');
    expect(requests[0]).toBe('/Xenova/bge-small-en-v1.5/resolve/main/config.json');
  } finally {
    hub.closeAllConnections();
    hub.close();
  }
}, 130_000);
