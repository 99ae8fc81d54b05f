/**
 * Explanations: for each shortlisted tool, how each retriever ranked it, its RRF score and
 * the fused score the ranking used, and which mechanism put it in. Built only when
 * `select(..., { explain: true })` asks.
 */
import type { Explanation } from './types.js';
import type { Ranking } from './retrieve.js';

/**
 * One Explanation per entry of `shortlist`, from the whole query's ranking. Ranks are
 * 1-based; a retriever's fields are absent when it did not rank the tool (BM25: no term
 * matched); `rrfScore` and `fusedScore` are present for every tool of the ranking (absent
 * only for a tool the ranking lacks, e.g. one BM25 alone did not match).
 */
export function explain(names: readonly string[], shortlist: readonly number[], addedBy: readonly string[], ranking: Ranking | undefined): Explanation[] {
  const denseAt = new Map<number, number>();
  ranking?.dense?.indices.forEach((index, r) => denseAt.set(index, r));
  const bm25At = new Map<number, number>();
  ranking?.bm25.forEach((h, r) => bm25At.set(h.index, r));
  const fusedAt = new Map<number, number>();
  ranking?.order.forEach((index, r) => fusedAt.set(index, r));

  return shortlist.map((index, k) => {
    const e: Explanation = { name: names[index]!, addedBy: addedBy[k]! };
    const d = denseAt.get(index);
    if (d !== undefined) {
      e.denseRank = d + 1;
      e.denseSimilarity = ranking!.dense!.similarities[d]!;
    }
    const b = bm25At.get(index);
    if (b !== undefined) {
      e.bm25Rank = b + 1;
      e.bm25Score = ranking!.bm25[b]!.score;
    }
    const learned = ranking?.learned?.best[index];
    if (learned !== undefined && learned > -Infinity) e.learnedSimilarity = learned;
    const f = fusedAt.get(index);
    if (f !== undefined) {
      e.rrfScore = ranking!.rrf[f]!;
      e.fusedScore = ranking!.fused[f]!;
    }
    return e;
  });
}
