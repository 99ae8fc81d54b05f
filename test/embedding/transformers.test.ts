/**
 * The transformers provider, offline, on a tiny BERT-shaped model the test writes itself
 * (tiny-bert.ts): the pooled, normalized vector must equal a hand computation from the
 * model's embedding table, for CLS and mean pooling, and for both files: fp32 reads
 * onnx/model.onnx, q8 onnx/model_quantized.onnx (given a different table here).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTransformersEmbedder, modelCardDefaults } from '../../src/embedding/transformers.js';
import { maxAbsDiff } from './helpers.js';
import { TINY_DIM, TINY_VOCAB, tinyEmbeddingTable, writeTinyBert } from './tiny-bert.js';

const tables = { fp32: tinyEmbeddingTable(), q8: tinyEmbeddingTable().map((x, i) => x * ((i % 3) - 1.5)) };

/** What the model should output: CLS row, or mean over [CLS] tokens [SEP], then L2-normalized. */
function expected(dtype: keyof typeof tables, words: string[], pooling: 'cls' | 'mean'): number[] {
  const row = (t: string) => tables[dtype].slice(TINY_VOCAB.indexOf(t) * TINY_DIM, (TINY_VOCAB.indexOf(t) + 1) * TINY_DIM);
  const tokens = ['[CLS]', ...words, '[SEP]'];
  const v = new Array<number>(TINY_DIM).fill(0);
  for (const t of pooling === 'cls' ? ['[CLS]'] : tokens) row(t).forEach((x, i) => (v[i]! += x));
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'tiny-bert-'));
  await writeTinyBert(root, 'tiny-bert', tables.fp32, tables.q8);
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe.each([['fp32'], ['q8']] as const)('tiny model, dtype %s', (dtype) => {
  test.each([['cls'], ['mean']] as const)('%s pooling matches the hand computation', async (pooling) => {
    const e = await createTransformersEmbedder({
      model: 'tiny-bert', localModelPath: root, allowRemoteModels: false, dtype, pooling, queryInstruction: 'read ',
    });
    try {
      expect(e.id).toBe(`transformers:tiny-bert:${dtype}:${pooling}`);
      expect(e.dim).toBe(TINY_DIM);
      // two texts of different lengths: the shorter one is padded, padding must not count
      const [short, long] = await e.embedDocuments(['Read the file', 'create a graph entity']);
      expect(maxAbsDiff(short!, expected(dtype, ['read', 'the', 'file'], pooling))).toBeLessThan(1e-6);
      expect(maxAbsDiff(long!, expected(dtype, ['create', 'a', 'graph', 'entity'], pooling))).toBeLessThan(1e-6);
      // the query instruction is prepended to queries only; WordPiece splits "files"
      const query = await e.embedQuery('graph files');
      expect(maxAbsDiff(query, expected(dtype, ['read', 'graph', 'file', '##s'], pooling))).toBeLessThan(1e-6);
    } finally {
      await e.close();
    }
  });
});

test('a missing local model with remote models off fails with the path it looked at', async () => {
  await expect(createTransformersEmbedder({ model: 'absent-model', localModelPath: root, allowRemoteModels: false }))
    .rejects.toThrow(/absent-model/);
});

test('model-card defaults: bge English uses CLS and its query instruction, others mean and none', () => {
  expect(modelCardDefaults('Xenova/bge-small-en-v1.5')).toEqual({
    pooling: 'cls', queryInstruction: 'Represent this sentence for searching relevant passages: ',
  });
  expect(modelCardDefaults('Xenova/bge-m3')).toEqual({ pooling: 'cls', queryInstruction: '' });
  expect(modelCardDefaults('Xenova/all-MiniLM-L6-v2')).toEqual({ pooling: 'mean', queryInstruction: '' });
});
