/**
 * Hybrid fusion: one score per tool from the dense similarity and the BM25 score, with
 * BM25's vote gated per query by how much of the query it can account for.
 *
 * Why scores and not ranks (RRF): RRF with k = 60 keeps only ranks, and on a catalog of
 * tens of tools it flattens them: BM25's rank 1 at almost three times the score of its
 * rank 2 ("close grievance G-118" → resolve_grievance 130, next 49) counts barely more than
 * its rank 10. A convex combination of normalized scores keeps that margin (Bruch, Gai &
 * Ingber, "An Analysis of Fusion Functions for Hybrid Retrieval", ACM TOIS 2023, where it
 * beats RRF in and out of domain). On the development data (docs/CURATOR.md) it beat the
 * gated RRF on every set, including the one where BM25 is weakest.
 *
 * Why a gate: equal-weight fusion loses to dense retrieval alone where BM25 is weak
 * (BASELINES.md: metatool, api_bank). There the query shares only generic words with the
 * right tool's text, and BM25's ranking is driven by those words. Whether BM25 has real
 * evidence is visible per query, without labels: how much of the query its best match
 * accounts for.
 */
import type { Bm25Hit } from './bm25.js';
import type { DenseRanking } from './dense.js';
import { SYNONYM_WEIGHT } from './lexicon.js';

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

/** One fused entry: catalog index and score in [0, 1]. */
export interface Fused {
  index: number;
  score: number;
}

/**
 * Fuses a dense ranking (every allowed tool) and BM25 hits with BM25's share `p` of the
 * vote (in practice bm25Coverage):
 *
 *     score = (1 − p) · (sim − sim_min) / (sim_max − sim_min)  +  p · bm25 / bm25_max
 *
 * Each retriever is first scaled to [0, 1] over the allowed pool, so neither's units
 * matter. BM25's floor is its natural zero, "no term matched", which most tools score;
 * cosine similarity has no natural zero (unrelated text sits near 0.1 with USE Lite and
 * near 0.5 with bge), so the pool's own minimum is its floor.
 *
 * The split of the vote follows from what coverage measures: p is the share of the
 * query's information that BM25's best match accounts for; the rest, 1 − p, is what only
 * the dense retriever can supply. A query BM25 fully explains is ranked by BM25 (dense
 * order breaks its ties); one it barely touches is ranked by the dense retriever, with
 * BM25 nudging near-ties; in between, each weighs by its share. Giving dense a fixed full
 * vote instead let its near-misses crowd out BM25's exact matches on literal queries
 * (docs/CURATOR.md, "Fusion"). Best first; ties in dense order.
 *
 * ### Usage
 * ```ts
 * fuse({ indices: [4, 7, 1], similarities: [0.6, 0.5, 0.2], bestDocument: 0.6 },
 *      [{ index: 7, score: 12, terms: ['fee'], viaSynonym: [] }], 0.5)
 * // [{ index: 7, score: 0.5 · 0.75 + 0.5 }, { index: 4, score: 0.5 }, { index: 1, score: 0 }]
 * ```
 */
export function fuse(dense: DenseRanking, bm25: readonly Bm25Hit[], p: number): Fused[] {
  const n = dense.indices.length;
  if (n === 0) return [];
  const min = dense.similarities[n - 1]!;
  const span = dense.similarities[0]! - min;
  const lexical = new Map<number, number>();
  const top = bm25[0]?.score ?? 0;
  if (top > 0 && p > 0) for (const h of bm25) lexical.set(h.index, (p * h.score) / top);
  const fused: Fused[] = [];
  for (let r = 0; r < n; r++) {
    const index = dense.indices[r]!;
    const semantic = span > 0 ? (dense.similarities[r]! - min) / span : 1;
    fused.push({ index, score: (1 - p) * semantic + (lexical.get(index) ?? 0) });
  }
  return fused.sort((a, b) => b.score - a.score);
}
