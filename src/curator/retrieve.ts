/**
 * One retrieval pass for one query text: BM25, dense, or both fused (fusion.ts).
 * The curator runs it once for the whole query and once per part of a compound query.
 */
import type { CuratorMode } from './types.js';
import type { Bm25Hit, Bm25Index } from './bm25.js';
import type { DenseIndex, DenseRanking } from './dense.js';
import type { LearnedPassages, LearnedTerms } from './learned.js';
import { bm25Coverage, fuse, type Fusion } from './fusion.js';
import { contentTerms, literalTerms } from './tokenize.js';
import { RRF_DEPTH } from './rrf.js';
import { SERVER_LIFT, type ServerMap } from './servers.js';
import { bm25Share, type CatalogTrust } from './trust.js';

/** A ranking of allowed tools plus what each retriever said, for explanations. */
export interface Ranking {
  /** Catalog indices, best first. */
  order: number[];
  /** Per entry of `order`: the score fusion's score in [0, 1] (fusion.ts; one retriever alone: its score scaled to [0, 1]). */
  score: number[];
  /** Per entry of `order`: the RRF score (one retriever alone: 1 / (60 + rank) in its top 50). */
  rrf: number[];
  /** Per entry of `order`: the score the order was sorted by (`rrf` under hybrid's fusion 'rrf', else `score`). */
  fused: number[];
  /** The highest score-fusion scores, best first (whichever fusion ordered `order`): shortlistConfidence reads them. */
  best: number[];
  bm25: Bm25Hit[];
  dense?: DenseRanking;
  /** BM25's IDF-weighted coverage of the query by its best hit, in [0, 1] (fusion.ts bm25Coverage); 0 when BM25 matched nothing. */
  coverage: number;
  /** The learned passages the dense stage scored (learned.ts), when the query's scope has any. */
  learned?: LearnedPassages;
}

/** The retrievers of a built index, and the catalog trust that scales their votes. */
export interface Retrievers {
  bm25: Bm25Index;
  dense: DenseIndex | null;
  trust?: CatalogTrust;
  /** The catalog's servers (servers.ts): hybrid lifts a tool by how much of the query its server covers. Absent for a one-server catalog or with the lift off. */
  servers?: ServerMap;
}

/**
 * Ranks the allowed tools (`allowed[i] === 1`) for each of `texts` (a query, or a compound
 * query and its parts; `vectors[k]` is the embedding of `texts[k]`). `mode` is the mode
 * that can run now: 'dense' and 'hybrid' need `vectors`. A single retriever's ranking is
 * its own order; its scores go through the same fusion with the whole vote, so every
 * ranking carries a score in [0, 1] and an RRF score. With a `depth`, `order` holds the
 * first `depth` tools only (exactly those of the full order; top-k selection instead of
 * sorting the whole pool), enough for a shortlist; without, every ranked tool
 * (explanations need every rank). The dense stage of all the texts is one pass over the
 * rows when it is exact (DenseIndex.searchMany): the same rankings as one text at a time.
 * `learned[k]`: the learned passages of the query's scope scored against `vectors[k]`
 * (learned.ts), passages of their tools in this ranking only; `terms`: the learned BM25
 * field of that scope, added to the catalog BM25's hits.
 */
export function retrieveAll(
  r: Retrievers,
  mode: Exclude<CuratorMode, 'none'>,
  texts: readonly string[],
  vectors: readonly Float32Array[] | undefined,
  allowed: Uint8Array,
  fusion: Fusion,
  depth = Infinity,
  learned: readonly (LearnedPassages | undefined)[] = [],
  terms?: { index: LearnedTerms; scope: string | undefined },
): Ranking[] {
  // RRF reads each list's top RRF_DEPTH. An approximate dense search scores BM25's best
  // too, so the fusion has both scores for every tool that can reach the head.
  const denseDepth = Math.max(depth, RRF_DEPTH);
  const denseIndex = vectors && mode !== 'bm25' ? r.dense : null;
  // BM25 hits past that depth count only where every allowed tool is fused (an exact dense
  // stage): BM25 alone, or beside an approximate search, needs its first denseDepth hits
  // (top-k selection; the same ranking as with every hit).
  const limit = Number.isFinite(depth) && (!denseIndex || denseIndex.approximate) ? denseDepth : undefined;
  const lexical = texts.map((text) => {
    if (mode === 'dense') return [];
    const hits = r.bm25.query(text, allowed, undefined, limit);
    return terms ? terms.index.merge(terms.scope, text, allowed, hits) : hits;
  });
  const dense = denseIndex ? denseIndex.searchMany(vectors!, allowed, denseDepth, lexical.map((hits) => bm25Heads(hits, denseDepth)), learned) : undefined;
  return texts.map((text, k) => {
    const bm25 = lexical[k]!;
    const d = dense?.[k];
    // BM25's share p of the vote (dense has 1 − p): its coverage scaled by the catalog trust; 1 when it runs alone.
    // Zero-score guard: no query term occurs in any allowed tool, so BM25 has no ranking.
    const coverage = bm25.length === 0 ? 0 : bm25Coverage(bm25, contentTerms(text), r.bm25, literalTerms(text));
    const p = d ? bm25Share(coverage, r.trust) : 1;
    // `fusion` is hybrid's choice; one retriever alone is ranked, and explained, by its own score.
    const used = mode === 'hybrid' ? fusion : 'score';
    const lift = d && mode === 'hybrid' && r.servers ? r.servers.lift(text, SERVER_LIFT) : undefined;
    const f = fuse(d, bm25, p, used, depth, lift);
    const passages = d ? learned[k] : undefined;
    return { order: f.order, score: f.score, rrf: f.rrf, fused: used === 'rrf' ? f.rrf : f.score, best: f.best, bm25, dense: d, coverage, ...(passages && { learned: passages }) };
  });
}

/** The catalog indices of BM25's first `depth` hits. */
function bm25Heads(hits: readonly Bm25Hit[], depth: number): Int32Array {
  const n = Math.min(hits.length, depth);
  const out = new Int32Array(n);
  for (let k = 0; k < n; k++) out[k] = hits[k]!.index;
  return out;
}

/**
 * Confidence of a ranking for a shortlist of `topK`, in [0, 1]: how far the best
 * candidate stands above the first one left out, on the score fusion's [0, 1] scale,
 *
 *     s(1) − s(topK + 1)        s(j) = the j-th highest score-fusion score, 0 past the ranking
 *
 * whichever fusion ordered the list. Near 0: the head of the ranking is flat and the tool
 * the user means may be just below the cut, so widen. 1: one tool is the clear best of
 * both retrievers and nothing outside the shortlist comes close. It is not the relative
 * gap of the top two, (s1 − s2) / s1, which says whether the first tool is right, not
 * whether the shortlist holds the right one; docs/CURATOR.md has the distribution of both
 * for Correct and missed shortlists of the university suite. 0 for an empty ranking.
 *
 * ### Usage
 * ```ts
 * shortlistConfidence([1, 0.9, 0.4, 0.2], 2)  // 1 − 0.4 = 0.6
 * ```
 */
export function shortlistConfidence(scores: readonly number[], topK: number): number {
  if (scores.length === 0) return 0;
  const sorted = [...scores].sort((a, b) => b - a);
  return Math.min(1, Math.max(0, sorted[0]! - (sorted[topK] ?? 0)));
}
