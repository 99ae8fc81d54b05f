/**
 * Reciprocal Rank Fusion (Cormack, Clarke & Büttcher, SIGIR 2009): a tool's fused score is
 * Σ wᵢ / (k + rankᵢ) over the lists that rank it in their top `depth`, ranks 1-based.
 * RRF uses ranks only, so BM25 scores (unbounded) and cosine similarities need no common
 * scale. With every weight 1 it is the paper's formula; weights below 1 let the fusion
 * gate (fusion.ts) give a retriever a partial vote.
 */

/** k = 60: the paper's value, chosen there on TREC runs and stable across collections. */
export const RRF_K = 60;
/** Only the top 50 of each list vote: deeper ranks of a weak list only add noise. */
export const RRF_DEPTH = 50;

/** A ranked list of catalog indices, best first, and its vote weight (≥ 0). */
export interface RankedList {
  indices: ArrayLike<number>;
  weight: number;
}

export interface Fused {
  index: number;
  score: number;
}

/**
 * Fuses ranked lists; result best first, ties in order of first appearance
 * (first list first).
 *
 * ### Usage
 * ```ts
 * rrf([{ indices: [7, 3], weight: 1 }, { indices: [3], weight: 1 }])
 * // [{ index: 3, score: 1/62 + 1/61 }, { index: 7, score: 1/61 }]
 * ```
 */
export function rrf(lists: readonly RankedList[], k = RRF_K, depth = RRF_DEPTH): Fused[] {
  const scores = new Map<number, number>();
  for (const { indices, weight } of lists) {
    const n = Math.min(depth, indices.length);
    for (let r = 0; r < n; r++) {
      const i = indices[r]!;
      scores.set(i, (scores.get(i) ?? 0) + weight / (k + r + 1));
    }
  }
  const fused: Fused[] = [];
  for (const [index, score] of scores) fused.push({ index, score });
  return fused.sort((a, b) => b.score - a.score);
}
