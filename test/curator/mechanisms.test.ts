import { describe, expect, test } from 'vitest';
import { NameAnchor, nameTokens } from '../../src/curator/anchor.js';
import { Bm25Index } from '../../src/curator/bm25.js';
import { DenseIndex } from '../../src/curator/dense.js';
import { LOW_CONFIDENCE } from '../../src/curator/expand.js';
import { bm25Coverage, fuse } from '../../src/curator/fusion.js';
import { expandTerms } from '../../src/curator/lexicon.js';
import { shortlistConfidence } from '../../src/curator/retrieve.js';
import { RRF_DEPTH, RRF_K, rrfScores } from '../../src/curator/rrf.js';
import { topK } from '../../src/curator/topk.js';
import type { DenseRanking } from '../../src/curator/dense.js';
import { bm25Share, MAX_PROBES, measureTrust, type ToolProbe } from '../../src/curator/trust.js';
import { assembleShortlist } from '../../src/curator/shortlist.js';
import { interleave, partBudget, splitQuery } from '../../src/curator/split.js';

const unit = (...xs: number[]): Float32Array => {
  const n = Math.hypot(...xs);
  return Float32Array.from(xs.map((x) => x / n));
};

describe('RRF (Cormack et al. 2009): Σ w / (k + rank), k = 60, top 50 of each list', () => {
  test('the paper\'s constants', () => {
    expect([RRF_K, RRF_DEPTH]).toEqual([60, 50]);
  });
  test('equal weights: 1/61 for a rank 1, summed over lists', () => {
    expect(rrfScores([{ indices: [7, 3], weight: 1 }, { indices: [3], weight: 1 }])).toEqual(new Map([[7, 1 / 61], [3, 1 / 62 + 1 / 61]]));
  });
  test('weights scale a list\'s votes; ranks past the depth do not vote', () => {
    const long = Array.from({ length: 60 }, (_, i) => 100 + i);
    const s = rrfScores([{ indices: long, weight: 0.25 }, { indices: [149, 150], weight: 0.75 }]);
    expect(s.get(100)).toBe(0.25 / 61);
    expect(s.get(149)).toBe(0.25 / 110 + 0.75 / 61); // rank 50: the last that votes
    expect(s.get(150)).toBe(0.75 / 62); // rank 51 in the long list: no vote there
    expect(s.has(151)).toBe(false);
    expect(rrfScores([{ indices: [5, 6], weight: 1 }], 1, 1)).toEqual(new Map([[5, 1 / 2]]));
  });
});

/** A DenseRanking of the listed tools (best first, as DenseIndex.search returns every allowed tool). */
function ranked(indices: number[], similarities: number[]): DenseRanking {
  const score = new Float32Array(Math.max(...indices) + 1);
  indices.forEach((i, r) => (score[i] = similarities[r]!));
  const sims = Float32Array.from(similarities);
  return { indices: Int32Array.from(indices), similarities: sims, pool: Int32Array.from([...indices].sort((a, b) => a - b)), score, min: Math.min(...sims), max: Math.max(...sims) };
}

describe('fusion: p = BM25\'s share, dense 1 − p; score and RRF', () => {
  const dense = ranked([4, 7, 1], [0.6, 0.5, 0.2]);
  const hit = (index: number, score: number) => ({ index, score, terms: [], viaSynonym: [] });
  // Similarities are float32: scaled values are exact to about 1e-7.
  const round = (xs: number[]) => xs.map((x) => Number(x.toFixed(6)));
  test('score: dense by (sim − min) / (max − min), BM25 by score / top score; RRF computed too', () => {
    const f = fuse(dense, [hit(7, 12), hit(1, 6)], 0.25, 'score');
    expect(f.order).toEqual([7, 4, 1]);
    expect(round(f.score)).toEqual(round([0.75 * 0.75 + 0.25, 0.75, 0.25 * 0.5]));
    expect(round(f.rrf)).toEqual(round([0.75 / 62 + 0.25 / 61, 0.75 / 61, 0.75 / 63 + 0.25 / 62]));
  });
  test('rrf: (1 − p) / (60 + dense rank) + p / (60 + BM25 rank) orders the list; the score is computed too', () => {
    const f = fuse(dense, [hit(7, 12), hit(1, 6)], 0.25, 'rrf');
    // 7: 0.75/62 + 0.25/61 = 0.016195; 1: 0.75/63 + 0.25/62 = 0.015937; 4: 0.75/61 = 0.012295
    expect(f.order).toEqual([7, 1, 4]);
    expect(round(f.rrf)).toEqual(round([0.75 / 62 + 0.25 / 61, 0.75 / 63 + 0.25 / 62, 0.75 / 61]));
    expect(round(f.score)).toEqual(round([0.8125, 0.125, 0.75]));
  });
  test('p = 1: BM25 decides; p = 0: dense decides; ties keep the dense order', () => {
    expect(fuse(dense, [hit(1, 6), hit(7, 6)], 1, 'score')).toEqual({ order: [7, 1, 4], score: [1, 1, 0], rrf: [1 / 62, 1 / 61, 0], best: [1, 1, 0] });
    const denseOnly = fuse(dense, [hit(1, 6)], 0, 'rrf');
    expect([denseOnly.order, round(denseOnly.score), denseOnly.rrf]).toEqual([[4, 7, 1], [1, 0.75, 0], [1 / 61, 1 / 62, 1 / 63]]);
    const flat = ranked([0, 2], [0.3, 0.3]);
    expect(fuse(flat, [], 0, 'score')).toEqual({ order: [0, 2], score: [1, 1], rrf: [1 / 61, 1 / 62], best: [1, 1] });
  });
  test('BM25 alone (no dense ranking): its order, scaled scores, 1 / (60 + rank)', () => {
    expect(fuse(undefined, [hit(3, 8), hit(9, 2)], 0, 'rrf')).toEqual({ order: [3, 9], score: [1, 0.25], rrf: [1 / 61, 1 / 62], best: [1, 0.25] });
  });
  test('with a depth: exactly the first `depth` of the full order, for both fusions, ties included', () => {
    // 2,000 tools, similarities on a coarse grid (many ties), BM25 hits on every 7th tool.
    const n = 2000;
    const sims = Array.from({ length: n }, (_, i) => Math.fround(((i * 7919) % 101) / 100));
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => sims[b]! - sims[a]! || a - b);
    const full = ranked(order, order.map((i) => sims[i]!));
    const hits = Array.from({ length: n / 7 }, (_, k) => hit(k * 7, 1 + ((k * 31) % 13))).sort((a, b) => b.score - a.score);
    for (const fusion of ['score', 'rrf'] as const) {
      const all = fuse(full, hits, 0.4, fusion);
      const head = fuse(full, hits, 0.4, fusion, 110);
      expect(head.order).toEqual(all.order.slice(0, 110));
      expect(head.best).toEqual([...all.score].sort((a, b) => b - a).slice(0, 110));
    }
  });
  test('topK: the first k of the sorted order, ties broken by the order given', () => {
    const score = [0.2, 0.9, 0.5, 0.9, 0.1];
    const before = (a: number, b: number): boolean => score[a]! > score[b]! || (score[a] === score[b] && a < b);
    expect(topK([0, 1, 2, 3, 4], 2, before)).toEqual([1, 3]);
    expect(topK([0, 1, 2, 3, 4], 3, before)).toEqual([1, 3, 2]);
    expect(topK([4, 3, 2, 1, 0], 9, before)).toEqual([1, 3, 2, 0, 4]);
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
  test('a tool scores (document + best passage) / 2', () => {
    const index = new DenseIndex(2, [{ document: unit(1, 0), passages: [unit(0.6, 0.8), unit(1, 1)] }, { document: unit(0, 1) }]);
    const r = index.search(unit(0, 1));
    expect(Array.from(r.indices)).toEqual([1, 0]);
    expect(r.similarities[0]).toBeCloseTo(1, 6);
    expect(r.similarities[1]).toBeCloseTo((0 + 0.8) / 2, 6); // passage (0.6, 0.8), the better of the two
    const masked = index.search(unit(0, 1), Uint8Array.from([1, 0]));
    expect(Array.from(masked.indices)).toEqual([0]);
    expect(masked.similarities[0]).toBeCloseTo((0 + 0.8) / 2, 6);
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
  test('low-confidence cut: one value on the confidence scale, from the university suite', () => {
    expect(LOW_CONFIDENCE).toBe(0.3);
  });
  test('confidence: best score-fusion score minus the (topK + 1)-th, in [0, 1]', () => {
    expect(shortlistConfidence([1, 0.9, 0.4, 0.2], 2)).toBeCloseTo(0.6, 12);
    expect(shortlistConfidence([0.4, 1, 0.2, 0.9], 2)).toBeCloseTo(0.6, 12); // any order (an RRF ranking)
    expect(shortlistConfidence([0.8], 3)).toBe(0.8); // past the ranking a tool scores 0
    expect(shortlistConfidence([0.5, 0.5, 0.5], 1)).toBe(0);
    expect(shortlistConfidence([], 3)).toBe(0);
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

describe('catalog trust: self-retrieval of names and descriptions', () => {
  const unit = (...xs: number[]): Float32Array => Float32Array.from(xs.map((x) => x / Math.hypot(...xs)));
  // Two look-alike tools (3, 4) share their description and their name vector.
  const texts = [
    ['pay fees', 'Pay fees by card'],
    ['fee dues', 'Outstanding balance owed'],
    ['borrow book', 'Check out a library book'],
    ['playwright click', 'Click an element on the page'],
    ['puppeteer click', 'Click an element on the page'],
  ] as const;
  const names = [unit(1, 0, 0), unit(0, 1, 0), unit(0, 0, 1), unit(0, 1, 1), unit(0, 1, 1)];
  const sentences = [unit(1, 0, 0), unit(1, 2, 0), unit(0, 0, 1), unit(0, 1, 1), unit(0, 1, 1)];
  const probes: ToolProbe[] = texts.map(([name, sentence], i) => ({
    name: { text: name, vector: names[i]! },
    sentence: { text: sentence, vector: sentences[i]! },
    description: [sentences[i]!],
  }));
  const bm25 = new Bm25Index(texts.map(([name, description]) => ({ name, description, parameters: '' })));

  test('mean reciprocal rank over both probes, ties against, no BM25 match 0', async () => {
    // Dense, name → descriptions: 1, 1, 1, ½, ½ (the twins tie); sentence → names: the same.
    // BM25, name → descriptions (description field only): 1; 0 ("fee dues" matches only
    // tool 0's "fees", never tool 1); 1; ½, ½. Sentence → names (name field only): 1 ("pay"
    // and "fee" beat "fee" alone); 0 (no name word); 1; ½, ½.
    const t = (await measureTrust(probes, bm25, 3))!;
    expect(t.probes).toBe(5);
    expect(t.dense).toBeCloseTo(0.8, 6);
    expect(t.bm25).toBeCloseTo(0.6, 12);
  });
  test('fewer than 5 probed tools: no trust; a tool without a name or sentence is not probed', async () => {
    expect(await measureTrust(probes.slice(0, 4), bm25, 3)).toBeUndefined();
    expect(await measureTrust([...probes.slice(0, 4), { description: [] }], bm25, 3)).toBeUndefined();
  });
  test('a catalog larger than MAX_PROBES is measured on an evenly spaced sample of that many tools', async () => {
    // 600 distinct tools: one-hot vectors and a word of their own, so both retrievers find every probed tool first.
    const n = 600;
    const word = (k: number): string => `w${String.fromCharCode(97 + (k % 26), 97 + (Math.floor(k / 26) % 26))}x`;
    const oneHot = (k: number): Float32Array => Float32Array.from({ length: n }, (_, j) => (j === k ? 1 : 0));
    const many: ToolProbe[] = Array.from({ length: n }, (_, k) => ({
      name: { text: `tool ${word(k)}`, vector: oneHot(k) },
      sentence: { text: `Handles ${word(k)} records`, vector: oneHot(k) },
      description: [oneHot(k)],
    }));
    const index = new Bm25Index(many.map((t) => ({ name: t.name!.text, description: t.sentence!.text, parameters: '' })));
    const t = (await measureTrust(many, index, n))!;
    expect(t.probes).toBe(MAX_PROBES);
    expect(t.dense).toBe(1);
    expect(t.bm25).toBe(1);
  });
  test('BM25\'s share: the odds p : (1 − p) scaled by r_bm25 : r_dense', () => {
    const trust = { dense: 0.8, bm25: 0.6, probes: 5 };
    expect(bm25Share(0.5, trust)).toBeCloseTo(0.3 / 0.7, 12);
    expect(bm25Share(0.9, trust)).toBeCloseTo(0.54 / (0.54 + 0.08), 12);
    expect([bm25Share(0, trust), bm25Share(1, trust), bm25Share(0.3, undefined)]).toEqual([0, 1, 0.3]);
  });
});
