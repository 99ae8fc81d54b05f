/**
 * The embedders compiled and run in a child process, as the gateway runs them:
 * - USE `embedDocuments` spreads batches over worker threads, returns the same vectors
 *   as the main thread in input order, and an idle pool does not keep the process alive;
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
const pooled = await createUseEmbedder({ workers: 2, batchSize: 8 });
const single = await createUseEmbedder({ workers: 0, batchSize: 8 });
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

test('a worker that dies rejects its batch instead of hanging, and close() is idempotent', async () => {
  const { UsePool } = await import('../../src/embedding/use-pool.js');
  const crashing = path.join(compiled.dir, 'crashing-worker.mjs');
  await writeFile(crashing, "import { parentPort } from 'node:worker_threads';\n"
    + "parentPort.on('message', () => { throw new Error('boom in worker'); });\n");
  const pool = new UsePool(2, pathToFileURL(crashing));
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
      + 'not loaded within 8000 ms)');
    expect(requests[0]).toBe('/Xenova/bge-small-en-v1.5/resolve/main/config.json');
  } finally {
    hub.closeAllConnections();
    hub.close();
  }
}, 130_000);
