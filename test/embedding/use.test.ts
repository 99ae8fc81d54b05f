/**
 * USE Lite from TypeScript sources: loads offline from the npm weights package, and its
 * similarities rank a real paraphrase above an unrelated tool. (From sources there is
 * no compiled worker, so this runs on the main thread; use-pool.test.ts covers workers.)
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Embedder } from '../../src/embedding/types.js';
import { createUseEmbedder } from '../../src/embedding/use.js';
import { dot, maxAbsDiff, TOOL_TEXTS } from './helpers.js';

describe('use provider', () => {
  let use: Embedder;
  beforeAll(async () => {
    use = await createUseEmbedder({ batchSize: 4 });
  });
  afterAll(() => use.close());

  test('id and dim', () => {
    expect(use.id).toBe('use:lite-512');
    expect(use.dim).toBe(512);
  });

  test('a paraphrase is closer than an unrelated tool, with plausible cosines', async () => {
    const query = await use.embedQuery('read the contents of a file');
    const [readFile, createEntity] = await use.embedDocuments([TOOL_TEXTS[0]!, TOOL_TEXTS[1]!]);
    const related = dot(query, readFile!);
    const unrelated = dot(query, createEntity!);
    // measured 0.829 and 0.321
    expect(related).toBeGreaterThan(0.7);
    expect(related).toBeLessThan(0.95);
    expect(unrelated).toBeGreaterThan(0);
    expect(unrelated).toBeLessThan(0.5);
    expect(related - unrelated).toBeGreaterThan(0.3);
  });

  test('unit length, input order, and the same vector whatever the batch', async () => {
    const vectors = await use.embedDocuments(TOOL_TEXTS);
    expect(vectors).toHaveLength(TOOL_TEXTS.length);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(512);
      expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 5);
    }
    for (const [i, text] of TOOL_TEXTS.entries()) {
      expect(maxAbsDiff(await use.embedQuery(text), vectors[i]!)).toBeLessThan(1e-6);
    }
  });

  test('empty texts, even at the end of a batch, still get a unit vector', async () => {
    const [a, empty, b] = await use.embedDocuments(['read a file', '', '']);
    expect(Math.sqrt(dot(empty!, empty!))).toBeCloseTo(1, 5);
    expect(maxAbsDiff(empty!, b!)).toBe(0);
    expect(maxAbsDiff(await use.embedQuery(''), empty!)).toBeLessThan(1e-6);
    expect(dot(a!, empty!)).toBeLessThan(0.9);
    expect(await use.embedDocuments([])).toEqual([]);
  });

  test('a closed embedder rejects', async () => {
    const other = await createUseEmbedder({ workers: 0 });
    await other.close();
    await other.close();
    await expect(other.embedQuery('x')).rejects.toThrow(/closed/);
  });
});
