/**
 * Hybrid fusion: one ranking from the dense similarities and the BM25 scores, with BM25's
 * vote gated per query by how much of the query it can account for, and scaled per
 * catalog by how reliably each retriever finds a tool there (trust.ts).
 *
 * Two fusion functions, selectable (`createCurator({ fusion })`, config `curator.fusion`):
 * - 'score' (default): a convex combination of the two scores, each scaled to [0, 1] over
 *   the allowed pool (Bruch, Gai & Ingber, "An Analysis of Fusion Functions for Hybrid
 *   Retrieval", ACM TOIS 2023). It keeps margins: BM25's rank 1 at three times the score
 *   of its rank 2 ("close grievance G-118" → resolve_grievance 130, next 49) stays far
 *   ahead, where RRF counts it barely more than its rank 10.
 * - 'rrf': Reciprocal Rank Fusion, k = 60 over the top 50 of each list (rrf.ts), the
 *   product spec's fusion, with the same gated weights.
 * Both are computed for every query (the RRF score is a few additions), so explanations
 * carry both whichever one ranked; docs/CURATOR.md compares them.
 *
 * Why a gate: equal-weight fusion loses to dense retrieval alone where BM25 is weak
 * (BASELINES.md: metatool, api_bank). There the query shares only generic words with the
 * right tool's text, and BM25's ranking is driven by those words. Whether BM25 has real
 * evidence is visible per query, without labels: how much of the query its best match
 * accounts for.
 */
import type { Bm25Hit } from './bm25.js';
import type { DenseRanking } from './dense.js';
import { rrfScores } from './rrf.js';
import { SYNONYM_WEIGHT } from './lexicon.js';
import { topK } from './topk.js';

/** What the gate needs to know about the catalog's vocabulary. */
export interface Vocabulary {
  /** BM25 IDF of a term (the largest value for a term no tool contains). */
  idf(term: string): number;
  /** Whether any tool's text contains the term. */
  has(term: string): boolean;
}

/**
 * IDF-weighted query-term coverage of BM25's best match, in [0, 1]:
 *   Σ credit(t) · idf(t) over the query's counted content terms
 *   ───────────────────────────────────────────────────────────
 *   Σ idf(t) over the query's counted content terms
 * credit is 1 for a term the top hit contains, SYNONYM_WEIGHT (½) for one it only has a
 * synonym of (lexicon.ts), 0 otherwise. Terms absent from the catalog count with the
 * largest IDF: a query whose informative words the catalog never uses gives BM25 little
 * to go on, which is exactly when its ranking is noise. Except argument values
 * (`literals`: IDs, numbers, file names, names; tokenize.ts literalTerms) absent from the
 * catalog: no tool could contain them, so they are not counted at all. 0 when nothing
 * matched or no term is counted.
 */
export function bm25Coverage(hits: readonly Bm25Hit[], queryTerms: readonly string[], vocabulary: Vocabulary, literals: ReadonlySet<string> = new Set()): number {
  const top = hits[0];
  if (!top) return 0;
  const direct = new Set(top.terms);
  const viaSynonym = new Set(top.viaSynonym);
  let all = 0;
  let hit = 0;
  for (const t of queryTerms) {
    if (literals.has(t) && !vocabulary.has(t)) continue;
    const w = vocabulary.idf(t);
    all += w;
    if (direct.has(t)) hit += w;
    else if (viaSynonym.has(t)) hit += SYNONYM_WEIGHT * w;
  }
  return all > 0 ? hit / all : 0;
}

/** The fusion functions that can order a hybrid ranking. */
export const FUSIONS = ['score', 'rrf'] as const;
export type Fusion = (typeof FUSIONS)[number];
/**
 * 'score': on the university suite it is Correct on more cases end to end than RRF with
 * the same gate (docs/CURATOR.md, "Fusion"), and it beat RRF on every development set.
 */
export const DEFAULT_FUSION: Fusion = 'score';

/** A ranking of allowed tools and, per entry, each fusion's score. */
export interface FusedRanking {
  /** Catalog indices, best first by the chosen fusion; ties keep the dense order. */
  order: number[];
  /** Score fusion, in [0, 1]: (1 − p) · dense + p · BM25, each scaled to [0, 1] over the pool. */
  score: number[];
  /** RRF score: (1 − p) / (60 + dense rank) + p / (60 + BM25 rank), a list's term 0 beyond its top 50. */
  rrf: number[];
  /** The highest score-fusion scores, best first, as many as `order` holds (whichever fusion ordered it): what the confidence reads. */
  best: number[];
}

/**
 * Fuses a dense ranking (every allowed tool; undefined when only BM25 ran) and BM25 hits,
 * BM25 getting the share `p` of the vote and dense 1 − p (in practice bm25Coverage, scaled
 * by the catalog's reliabilities in trust.ts):
 *
 *     score = (1 − p) · (sim − sim_min) / (sim_max − sim_min)  +  p · bm25 / bm25_max
 *     rrf   = (1 − p) / (60 + dense rank)  +  p / (60 + BM25 rank)      (top 50 of each)
 *
 * `fusion` picks which one orders the result. For the score, each retriever is first
 * scaled to [0, 1] over the allowed pool, so neither's units matter. BM25's floor is its
 * natural zero, "no term matched", which most tools score; cosine similarity has no
 * natural zero (unrelated text sits near 0.1 with USE Lite and near 0.5 with bge), so the
 * pool's own minimum is its floor.
 *
 * The split of the vote follows from what coverage measures: p is the share of the
 * query's information that BM25's best match accounts for; the rest, 1 − p, is what only
 * the dense retriever can supply. A query BM25 fully explains is ranked by BM25 (dense
 * order breaks its ties); one it barely touches is ranked by the dense retriever, with
 * BM25 nudging near-ties. Giving dense a fixed full vote instead let its near-misses crowd
 * out BM25's exact matches on literal queries (docs/CURATOR.md, "Fusion").
 *
 * Without a dense ranking the result is BM25's order (p is taken as 1); without BM25 hits,
 * the dense order. With a `depth`, only the first `depth` of the order are returned (top-k
 * selection over the whole pool, exactly the full order's first `depth`); default all.
 * `lift` (per catalog index, servers.ts) is added to each tool's score-fusion score.
 *
 * ### Usage
 * ```ts
 * fuse({ indices: Int32Array.from([4, 7, 1]), similarities: Float32Array.from([0.6, 0.5, 0.2]) },
 *      [{ index: 7, score: 12, terms: ['fee'], viaSynonym: [] }], 0.5, 'score')
 * // { order: [7, 4, 1], score: [0.5 · 0.75 + 0.5, 0.5, 0], rrf: [0.5/62 + 0.5/61, 0.5/61, 0.5/63] }
 * ```
 */
export function fuse(dense: DenseRanking | undefined, bm25: readonly Bm25Hit[], p: number, fusion: Fusion, depth = Infinity, lift?: (index: number) => number): FusedRanking {
  const share = dense ? Math.min(1, Math.max(0, p)) : 1;
  const lexical = new Map<number, number>();
  const top = bm25[0]?.score ?? 0;
  if (top > 0) for (const h of bm25) lexical.set(h.index, h.score / top);
  const rrfByTool = rrfScores([
    { indices: dense?.indices ?? [], weight: 1 - share },
    { indices: Int32Array.from(bm25, (h) => h.index), weight: share },
  ]);
  // Items are positions in `base`: the allowed pool (catalog order) with a dense ranking, BM25's order without one.
  const base: ArrayLike<number> = dense ? dense.pool : Int32Array.from(bm25, (h) => h.index);
  const n = base.length;
  const span = dense ? dense.max - dense.min : 0;
  const score = new Float64Array(n);
  const rrf = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const index = base[k]!;
    const semantic = dense ? (span > 0 ? (dense.score[index]! - dense.min) / span : 1) : 0;
    score[k] = (1 - share) * semantic + share * (lexical.get(index) ?? 0) + (lift ? lift(index) : 0);
    rrf[k] = rrfByTool.get(index) ?? 0;
  }
  // Ties keep the dense order (score desc, then catalog order), or BM25's order without dense.
  const tie = dense
    ? (a: number, b: number): boolean => {
        const sa = dense.score[base[a]!]!;
        const sb = dense.score[base[b]!]!;
        return sa > sb || (sa === sb && base[a]! < base[b]!);
      }
    : (a: number, b: number): boolean => a < b;
  const by = (key: Float64Array) => (a: number, b: number): boolean => key[a]! > key[b]! || (key[a] === key[b] && tie(a, b));
  const positions = Int32Array.from({ length: n }, (_, k) => k);
  const order = topK(positions, depth, by(fusion === 'rrf' ? rrf : score));
  const best = fusion === 'rrf' ? topK(positions, depth, by(score)) : order;
  return {
    order: order.map((k) => base[k]!),
    score: order.map((k) => score[k]!),
    rrf: order.map((k) => rrf[k]!),
    best: best.map((k) => score[k]!),
  };
}
