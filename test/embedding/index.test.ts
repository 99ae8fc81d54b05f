/**
 * createEmbedder: config validation, `none`, and `auto` on this machine (the hub is
 * unreachable, so it must settle on USE and say why), and `auto` taking a local
 * transformers model when one is there.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { createEmbedder, embedderConfigSchema } from '../../src/embedding/index.js';
import { log } from '../../src/log.js';
import { writeTinyBert } from './tiny-bert.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'tiny-bert-'));
  await writeTinyBert(root, 'tiny-bert');
});
afterAll(() => rm(root, { recursive: true, force: true }));
afterEach(() => {
  vi.restoreAllMocks();
});

/** The message of every `log.info` call made while `run` runs. */
async function infoLines<T>(run: () => Promise<T>): Promise<{ value: T; lines: string[] }> {
  const info = vi.spyOn(log, 'info');
  const value = await run();
  return { value, lines: info.mock.calls.map((args) => String(args.at(-1))) };
}

describe('embedderConfigSchema', () => {
  test('applies each provider\'s defaults', () => {
    expect(embedderConfigSchema.parse({ provider: 'auto' })).toEqual({
      provider: 'auto', model: 'Xenova/bge-small-en-v1.5', dtype: 'q8', allowRemoteModels: true, batchSize: 32,
      autoTimeoutMs: 5000,
    });
    expect(embedderConfigSchema.parse({ provider: 'openai', baseUrl: 'http://localhost:11434/v1', model: 'nomic-embed-text' }))
      .toEqual({ provider: 'openai', baseUrl: 'http://localhost:11434/v1', model: 'nomic-embed-text', batchSize: 64,
        timeoutMs: 30_000, retries: 2 });
  });

  test('rejects unknown keys, unknown providers and missing required settings', () => {
    expect(embedderConfigSchema.safeParse({ provider: 'use', model: 'x' }).success).toBe(false);
    expect(embedderConfigSchema.safeParse({ provider: 'auto', autoTimeoutMS: 100 }).success).toBe(false);
    expect(embedderConfigSchema.safeParse({ provider: 'none', workers: 2 }).success).toBe(false);
    expect(embedderConfigSchema.safeParse({ provider: 'faiss' }).success).toBe(false);
    expect(embedderConfigSchema.safeParse({ provider: 'openai', model: 'm' }).success).toBe(false);
  });

  test('queryWorkers: for the in-process providers, 0 to 16; openai (I/O already) has none', () => {
    for (const provider of ['use', 'transformers', 'auto'] as const) {
      expect(embedderConfigSchema.parse({ provider, queryWorkers: 2 })).toMatchObject({ provider, queryWorkers: 2 });
      expect(embedderConfigSchema.safeParse({ provider, queryWorkers: 17 }).success).toBe(false);
    }
    expect(embedderConfigSchema.safeParse({ provider: 'openai', baseUrl: 'http://localhost:11434/v1', model: 'm', queryWorkers: 1 }).success).toBe(false);
  });

  test('createEmbedder names the bad key in its error', async () => {
    await expect(createEmbedder({ provider: 'transformers', dtype: 'q3' } as never)).rejects.toThrow(/invalid embedder config:[\s\S]*dtype/);
  });
});

test('none gives no embedder, and says so', async () => {
  const { value, lines } = await infoLines(() => createEmbedder({ provider: 'none' }));
  expect(value).toBeNull();
  expect(lines).toEqual(['embedder: none (BM25 only)']);
});

test('auto on this machine: the hub is unreachable, so use, with the reason logged', async () => {
  const { value: e, lines } = await infoLines(() => createEmbedder({ provider: 'auto', autoTimeoutMs: 4000 }));
  try {
    expect(e.id).toBe('use:lite-512');
    expect(e.dim).toBe(512);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^embedder: use:lite-512 \(transformers model Xenova\/bge-small-en-v1\.5 not available: .+\)$/);
  } finally {
    await e.close();
  }
});

test('auto takes the transformers model whose files are on this machine', async () => {
  const { value: e, lines } = await infoLines(() => createEmbedder({
    provider: 'auto', model: 'tiny-bert', localModelPath: root, allowRemoteModels: false, dtype: 'fp32',
  }));
  try {
    expect(e.id).toBe('transformers:tiny-bert:fp32:mean');
    expect(e.dim).toBe(4);
    expect(lines[0]!.replace(/loaded in \d+ ms/, 'loaded in N ms')).toBe(`embedder: transformers:tiny-bert:fp32:mean (auto: model files in ${path.join(root, 'tiny-bert')}, loaded in N ms)`);
  } finally {
    await e.close();
  }
});
