/**
 * Approximate dense search (ann.ts, dense.ts) and the large-catalog paths around it: the
 * graph's top 10 against exact search, exact rescoring, narrow pools, BM25's tools
 * scored, the curator's shortlists unchanged where the graph covers the catalog, the
 * config, per-array pools, and the lookups built in chunks.
 */
import { describe, expect, test } from 'vitest';
import { gatewayConfigSchema } from '../../src/config/schema.js';
import { NameAnchor } from '../../src/curator/anchor.js';
import { DenseIndex, type ToolVectors } from '../../src/curator/dense.js';
import { ExactNames } from '../../src/curator/exactNames.js';
import { createCurator } from '../../src/curator/index.js';
import { ScriptProfile } from '../../src/curator/script.js';
import { CAMPUS_TOOLS, fakeEmbedder, tool } from './fakeEmbedder.js';

/** A seeded generator (mulberry32), so the catalog and the figures below are the same on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DIM = 32;

/** Unit vectors around 60 topic centres: tools of one topic are near each other, as real tool families are. */
function clusteredCatalog(tools: number, seed = 7): { vectors: ToolVectors[]; near: (topic: number) => Float32Array } {
  const rnd = random(seed);
  const unit = (v: Float32Array): Float32Array => {
    const n = Math.hypot(...v) || 1;
    return v.map((x) => x / n);
  };
  const centres = Array.from({ length: 60 }, () => unit(Float32Array.from({ length: DIM }, () => rnd() - 0.5)));
  const near = (topic: number, spread = 0.35): Float32Array => unit(centres[topic % 60]!.map((x) => x + spread * (rnd() - 0.5)));
  const vectors = Array.from({ length: tools }, (_, i) => ({
    document: near(i),
    passages: Array.from({ length: Math.floor(rnd() * 3) }, () => near(i)),
  }));
  return { vectors, near: (topic) => near(topic, 0.5) };
}

describe('approximate dense search', () => {
  test('finds the exact top 10 (at least 95 % of it over 40 queries) and scores every tool it returns exactly', async () => {
    const { vectors, near } = clusteredCatalog(3_000);
    const index = new DenseIndex(DIM, vectors);
    const exact = new DenseIndex(DIM, vectors);
    expect(await index.buildGraph('i8')).toBe(true);
    expect(index.approximate).toBe(true);
    expect(exact.approximate).toBe(false);
    let found = 0;
    for (let q = 0; q < 40; q++) {
      const query = near(q * 7);
      const truth = exact.search(query);
      const approx = index.search(query, undefined, 60);
      expect(approx.approximate).toBe(true);
      expect(approx.indices.length).toBe(60);
      // Scores are exact (float32 rows, float64 sums): each equals the exact search's score for that tool.
      for (const [k, i] of approx.indices.entries()) expect(approx.similarities[k]).toBeCloseTo(truth.score[i]!, 5);
      const top = new Set(truth.indices.slice(0, 10));
      found += [...approx.indices.slice(0, 10)].filter((i) => top.has(i)).length;
      // Without a depth the search is exact even with a graph.
      expect(index.search(query).approximate).toBe(false);
    }
    expect(found / 400).toBeGreaterThanOrEqual(0.95);
  });

  test('tools with identical texts (one description copied across servers) are found together: the graph holds each text once', async () => {
    // 100 families of 100 tools; a family's tools have the same text and so the same vector.
    const { vectors: distinct, near } = clusteredCatalog(100, 17);
    const vectors = Array.from({ length: 10_000 }, (_, i) => ({ document: distinct[i % 100]!.document }));
    const texts = Array.from({ length: 10_000 }, (_, i) => `text of family ${i % 100}`);
    const index = new DenseIndex(DIM, vectors);
    await index.buildGraph('i8', () => true, texts);
    const exact = new DenseIndex(DIM, vectors);
    for (let q = 0; q < 10; q++) {
      const query = near(q * 13);
      // The exact top 40: the best family's first 40 tools (ties in catalog order).
      expect([...index.search(query, undefined, 40).indices]).toEqual([...exact.search(query).indices.slice(0, 40)]);
    }
  });

  test('a pool too narrow to show among the candidates is scored whole, in exact order', async () => {
    const { vectors, near } = clusteredCatalog(3_000, 11);
    const index = new DenseIndex(DIM, vectors);
    await index.buildGraph('i8');
    const exact = new DenseIndex(DIM, vectors);
    const allowed = new Uint8Array(3_000);
    const few = [5, 611, 1_200, 1_999, 2_345, 2_998];
    for (const i of few) allowed[i] = 1;
    const query = near(3);
    const approx = index.search(query, allowed, 60);
    const truth = exact.search(query, allowed);
    expect([...approx.indices]).toEqual([...truth.indices]);
    expect([...approx.pool].sort((a, b) => a - b)).toEqual(few);
  });

  test('tools asked for as `extra` (BM25’s best) are scored even when the graph does not propose them', async () => {
    const { vectors, near } = clusteredCatalog(3_000, 13);
    const index = new DenseIndex(DIM, vectors);
    await index.buildGraph('f16');
    const exact = new DenseIndex(DIM, vectors);
    const query = near(0);
    const truth = exact.search(query);
    // The tool the exact search ranks last: no graph proposes it for this query.
    const far = truth.indices[truth.indices.length - 1]!;
    const without = index.search(query, undefined, 60);
    expect([...without.pool]).not.toContain(far);
    const withExtra = index.search(query, undefined, 60, [far]);
    expect([...withExtra.pool]).toContain(far);
    expect(withExtra.score[far]).toBeCloseTo(truth.score[far]!, 5);
    expect(withExtra.min).toBeCloseTo(truth.min, 5);
  });
});

describe('exact search of several queries in one pass', () => {
  test('searchMany gives each query the ranking search() gives it, scores bit for bit', () => {
    const { vectors, near } = clusteredCatalog(2_000, 23);
    const index = new DenseIndex(DIM, vectors);
    const allowed = new Uint8Array(2_000).map((_, i) => (i % 3 === 0 ? 0 : 1));
    for (const n of [2, 3, 5]) {
      const queries = Array.from({ length: n }, (_, k) => near(k * 11 + n));
      const many = index.searchMany(queries, allowed, 80);
      queries.forEach((q, k) => {
        const one = index.search(q, allowed, 80);
        expect([...many[k]!.indices]).toEqual([...one.indices]);
        expect([...many[k]!.similarities]).toEqual([...one.similarities]);
        expect([...many[k]!.score]).toEqual([...one.score]);
        expect([many[k]!.min, many[k]!.max]).toEqual([one.min, one.max]);
      });
    }
  });
});

describe('the curator with approximate search', () => {
  const catalog = [...CAMPUS_TOOLS, tool('renew_book', 'renew a borrowed library book'), tool('book_room', 'reserve a study room')];
  const queries = ['how much fee do I owe', 'pay my fees by card', 'renew my library book', 'my attendance in maths', 'reserve a room to study', 'grades of last term'];

  test('on a catalog the graph covers whole, gives the same shortlists as exact search', async () => {
    const exact = createCurator({ mode: 'hybrid', embedder: fakeEmbedder() });
    const approx = createCurator({ mode: 'hybrid', embedder: fakeEmbedder(), approximate: { from: 0 } });
    await exact.buildIndex(catalog);
    await approx.buildIndex(catalog);
    for (const q of queries) {
      const a = await exact.select(q, catalog, { topK: 3 });
      const b = await approx.select(q, catalog, { topK: 3 });
      expect(b.mode).toBe('hybrid');
      expect(b.tools.map((t) => t.name)).toEqual(a.tools.map((t) => t.name));
      expect(b.confidence).toBeCloseTo(a.confidence, 6);
    }
  });

  test('a second allowed list is its own pool, not the first one cached', async () => {
    const curator = createCurator({ mode: 'hybrid', embedder: fakeEmbedder() });
    await curator.buildIndex(catalog);
    const all = await curator.select('pay my fees by card', catalog, { topK: 2 });
    expect(all.tools.map((t) => t.name)).toContain('make_payment');
    const narrow = catalog.filter((t) => t.name !== 'make_payment');
    const some = await curator.select('pay my fees by card', narrow, { topK: 2 });
    expect(some.tools.map((t) => t.name)).not.toContain('make_payment');
    expect(some.tools.every((t) => narrow.includes(t))).toBe(true);
  });

  test('the config takes curator.approximate and refuses what it cannot build', () => {
    const base = { upstreams: {} };
    const parsed = gatewayConfigSchema.parse({ ...base, curator: { approximate: { from: 5000, quantization: 'f16' } } });
    expect(parsed.curator.approximate).toEqual({ from: 5000, quantization: 'f16' });
    expect(gatewayConfigSchema.parse(base).curator.approximate).toEqual({ from: 20_000, quantization: 'i8' });
    expect(gatewayConfigSchema.safeParse({ ...base, curator: { approximate: { quantization: 'i4' } } }).success).toBe(false);
    expect(gatewayConfigSchema.safeParse({ ...base, curator: { approximate: { from: -1 } } }).success).toBe(false);
  });
});

describe('lookups built in chunks', () => {
  const names = ['playwright_iframe_click', 'puppeteer_click', 'get_fee_dues', 'pay_library_fine', 'renew_book', 'book_study_room', 'list_courses'];

  test('the name anchor and the exact-name table match the same tools whole or chunked', () => {
    const whole = new NameAnchor(names);
    const chunked = new NameAnchor();
    chunked.add(names.slice(0, 3), 0);
    chunked.add(names.slice(3), 3);
    for (const q of ['click in the iframe', 'renew my book', 'library fine', 'study room booking']) expect(chunked.match(q)).toEqual(whole.match(q));
    expect(() => chunked.add(['late'], 2)).toThrow(/follow on/);

    const tools = names.map((n) => tool(n));
    const exactWhole = new ExactNames(tools);
    const exactChunked = new ExactNames();
    exactChunked.add(tools.slice(0, 4), 0);
    exactChunked.add(tools.slice(4), 4);
    for (const q of ['call renew_book please', 'use test.get_fee_dues', 'LIST_COURSES now']) expect(exactChunked.match(q)).toEqual(exactWhole.match(q));
    expect(exactChunked.match('call renew_book please').map((n) => n.index)).toEqual([4]);
  });

  test('the script profile counts chunks as one catalog', () => {
    const texts = ['Returns a student’s fee dues', 'Показать расписание занятий на завтра', 'Renew a borrowed book'];
    const chunked = new ScriptProfile();
    chunked.add(texts.slice(0, 1));
    chunked.add(texts.slice(1));
    expect(chunked.used).toEqual(new ScriptProfile(texts).used);
    expect(chunked.used).toEqual(['Latin', 'Cyrillic']);
    expect(chunked.foreign('図書館の本を延長したい')).toEqual(['Han', 'Hiragana']);
  });
});
