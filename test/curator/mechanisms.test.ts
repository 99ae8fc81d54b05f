import { describe, expect, test } from 'vitest';
import { NameAnchor, nameTokens } from '../../src/curator/anchor.js';
import { Bm25Index } from '../../src/curator/bm25.js';
import { DenseIndex } from '../../src/curator/dense.js';
import { lowConfidenceThreshold, withDependencies } from '../../src/curator/expand.js';
import { bm25Coverage } from '../../src/curator/fusion.js';
import { scoreGap } from '../../src/curator/retrieve.js';
import { rrf } from '../../src/curator/rrf.js';
import { assembleShortlist } from '../../src/curator/shortlist.js';
import { interleave, partBudget, splitQuery } from '../../src/curator/split.js';

const unit = (...xs: number[]): Float32Array => {
  const n = Math.hypot(...xs);
  return Float32Array.from(xs.map((x) => x / n));
};

describe('RRF (k = 60, top 50)', () => {
  test('scores are Σ w / (60 + rank)', () => {
    const fused = rrf([{ indices: [7, 3, 5], weight: 1 }, { indices: [3, 9], weight: 0.5 }]);
    expect(fused.map((f) => f.index)).toEqual([3, 7, 5, 9]);
    expect(fused[0]!.score).toBeCloseTo(1 / 62 + 0.5 / 61, 12);
    expect(fused[1]!.score).toBeCloseTo(1 / 61, 12);
    expect(fused[3]!.score).toBeCloseTo(0.5 / 62, 12);
  });
  test('only the top 50 of a list vote', () => {
    const long = Array.from({ length: 60 }, (_, i) => i);
    const fused = rrf([{ indices: long, weight: 1 }]);
    expect(fused).toHaveLength(50);
    expect(fused[49]!.score).toBeCloseTo(1 / 110, 12);
  });
});

describe('BM25', () => {
  const bm25 = new Bm25Index(['get fee dues', 'pay fees by card', 'library books on loan']);
  test('ranks matches, respects the allowed mask, IDF as minisearch', () => {
    expect(bm25.query('fees').map((h) => h.index)).toEqual([0, 1]);
    expect(bm25.query('fees', Uint8Array.from([0, 1, 1])).map((h) => h.index)).toEqual([1]);
    expect(bm25.idf('fee')).toBeCloseTo(Math.log(1 + 1.5 / 2.5), 12);
    expect(bm25.idf('absent')).toBeCloseTo(Math.log(1 + 3.5 / 0.5), 12);
  });
  test('zero-score case: no term matches, no hits', () => {
    expect(bm25.query('weather tomorrow')).toEqual([]);
  });
});

describe('dense (usearch exact inner product)', () => {
  test('similarity = cosine; a tool scores the max over document and exemplars', () => {
    const index = new DenseIndex(2, [unit(1, 0), unit(0, 1)], [[unit(0.6, 0.8)]]);
    const r = index.search(unit(0, 1));
    expect(Array.from(r.indices)).toEqual([1, 0]);
    expect(r.similarities[0]).toBeCloseTo(1, 6);
    expect(r.similarities[1]).toBeCloseTo(0.8, 6); // exemplar (0.6, 0.8), not the document (1, 0)
    expect(Array.from(index.search(unit(0, 1), Uint8Array.from([1, 0])).indices)).toEqual([0]);
  });
  test('rejects vectors of another dimension', () => {
    expect(() => new DenseIndex(3, [unit(1, 0)])).toThrow(/2 dimensions, expected 3/);
  });
});

describe('name-token anchor', () => {
  const anchor = new NameAnchor(['playwright_iframe_click', 'puppeteer_click', 'get_fee_dues', 'search', 'get_id']);
  test('tokens longer than 3 characters, stemmed', () => {
    expect(nameTokens('get_fee_dues')).toEqual(['due']);
    expect(nameTokens('playwright_iframe_click')).toEqual(['playwright', 'iframe', 'click']);
    expect(nameTokens('get_id')).toEqual([]);
  });
  test('≥ 60 % of a name present in the query forces the tool', () => {
    expect(anchor.match('Click the button in the iframe')).toEqual([{ index: 0, coverage: 2 / 3 }]);
    expect(anchor.match('what dues do I have')).toEqual([{ index: 2, coverage: 1 }]);
    expect(anchor.match('click it')).toEqual([]);
    expect(anchor.match('Click the button in the iframe', Uint8Array.from([0, 1, 1, 1, 1]))).toEqual([]);
  });
});

describe('compound splitting', () => {
  test('splits on the narrow markers only', () => {
    expect(splitQuery('Check my fee dues and then pay them')).toEqual(['Check my fee dues', 'pay them']);
    expect(splitQuery('find a book, then borrow it as well as renew my loan')).toEqual(['find a book', 'borrow it', 'renew my loan']);
    expect(splitQuery('show name and email or phone')).toEqual(['show name and email or phone']);
    expect(splitQuery('I also need my grades')).toEqual(['I also need my grades']);
    expect(splitQuery('a1 then b2 then c3 then d4 then e5')).toEqual(['a1', 'b2', 'c3', 'd4 e5']);
  });
  test('budget max(top_k // parts + 2, 7)', () => {
    expect([partBudget(12, 2), partBudget(12, 3), partBudget(20, 2), partBudget(10, 4)]).toEqual([8, 7, 12, 7]);
  });
  test('union interleaves rank by rank', () => {
    expect(interleave([[1, 2, 3], [4, 2, 5]], 2)).toEqual([1, 4, 2]);
  });
});

describe('shortlist assembly', () => {
  const whole = Array.from({ length: 30 }, (_, i) => i);
  test('topK, plus 5 on low confidence', () => {
    expect(assembleShortlist({ whole, parts: [], topK: 4, extra: 0, anchored: [], pool: [] }).tools).toEqual([0, 1, 2, 3]);
    const wide = assembleShortlist({ whole, parts: [], topK: 4, extra: 5, anchored: [], pool: [] });
    expect(wide.tools).toHaveLength(9);
    expect(wide.addedBy.slice(3, 5)).toEqual(['retrieval', 'expansion']);
  });
  test('split union first, whole query tops up', () => {
    const s = assembleShortlist({ whole: [9, 8, 7, 6], parts: [[1, 2, 3, 4, 5, 6, 7, 8], [9, 10, 11, 12, 13, 14, 15, 16]], topK: 4, extra: 0, anchored: [], pool: [] });
    expect(s.tools).toEqual([1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15]);
    expect(s.addedBy.slice(0, 2)).toEqual(['split', 'retrieval']);
  });
  test('anchors take the last slots of the first topK; at most ⌈topK/2⌉', () => {
    expect(assembleShortlist({ whole, parts: [], topK: 4, extra: 0, anchored: [20], pool: [] })).toEqual({ tools: [0, 1, 2, 20], addedBy: ['retrieval', 'retrieval', 'retrieval', 'anchor'] });
    expect(assembleShortlist({ whole, parts: [], topK: 4, extra: 2, anchored: [20, 3], pool: [] }).tools).toEqual([0, 1, 3, 20, 2, 4]);
    expect(assembleShortlist({ whole, parts: [], topK: 4, extra: 0, anchored: [20, 21, 22], pool: [] }).tools).toEqual([0, 1, 20, 21]);
  });
  test('rankings that run short are filled from the pool', () => {
    expect(assembleShortlist({ whole: [5], parts: [], topK: 3, extra: 0, anchored: [], pool: [1, 5, 2, 3] })).toEqual({ tools: [5, 1, 2], addedBy: ['retrieval', 'fallback', 'fallback'] });
  });
});

describe('expansions and confidence', () => {
  test('dependencies pulled in transitively, once, only usable ones', () => {
    const deps = new Map([[5, [2, 3]], [3, [9, 5]], [1, [4]]]);
    expect(withDependencies([5, 1], deps, (i) => i !== 4)).toEqual({ tools: [5, 1, 2, 3, 9], added: [2, 3, 9] });
  });
  test('threshold per embedder id; explicit option wins; unknown embedder: off', () => {
    expect(lowConfidenceThreshold('use:lite-512')).toBe(0.39);
    expect(lowConfidenceThreshold('use:lite-512', 0.5)).toBe(0.5);
    expect(lowConfidenceThreshold('transformers:other')).toBeUndefined();
  });
  test('score gap (s1 − s2) / s1', () => {
    expect(scoreGap([0.5, 0.4])).toBeCloseTo(0.2, 12);
    expect(scoreGap([0.5])).toBe(1);
    expect(scoreGap([])).toBe(0);
    expect(scoreGap([-0.1, -0.2])).toBe(0);
  });
  test('fusion gate: IDF-weighted coverage of the top BM25 hit', () => {
    const idf: Record<string, number> = { fee: 2, due: 1, paris: 3 };
    const hits = [{ index: 0, score: 3, terms: ['fee', 'due'] }];
    expect(bm25Coverage(hits, ['fee', 'due', 'paris'], (t) => idf[t]!)).toBeCloseTo(3 / 6, 12);
    expect(bm25Coverage([], ['fee'], (t) => idf[t]!)).toBe(0);
  });
});
