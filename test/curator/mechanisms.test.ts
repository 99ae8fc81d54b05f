import { describe, expect, test } from 'vitest';
import { NameAnchor, nameTokens } from '../../src/curator/anchor.js';
import { Bm25Index } from '../../src/curator/bm25.js';
import { DenseIndex } from '../../src/curator/dense.js';
import { lowConfidenceThreshold, withDependencies } from '../../src/curator/expand.js';
import { bm25Coverage, fuse } from '../../src/curator/fusion.js';
import { expandTerms } from '../../src/curator/lexicon.js';
import { scoreGap } from '../../src/curator/retrieve.js';
import { assembleShortlist } from '../../src/curator/shortlist.js';
import { interleave, partBudget, splitQuery } from '../../src/curator/split.js';

const unit = (...xs: number[]): Float32Array => {
  const n = Math.hypot(...xs);
  return Float32Array.from(xs.map((x) => x / n));
};

describe('fusion: (1 − p) · dense + p · BM25, each scaled to [0, 1]', () => {
  const dense = { indices: Int32Array.from([4, 7, 1]), similarities: Float32Array.from([0.6, 0.5, 0.2]), bestDocument: 0.6 };
  const hit = (index: number, score: number) => ({ index, score, terms: [], viaSynonym: [] });
  test('dense by (sim − min) / (max − min), BM25 by score / top score', () => {
    const fused = fuse(dense, [hit(7, 12), hit(1, 6)], 0.5);
    expect(fused.map((f) => [f.index, Number(f.score.toFixed(6))])).toEqual([[7, 0.5 * 0.75 + 0.5], [4, 0.5], [1, 0.5 * 0.5]]);
  });
  test('p = 1: BM25 decides; p = 0: dense decides; ties keep the dense order', () => {
    expect(fuse(dense, [hit(1, 6), hit(7, 6)], 1)).toEqual([{ index: 7, score: 1 }, { index: 1, score: 1 }, { index: 4, score: 0 }]);
    expect(fuse(dense, [hit(1, 6)], 0).map((f) => f.index)).toEqual([4, 7, 1]);
    const flat = { indices: Int32Array.from([2, 0]), similarities: Float32Array.from([0.3, 0.3]), bestDocument: 0.3 };
    expect(fuse(flat, [], 0)).toEqual([{ index: 2, score: 1 }, { index: 0, score: 1 }]);
  });
});

describe('BM25 (fields name / description / parameters)', () => {
  const bm25 = new Bm25Index([
    { name: 'get fee dues', description: 'Fees the student owes.', parameters: 'student id' },
    { name: 'pay fees', description: 'Pay fees by card.', parameters: 'amount' },
    { name: 'library books', description: 'Books on loan.', parameters: '' },
  ]);
  test('ranks matches, respects the allowed mask, IDF as minisearch', () => {
    expect(bm25.query('fees').map((h) => h.index)).toEqual([1, 0]);
    expect(bm25.query('fees', Uint8Array.from([1, 0, 1])).map((h) => h.index)).toEqual([0]);
    expect(bm25.idf('fee')).toBeCloseTo(Math.log(1 + 1.5 / 2.5), 12);
    expect(bm25.idf('absent')).toBeCloseTo(Math.log(1 + 3.5 / 0.5), 12);
    expect([bm25.has('loan'), bm25.has('absent')]).toEqual([true, false]);
  });
  test('zero-score case: no content term matches (stopwords never do), no hits', () => {
    expect(bm25.query('weather tomorrow')).toEqual([]);
    expect(bm25.query('what is on the')).toEqual([]);
  });
  test('synonyms from the lexicon match at half weight and are reported as such', () => {
    const fs = new Bm25Index([
      { name: 'create directory', description: 'Create a new directory.', parameters: 'path' },
      { name: 'write file', description: 'Create a new file.', parameters: 'path, content' },
    ]);
    const hits = fs.query('make a new folder');
    expect(hits.map((h) => [h.index, h.terms, h.viaSynonym])).toEqual([[0, ['new'], ['make', 'folder']], [1, ['new'], ['make']]]);
    const exact = fs.query('create a new directory')[0]!;
    expect(hits[0]!.score).toBeLessThan(exact.score);
  });
});

describe('dense (usearch exact inner product)', () => {
  test('a tool scores (document + best passage) / 2; bestDocument is the best document cosine', () => {
    const index = new DenseIndex(2, [{ document: unit(1, 0), passages: [unit(0.6, 0.8), unit(1, 1)] }, { document: unit(0, 1) }]);
    const r = index.search(unit(0, 1));
    expect(Array.from(r.indices)).toEqual([1, 0]);
    expect(r.similarities[0]).toBeCloseTo(1, 6);
    expect(r.similarities[1]).toBeCloseTo((0 + 0.8) / 2, 6); // passage (0.6, 0.8), the better of the two
    expect(r.bestDocument).toBeCloseTo(1, 6);
    const masked = index.search(unit(0, 1), Uint8Array.from([1, 0]));
    expect([Array.from(masked.indices), masked.bestDocument]).toEqual([[0], 0]);
  });
  test('rejects vectors of another dimension', () => {
    expect(() => new DenseIndex(3, [{ document: unit(1, 0) }])).toThrow(/2 dimensions, expected 3/);
  });
});

describe('lexicon', () => {
  test('synonyms of query terms that are not query terms themselves', () => {
    expect(expandTerms(['make', 'folder', 'report'])).toEqual(new Map([['create', ['make']], ['directory', ['folder']], ['dir', ['folder']]]));
    expect(expandTerms(['folder', 'directory'])).toEqual(new Map([['dir', ['folder', 'directory']]]));
    expect([...expandTerms(['toggle']).keys()]).toEqual(['enable', 'activate', 'disable', 'deactivate']);
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
  test('fusion gate: IDF-weighted coverage of the top BM25 hit; synonyms half; OOV literals not counted', () => {
    const idf: Record<string, number> = { fee: 2, due: 1, paris: 3, cs301: 3 };
    const vocabulary = { idf: (t: string) => idf[t]!, has: (t: string) => t === 'fee' || t === 'due' };
    const hits = [{ index: 0, score: 3, terms: ['fee'], viaSynonym: ['due'] }];
    expect(bm25Coverage(hits, ['fee', 'due', 'paris'], vocabulary)).toBeCloseTo((2 + 0.5 * 1) / 6, 12);
    expect(bm25Coverage(hits, ['fee', 'due', 'paris', 'cs301'], vocabulary, new Set(['cs301']))).toBeCloseTo(2.5 / 6, 12);
    expect(bm25Coverage(hits, ['fee', 'due'], vocabulary, new Set(['fee']))).toBeCloseTo(2.5 / 3, 12);
    expect(bm25Coverage([], ['fee'], vocabulary)).toBe(0);
  });
});
