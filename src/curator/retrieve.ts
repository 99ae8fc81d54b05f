/**
 * One retrieval pass for one query text: BM25, dense, or both fused (fusion.ts).
 * The curator runs it once for the whole query and once per part of a compound query.
 */
import type { CuratorMode } from './types.js';
import type { Bm25Hit, Bm25Index } from './bm25.js';
import type { DenseIndex, DenseRanking } from './dense.js';
import { bm25Coverage, fuse } from './fusion.js';
import { contentTerms, literalTerms } from './tokenize.js';

/** A ranking of allowed tools plus what each retriever said, for explanations. */
export interface Ranking {
  /** Catalog indices, best first. */
  order: number[];
  /** Score of each entry of `order`: fused score (hybrid), BM25 score or dense score. */
  scores: number[];
  bm25: Bm25Hit[];
  dense?: DenseRanking;
  /** BM25's share p of the fusion vote for this text (dense has 1 − p); 0 when the zero-score guard skipped it. */
  bm25Weight: number;
}

/** The retrievers of a built index. */
export interface Retrievers {
  bm25: Bm25Index;
  dense: DenseIndex | null;
}

/**
 * Ranks the allowed tools (`allowed[i] === 1`) for `text`. `mode` is the mode that can run
 * now: 'dense' and 'hybrid' need `vector` (the query embedding).
 */
export function retrieve(
  r: Retrievers,
  mode: Exclude<CuratorMode, 'none'>,
  text: string,
  vector: Float32Array | undefined,
  allowed: Uint8Array,
): Ranking {
  const bm25 = mode === 'dense' ? [] : r.bm25.query(text, allowed);
  const dense = vector && r.dense && mode !== 'bm25' ? r.dense.search(vector, allowed) : undefined;
  if (!dense) return { order: bm25.map((h) => h.index), scores: bm25.map((h) => h.score), bm25, bm25Weight: 1 };
  // Zero-score guard: no query term occurs in any allowed tool, so BM25 has no ranking.
  if (mode === 'dense' || bm25.length === 0) {
    return { order: Array.from(dense.indices), scores: Array.from(dense.similarities), bm25, dense, bm25Weight: 0 };
  }
  const weight = bm25Coverage(bm25, contentTerms(text), r.bm25, literalTerms(text));
  const fused = fuse(dense, bm25, weight);
  return { order: fused.map((f) => f.index), scores: fused.map((f) => f.score), bm25, dense, bm25Weight: weight };
}

/**
 * Score-gap confidence of a ranking, (s1 − s2) / s1 clamped to [0, 1]: 1 for a single
 * candidate, 0 for none or a non-positive top score. Near 0 means the top two are
 * interchangeable and a caller should widen the shortlist.
 */
export function scoreGap(scores: readonly number[]): number {
  const s1 = scores[0];
  if (s1 === undefined || s1 <= 0) return 0;
  const s2 = scores[1];
  if (s2 === undefined) return 1;
  return Math.min(1, Math.max(0, (s1 - s2) / s1));
}
