/**
 * `auto` asks the Hugging Face hub only when nothing on the machine can tell: a local HTTP
 * server stands in for the hub (`remoteHost`) and counts every request it gets. A tiny
 * ONNX model written by the test stands in for the real one, under `localModelPath`, in
 * the transformers cache, or served by the stand-in hub. Asserted by request counts and
 * the logged reason, never by time.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { createEmbedder, embedderReason, type Embedder } from '../../src/embedding/index.js';
import { writeTinyBert } from './tiny-bert.js';

/** A stand-in hub: `reset` drops every connection (an unreachable hub), `serve` answers files under `root` as the hub lays them out. */
class Hub {
  readonly requests: string[] = [];
  mode: 'reset' | 'serve' = 'reset';
  private readonly server = http.createServer((req, res) => {
    this.requests.push(req.url ?? '');
    if (this.mode === 'reset') return void req.socket.destroy();
    const m = /^\/(.+)\/resolve\/main\/(.+)$/.exec(req.url ?? '');
    readFile(path.join(this.root, m?.[1] ?? '-', m?.[2] ?? '-')).then(
      (body) => res.end(body),
      () => res.writeHead(404).end('not found'),
    );
  });
  constructor(private readonly root: string) {}
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`;
  }
  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }
}

let models: string;
let hub: Hub;
let remoteHost: string;
const made: Embedder[] = [];
beforeAll(async () => {
  models = await mkdtemp(path.join(os.tmpdir(), 'tc-auto-models-'));
  await writeTinyBert(models, 'test/tiny-bert');
  hub = new Hub(models);
  remoteHost = await hub.start();
});
afterAll(async () => {
  hub.close();
  await rm(models, { recursive: true, force: true });
});
afterEach(async () => {
  hub.mode = 'reset';
  hub.requests.length = 0;
  await Promise.all(made.splice(0).map((e) => e.close()));
});

/** createEmbedder for `auto` with the stand-in hub, a fresh cache folder unless given, no worker threads. */
async function auto(settings: Record<string, unknown>): Promise<{ id: string; why: string }> {
  const e = await createEmbedder({ provider: 'auto', remoteHost, workers: 0, queryWorkers: 0, dtype: 'fp32', ...settings });
  made.push(e);
  return { id: e.id, why: embedderReason(e)! };
}

/** Where auto remembers the hub's failures, in the transformers cache folder (docs/CONFIGURATION.md, "Embedders"). */
const MEMO_FILE = 'tool-curator-hub.json';

const freshCache = () => mkdtemp(path.join(os.tmpdir(), 'tc-auto-cache-'));

describe('auto with the model on this machine: no request to the hub', () => {
  test('under localModelPath, downloads allowed: transformers from those files', async () => {
    const r = await auto({ model: 'test/tiny-bert', localModelPath: models, cacheDir: await freshCache() });
    expect(r.id).toBe('transformers:test/tiny-bert:fp32:mean');
    expect(r.why).toMatch(new RegExp(`^auto: model files in ${path.join(models, 'test/tiny-bert')}, loaded in \\d+ ms$`));
    expect(hub.requests).toEqual([]);
  });

  test('in the transformers cache (a model downloaded before): transformers from the cache', async () => {
    const cache = await freshCache();
    await writeTinyBert(cache, 'test/cached-bert');
    const r = await auto({ model: 'test/cached-bert', cacheDir: cache, localModelPath: await freshCache() });
    expect(r.id).toBe('transformers:test/cached-bert:fp32:mean');
    expect(r.why).toMatch(/^auto: model files in .*test\/cached-bert, loaded in \d+ ms$/);
    expect(hub.requests).toEqual([]);
  });

  test('nothing local and allowRemoteModels false: use, and says why', async () => {
    const r = await auto({ model: 'test/absent-bert', allowRemoteModels: false, cacheDir: await freshCache() });
    expect(r.id).toBe('use:lite-512');
    expect(r.why).toMatch(/^transformers model test\/absent-bert not available: not on this machine \(.+\) and allowRemoteModels is false$/);
    expect(hub.requests).toEqual([]);
  });
});

describe('auto with nothing local: the hub is asked once, its outcome remembered', () => {
  test('an unreachable hub is asked on the first start only; the next start takes use at once and says why', async () => {
    const cache = await freshCache();
    const first = await auto({ model: 'test/absent-bert', cacheDir: cache });
    expect(first.id).toBe('use:lite-512');
    expect(hub.requests[0]).toBe('/test/absent-bert/resolve/main/config.json');
    const asked = hub.requests.length;

    const second = await auto({ model: 'test/absent-bert', cacheDir: cache });
    expect(second.id).toBe('use:lite-512');
    expect(hub.requests).toHaveLength(asked);
    expect(first.why).toContain(`; the hub is not asked again for a day (${path.join(cache, MEMO_FILE)})`);
    expect(second.why).toMatch(/^transformers model test\/absent-bert not available: not on this machine \(.+\); the hub failed for it at \S+ \(.+\), so it is not asked again before \S+ \(delete .+ to ask now\)$/);
    // Another model is another question: asked.
    await auto({ model: 'test/other-bert', cacheDir: cache });
    expect(hub.requests.length).toBeGreaterThan(asked);
  });

  test('a failure older than a day is asked again', async () => {
    const cache = await freshCache();
    const key = `${remoteHost} test/absent-bert fp32`;
    await writeFile(path.join(cache, MEMO_FILE), JSON.stringify({ [key]: { failedAt: new Date(Date.now() - 25 * 3600_000).toISOString(), reason: 'fetch failed' } }));
    await auto({ model: 'test/absent-bert', cacheDir: cache });
    expect(hub.requests[0]).toBe('/test/absent-bert/resolve/main/config.json');
  });

  test('a reachable hub: downloaded into the cache on the first start; the next start loads it from there without asking', async () => {
    hub.mode = 'serve';
    const cache = await freshCache();
    const localModelPath = await freshCache();
    const first = await auto({ model: 'test/tiny-bert', cacheDir: cache, localModelPath });
    expect(first.id).toBe('transformers:test/tiny-bert:fp32:mean');
    expect(first.why).toMatch(/^auto: downloaded and loaded in \d+ ms$/);
    expect(hub.requests).toEqual(expect.arrayContaining(['/test/tiny-bert/resolve/main/config.json', '/test/tiny-bert/resolve/main/onnx/model.onnx']));
    const asked = hub.requests.length;

    const second = await auto({ model: 'test/tiny-bert', cacheDir: cache, localModelPath });
    expect(second.id).toBe('transformers:test/tiny-bert:fp32:mean');
    expect(second.why).toMatch(new RegExp(`^auto: model files in ${path.join(cache, 'test/tiny-bert')}, loaded in \\d+ ms$`));
    expect(hub.requests).toHaveLength(asked);
  });
});

test('the log line names the active embedder and why', async () => {
  const { log } = await import('../../src/log.js');
  const info = vi.spyOn(log, 'info');
  try {
    await auto({ model: 'test/tiny-bert', localModelPath: models, cacheDir: await freshCache() });
    expect(info.mock.calls.map((args) => String(args.at(-1)))).toContainEqual(
      expect.stringMatching(/^embedder: transformers:test\/tiny-bert:fp32:mean \(auto: model files in .+, loaded in \d+ ms\)$/),
    );
  } finally {
    info.mockRestore();
  }
});
