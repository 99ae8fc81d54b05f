/**
 * The fusion gate: how much of a vote BM25 gets in RRF for this query.
 *
 * Equal-weight RRF loses to dense retrieval alone where BM25 is weak (BASELINES.md:
 * metatool, api_bank): there the query shares only generic words with the right tool's
 * text, BM25's ranking is driven by those words, and its top ranks push the dense
 * retriever's right answer down. Whether BM25 has real evidence is visible per query,
 * without labels: how much of the query's information its best match accounts for.
 */
import type { Bm25Hit } from './bm25.js';

/**
 * IDF-weighted query-term coverage of BM25's best match, in [0, 1]:
 *   Σ idf(t) over the query's content terms that the top hit matched
 *   ─────────────────────────────────────────────────────────────────
 *   Σ idf(t) over all the query's content terms
 * Terms absent from the catalog count with the largest IDF: a query whose informative
 * words the catalog never uses gives BM25 little to go on, which is exactly when its
 * ranking is noise. 0 when nothing matched or the query has no content term.
 */
export function bm25Coverage(hits: readonly Bm25Hit[], queryTerms: readonly string[], idf: (term: string) => number): number {
  const top = hits[0];
  if (!top || queryTerms.length === 0) return 0;
  const matched = new Set(top.terms);
  let all = 0;
  let hit = 0;
  for (const t of queryTerms) {
    const w = idf(t);
    all += w;
    if (matched.has(t)) hit += w;
  }
  return all > 0 ? hit / all : 0;
}

/**
 * BM25's RRF weight for a query (dense always votes with weight 1): its coverage.
 * A query BM25 fully explains fuses as plain RRF; one where it matched a fifth of the
 * information gets a fifth of a vote, enough to break near-ties in the dense ranking but
 * not to overturn it.
 */
export function bm25Weight(hits: readonly Bm25Hit[], queryTerms: readonly string[], idf: (term: string) => number): number {
  return bm25Coverage(hits, queryTerms, idf);
}
