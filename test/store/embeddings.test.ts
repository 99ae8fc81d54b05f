/**
 * The embeddings part on each backend: vectors round-trip as bytes, and claims share the
 * work of a fleet: three replicas cold on one empty store embed each text once (through
 * the curator's embedDocuments), and a claim whose holder died lapses.
 */
import { describe, expect, test } from 'vitest';
import { embedDocuments } from '../../src/curator/embedCache.js';
import type { Embedder } from '../../src/embedding/types.js';
import { BACKENDS, freshStores, setupBackends } from '../helpers/stores.js';

setupBackends();

/** A deterministic embedder that counts every text it is given, and takes a moment per batch (so replicas overlap). */
function countingEmbedder(seen: Map<string, number>): Embedder {
  const vector = (t: string) => Float32Array.from({ length: 8 }, (_, i) => (t.charCodeAt(i % t.length) % 17) / 17);
  return {
    id: 'test:counting',
    dim: 8,
    async close() {},
    async embedQuery(t) {
      return vector(t);
    },
    async embedDocuments(texts) {
      for (const t of texts) seen.set(t, (seen.get(t) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 30));
      return texts.map(vector);
    },
  };
}

describe.each(BACKENDS)('embeddings on $kind', (backend) => {
  const stores = freshStores(backend);
  const another = stores.another;

  test('vectors round-trip exactly, per embedder; absent ones are undefined', async () => {
    const store = await another();
    const v = Float32Array.of(0.1, -2.5, 3.25e-8, 1);
    await store.embeddings.put('e1', [{ text: 'alpha', vector: v }]);
    const [got, none] = await store.embeddings.get('e1', ['alpha', 'beta']);
    expect(got).toEqual(v);
    expect(none).toBeUndefined();
    expect(await store.embeddings.get('e2', ['alpha'])).toEqual([undefined]);
    await store.embeddings.put('e1', [{ text: 'alpha', vector: Float32Array.of(9) }]);
    expect((await store.embeddings.get('e1', ['alpha', 'alpha']))).toEqual([Float32Array.of(9), Float32Array.of(9)]);
  });

  test('a claim is exclusive until its vectors are stored or it lapses', async () => {
    const [a, b] = [await another(), await another()];
    expect(await a.embeddings.claim('e', ['x', 'y'], 60_000)).toEqual(['x', 'y']);
    expect(await b.embeddings.claim('e', ['x', 'y', 'z'], 60_000)).toEqual(['z']);
    expect(await a.embeddings.claim('e', ['x'], 60_000)).toEqual(['x']); // renewed by its holder
    await a.embeddings.put('e', [{ text: 'x', vector: Float32Array.of(1) }]);
    expect(await b.embeddings.claim('e', ['x', 'y'], 60_000)).toEqual([]); // x is done, y is a's
    // a died: its claim on y lapses (a TTL of 0 treats every claim as old).
    expect(await b.embeddings.claim('e', ['y'], 0)).toEqual(['y']);
  });

  test('three replicas cold on one empty store embed each text once, and all get every vector', async () => {
    const replicas = [await another(), await another(), await another()];
    const texts = Array.from({ length: 1500 }, (_, i) => `tool ${i}: does thing number ${i}`);
    const seen = new Map<string, number>();
    const embedder = countingEmbedder(seen);
    const results = await Promise.all(replicas.map((r) => embedDocuments(embedder, texts, r.embeddings)));
    expect(seen.size).toBe(1500);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    expect(results.reduce((sum, r) => sum + r.embedded, 0)).toBe(1500);
    for (const r of results) {
      expect(r.vectors).toHaveLength(1500);
      expect(r.vectors[1234]).toEqual(await embedder.embedQuery(texts[1234]!));
    }
  });

  test('two builds at once in one process (a newer catalog while the first embeds) embed each text once', async () => {
    const store = await another();
    const first = Array.from({ length: 300 }, (_, i) => `tool ${i}: does thing number ${i}`);
    // The newer catalog: the first one's tools and some more.
    const second = [...first, ...Array.from({ length: 100 }, (_, i) => `tool ${300 + i}: does thing number ${300 + i}`)];
    const seen = new Map<string, number>();
    const embedder = countingEmbedder(seen);
    const [a, b] = await Promise.all([embedDocuments(embedder, first, store.embeddings), embedDocuments(embedder, second, store.embeddings)]);
    // Before: both builds held the store's one claim, and the first 300 texts were embedded twice.
    expect([...seen.values()].filter((n) => n > 1)).toEqual([]);
    expect(seen.size).toBe(400);
    expect(a.embedded + b.embedded).toBe(400);
    expect(b.vectors[42]).toEqual(await embedder.embedQuery(second[42]!));
    expect(b.vectors[350]).toEqual(await embedder.embedQuery(second[350]!));
  });
});
