/**
 * Reciprocal Rank Fusion (Cormack, Clarke & Büttcher, "Reciprocal Rank Fusion outperforms
 * Condorcet and individual Rank Learning Methods", SIGIR 2009): a tool's score is
 *
 *     Σ wᵢ / (k + rankᵢ)   over the lists that rank it in their top `depth` (ranks 1-based)
 *
 * RRF uses ranks only, so BM25 scores (unbounded) and cosine similarities need no common
 * scale. With every weight 1 it is the paper's formula; the curator's weights are the
 * fusion gate's shares (fusion.ts), so a retriever can get a partial vote.
 */

/** k = 60: the paper's value, chosen there on TREC runs and stable across collections. */
export const RRF_K = 60;
/** Only the top 50 of each list vote (the product spec): deeper ranks of a weak list only add noise. */
export const RRF_DEPTH = 50;

/** A ranked list of catalog indices, best first, and its vote weight (≥ 0). */
export interface RankedList {
  indices: ArrayLike<number>;
  weight: number;
}

/**
 * The RRF score of every tool that some list ranks in its top `depth`, as
 * catalog index → score. A tool no list ranks that high is absent (its score is 0).
 *
 * ### Usage
 * ```ts
 * rrfScores([{ indices: [7, 3], weight: 1 }, { indices: [3], weight: 0.5 }])
 * // Map { 7 => 1/61, 3 => 1/62 + 0.5/61 }
 * ```
 */
export function rrfScores(lists: readonly RankedList[], k = RRF_K, depth = RRF_DEPTH): Map<number, number> {
  const scores = new Map<number, number>();
  for (const { indices, weight } of lists) {
    const n = Math.min(depth, indices.length);
    for (let r = 0; r < n; r++) {
      const i = indices[r]!;
      scores.set(i, (scores.get(i) ?? 0) + weight / (k + r + 1));
    }
  }
  return scores;
}
