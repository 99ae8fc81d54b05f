import { describe, expect, test } from 'vitest';
import { gatewayConfigSchema } from '../../src/config/schema.js';
import { createCurator } from '../../src/curator/index.js';
import { LOW_CONFIDENCE } from '../../src/curator/expand.js';
import { bm25Share } from '../../src/curator/trust.js';
import { parseCommandLine } from '../../src/cli/parse.js';
import type { Fusion } from '../../src/curator/fusion.js';
import type { Mechanism } from '../../src/curator/types.js';
import { evalCommand, EvalUsageError } from '../../src/eval/command.js';
import { openDb } from '../../src/store/db.js';
import { EmbeddingStore } from '../../src/store/embeddings.js';
import { CAMPUS_TOOLS, fakeEmbedder, tool } from './fakeEmbedder.js';

const CATALOG = [
  ...CAMPUS_TOOLS,
  tool('get_my_profile', 'profile of the signed-in student'),
  tool('report_lost_item', 'report an item lost on campus'),
];
const names = (s: { tools: { name: string }[] }): string[] => s.tools.map((t) => t.name);

/**
 * A hybrid curator over CATALOG. `off`: mechanisms switched off. In this twelve-tool catalog
 * a word like "library" matches two tools far above the rest, so BM25's confident head
 * (lexical.ts) goes first; tests of the fusion's own order switch it off.
 */
async function hybrid(extra = {}, threshold?: number, off: Mechanism[] = []) {
  const embedder = fakeEmbedder();
  const curator = createCurator({ mode: 'hybrid', embedder, lowConfidenceThreshold: threshold, off });
  await curator.buildIndex(CATALOG, extra);
  return { curator, embedder };
}

describe('curator.select', () => {
  test('hybrid ranks by gated score fusion; explanations carry the RRF and the fused score', async () => {
    const { curator } = await hybrid({}, undefined, ['lexical-head']);
    const s = await curator.select('library books tonight', CATALOG, { topK: 4, explain: true });
    expect(s.mode).toBe('hybrid');
    expect(names(s).slice(0, 2)).toEqual(['search_library_catalog', 'borrow_book']);
    const [first, second] = s.explanations!;
    expect(first).toMatchObject({ name: 'search_library_catalog', denseRank: 1, bm25Rank: 2, addedBy: 'retrieval' });
    expect(second).toMatchObject({ name: 'borrow_book', denseRank: 2, bm25Rank: 1 });
    // Dense: (document + best passage) / 2. The query · "search library catalog. find books in
    // the library." = 3 / (√3 · √10); · the sentence "find books in the library" = 2 / (√3 · √5).
    expect(first!.denseSimilarity).toBeCloseTo((3 / Math.sqrt(30) + 2 / Math.sqrt(15)) / 2, 5);
    // BM25's coverage: its top hit (borrow_book) has "library" and "book" (2 of 12 tools each,
    // IDF ln 5.2) but not "tonight" (in no tool: ln 26); scaled by the catalog trust into p.
    const coverage = (2 * Math.log(5.2)) / (2 * Math.log(5.2) + Math.log(26));
    expect(curator.trust).toMatchObject({ probes: 12 });
    const p = bm25Share(coverage, curator.trust);
    // Score fusion: dense scaled by the pool's max (min 0: get_fee_dues shares no word), BM25 by its top score.
    expect(first!.fusedScore).toBeCloseTo((1 - p) + p * (first!.bm25Score! / second!.bm25Score!), 6);
    expect(second!.fusedScore).toBeCloseTo((1 - p) * (second!.denseSimilarity! / first!.denseSimilarity!) + p, 6);
    // RRF with the same weights: (1 − p) / (60 + dense rank) + p / (60 + BM25 rank).
    expect(first!.rrfScore).toBeCloseTo((1 - p) / 61 + p / 62, 12);
    expect(second!.rrfScore).toBeCloseTo((1 - p) / 62 + p / 61, 12);
    // Confidence: best fused score minus the 4th best (limit 4 less its reserve of 1, + 1).
    const wider = await curator.select('library books tonight', CATALOG, { topK: 8, explain: true });
    expect(s.confidence).toBeCloseTo(first!.fusedScore! - wider.explanations![3]!.fusedScore!, 12);
  });

  test('fusion rrf: the RRF score orders the list and is the fused score', async () => {
    const curator = createCurator({ mode: 'hybrid', fusion: 'rrf', embedder: fakeEmbedder() });
    await curator.buildIndex(CATALOG);
    const s = await curator.select('library books tonight', CATALOG, { topK: 3, explain: true });
    const p = bm25Share((2 * Math.log(5.2)) / (2 * Math.log(5.2) + Math.log(26)), curator.trust);
    // Dense ranks search_library_catalog 1st and borrow_book 2nd, BM25 the other way round;
    // ranks alone cannot see dense's wide margin, so with BM25's share over ½ RRF puts
    // borrow_book first where the score fusion (above) does not.
    expect(p).toBeGreaterThan(0.5);
    const [first, second] = s.explanations!;
    expect(first).toMatchObject({ name: 'borrow_book', denseRank: 2, bm25Rank: 1 });
    expect(second).toMatchObject({ name: 'search_library_catalog', denseRank: 1, bm25Rank: 2 });
    expect(first!.rrfScore).toBeCloseTo((1 - p) / 62 + p / 61, 12);
    expect(second!.rrfScore).toBeCloseTo((1 - p) / 61 + p / 62, 12);
    expect(s.explanations!.every((e) => e.fusedScore === e.rrfScore)).toBe(true);
  });

  test('bm25 and dense alone: RRF 1 / (60 + rank), fused = own score scaled to [0, 1]', async () => {
    const bm25 = createCurator({ mode: 'bm25', embedder: null });
    await bm25.buildIndex(CATALOG);
    const s = await bm25.select('library books', CATALOG, { topK: 2, explain: true });
    expect(s.explanations!.map((e) => [e.name, e.rrfScore])).toEqual([['borrow_book', 1 / 61], ['search_library_catalog', 1 / 62]]);
    expect(s.explanations![0]!.fusedScore).toBe(1);
    expect(s.explanations![1]!.fusedScore).toBeCloseTo(s.explanations![1]!.bm25Score! / s.explanations![0]!.bm25Score!, 12);
    expect(bm25.trust).toBeUndefined();
  });

  test("a pool within top_k is ranked all the same: the query's tool first, the rest after, nothing left out", async () => {
    const { curator } = await hybrid();
    const pool = CATALOG.slice(0, 3);
    const s = await curator.select('show my letter grades', pool, { topK: 5, explain: true });
    expect(names(s)[0]).toBe('get_grades');
    expect(names(s).sort()).toEqual(names({ tools: pool }).sort());
    expect([s.confidence, s.mode, s.cut]).toEqual([1, 'hybrid', undefined]); // nothing left out
    // The ranking's tools keep their reasons; a tool the ranking did not reach is there as one of the pool.
    expect(s.explanations!.map((e) => e.name)).toEqual(names(s));
    expect(s.explanations![0]!.addedBy).not.toBe('pool');
  });

  test('a pool within top_k still gets the no-match answer: read-only candidates, never its actions', async () => {
    const curator = createCurator({ mode: 'bm25', embedder: null });
    const pool = [tool('get_fee_dues', 'outstanding tuition fees owed'), { ...tool('make_payment', 'pay a fee by card'), isAction: true }, tool('get_grades', 'marks and letter grades per course')];
    await curator.buildIndex(pool);
    const off = await curator.select('book a flight to lisbon', pool, { topK: 10 });
    expect(off.noMatch).toBeDefined();
    expect(names(off)).not.toContain('make_payment');
    expect(off.tools.length).toBeLessThanOrEqual(3);
    // The same pool, a request it answers: every tool, the action included, the payment first.
    const on = await curator.select('pay my fee by card', pool, { topK: 10 });
    expect(on.noMatch).toBeUndefined();
    expect(names(on)[0]).toBe('make_payment');
    expect(on.tools).toHaveLength(3);
  });

  test('blank query returns the allowed pool up to the limit, the rest named in cut', async () => {
    const { curator } = await hybrid();
    const s = await curator.select('   ', CATALOG, { topK: 3, explain: true });
    expect(names(s)).toEqual(['get_fee_dues', 'make_payment', 'get_grades']);
    expect(s.cut).toEqual(CATALOG.slice(3).map((t) => t.name));
    expect(s.explanations![0]!.addedBy).toBe('blank');
  });

  test('pinned tools take no slot and are not returned', async () => {
    // Threshold 2: every ranking counts as flat, so the list fills the whole limit.
    const { curator } = await hybrid({ pinned: ['get_my_profile'] }, 2);
    const s = await curator.select('profile of the student', CATALOG, { topK: 3 });
    expect(names(s)).not.toContain('get_my_profile');
    expect(s.tools).toHaveLength(3);
    const all = await curator.select('', CATALOG, { topK: 20 });
    expect(all.tools).toHaveLength(11);
  });

  test('allowed restricts results to the allowed tools', async () => {
    const { curator } = await hybrid();
    const allowed = CATALOG.filter((t) => t.name !== 'search_library_catalog');
    expect(names(await curator.select('library books', allowed, { topK: 1 }))).toEqual(['borrow_book']);
  });

  test('dependency expansion: the workflow follows its tool, inside the limit', async () => {
    const { curator } = await hybrid({ dependencies: { get_exam_eligibility: ['get_attendance_summary', 'get_fee_dues'] } });
    const s = await curator.select('may I sit the exams', CATALOG, { topK: 3, explain: true });
    expect(names(s)).toEqual(['get_exam_eligibility', 'get_attendance_summary', 'get_fee_dues']);
    // BM25's confident head: only get_exam_eligibility has "sit" or "exams" (lexical.ts).
    expect(s.explanations!.map((e) => e.addedBy)).toEqual(['lexical-head', 'dependency', 'dependency']);
    // The retrieval results after the first made room for its workflow: cut, and said so.
    expect(s.cut!.length).toBeGreaterThanOrEqual(1);
    expect(s.cut).not.toContain('get_exam_eligibility');
    // A limit of 1 holds the tool alone; its workflow is cut.
    const one = await curator.select('may I sit the exams', CATALOG, { topK: 1 });
    expect([names(one), one.cut]).toEqual([['get_exam_eligibility'], ['get_attendance_summary', 'get_fee_dues']]);
  });

  test('the limit is a maximum: a confident ranking keeps back its reserve, a flat one (confidence under LOW_CONFIDENCE) uses it', async () => {
    const { curator } = await hybrid({}, undefined, ['lexical-head']);
    // Limit 9: reserve min(5, ⌊9 / 3⌋) = 3, so a confident list holds 6.
    const narrow = await curator.select('library books', CATALOG, { topK: 9, explain: true });
    const c = narrow.confidence;
    // The fake embedder's scores: confidence 0 < c < 1, here at or above the default 0.3.
    expect(c).toBeGreaterThanOrEqual(LOW_CONFIDENCE);
    expect(narrow.tools).toHaveLength(6);
    // Just above c: the same ranking, the 3 reserved slots filled, marked 'expansion'.
    const { curator: unsure } = await hybrid({}, c + 1e-9, ['lexical-head']);
    const wide = await unsure.select('library books', CATALOG, { topK: 9, explain: true });
    expect(wide.confidence).toBe(c);
    expect(names(wide).slice(0, 6)).toEqual(names(narrow));
    expect(wide.explanations!.map((e) => e.addedBy)).toEqual([...Array(6).fill('retrieval'), ...Array(3).fill('expansion')]);
    // At c itself: not under the threshold, no expansion.
    const { curator: edge } = await hybrid({}, c, ['lexical-head']);
    expect((await edge.select('library books', CATALOG, { topK: 9 })).tools).toHaveLength(6);
  });

  test('compound query: each part gets its budget, whole query tops up', async () => {
    const { curator } = await hybrid();
    const s = await curator.select('show my grades and then borrow a library book', CATALOG, { topK: 4, explain: true });
    // Part 1's best, part 2's best, then alternating; each part may bring
    // max(3 // 2 + 2, 7) = 7 tools, 9 distinct here (tools that share no word with a part
    // tie at dense 0 and come in catalog order for both); the limit 4 keeps the first 4.
    expect(names(s).slice(0, 2)).toEqual(['get_grades', 'borrow_book']);
    expect(s.tools).toHaveLength(4);
    expect(s.cut).toHaveLength(5);
  });

  test('name anchor forces a named tool into the shortlist', async () => {
    const { curator } = await hybrid();
    const s = await curator.select('lost item', CATALOG, { topK: 1, explain: true });
    expect(names(s)).toEqual(['report_lost_item']);
  });

  test('exemplars: passages of their tool, averaged with its document', async () => {
    const { curator } = await hybrid({ exemplars: { get_mess_menu: ['what is for dinner tonight'] } });
    const s = await curator.select('what is for dinner tonight', CATALOG, { topK: 1, explain: true });
    expect(s.explanations![0]).toMatchObject({ name: 'get_mess_menu', denseRank: 1 });
    // The document shares no word with the query (cosine 0), the exemplar is the query (1).
    expect(s.explanations![0]!.denseSimilarity).toBeCloseTo((0 + 1) / 2, 5);
  });

  test('zero-score guard: no BM25 match, dense alone decides', async () => {
    const { curator } = await hybrid();
    const s = await curator.select('tonight dinner', CATALOG, { topK: 2, explain: true });
    expect(s.mode).toBe('hybrid');
    expect(s.explanations!.every((e) => e.bm25Rank === undefined)).toBe(true);
  });
});

describe('fail-open', () => {
  test('embedder fails at buildIndex: BM25 alone, mode bm25', async () => {
    const embedder = fakeEmbedder();
    embedder.failDocuments = true;
    const curator = createCurator({ mode: 'hybrid', embedder });
    await curator.buildIndex(CATALOG);
    const s = await curator.select('library books', CATALOG, { topK: 2 });
    expect([s.mode, ...names(s)]).toEqual(['bm25', 'borrow_book', 'search_library_catalog']);
  });

  test('query embedding fails: BM25 alone for that query', async () => {
    const { curator, embedder } = await hybrid();
    embedder.failQueries = true;
    const s = await curator.select('library books', CATALOG, { topK: 2 });
    expect([s.mode, ...names(s)]).toEqual(['bm25', 'borrow_book', 'search_library_catalog']);
  });

  test('no index: the allowed pool', async () => {
    const curator = createCurator({ mode: 'hybrid', embedder: null });
    const s = await curator.select('library books', CATALOG, { topK: 2, explain: true });
    expect(names(s)).toEqual(['get_fee_dues', 'make_payment']);
    expect(s.cut).toHaveLength(10);
    expect([s.mode, s.explanations![0]!.addedBy]).toEqual(['none', 'fallback']);
  });

  test('mode none passes the pool through', async () => {
    const curator = createCurator({ mode: 'none', embedder: null });
    await curator.buildIndex(CATALOG);
    expect((await curator.select('library books', CATALOG, { topK: 2 })).tools).toHaveLength(12);
  });
});

describe('embedding cache', () => {
  test('only texts missing from the cache are embedded', async () => {
    const cache = new EmbeddingStore(openDb(':memory:'));
    const embedder = fakeEmbedder();
    await createCurator({ mode: 'dense', embedder, cache }).buildIndex(CATALOG.slice(0, 10));
    await createCurator({ mode: 'dense', embedder, cache }).buildIndex(CATALOG);
    // Three texts per tool: the document, the name phrase and the one description sentence.
    expect(embedder.documentCalls.map((c) => c.length)).toEqual([30, 6]);
  });
});

describe('config curator.fusion', () => {
  test('score by default, rrf selectable, anything else rejected', () => {
    const parse = (curator: object) => gatewayConfigSchema.safeParse({ upstreams: {}, curator });
    expect(parse({}).data?.curator.fusion).toBe('score');
    expect(parse({ fusion: 'rrf' }).data?.curator.fusion).toBe('rrf');
    expect(parse({ fusion: 'borda' }).success).toBe(false);
  });
  test('eval --fusion takes score or rrf only', async () => {
    expect(() => parseCommandLine(['eval', 'api_bank', '--fusion', 'borda'])).toThrow('eval: --fusion "borda" is not one of score, rrf');
    await expect(evalCommand('api_bank', { fusion: 'borda' as Fusion })).rejects.toThrow(EvalUsageError);
  });
});
