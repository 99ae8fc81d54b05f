/**
 * Sparse retrieval: BM25+ (Lv & Zhai, CIKM 2011) over the tools' retrieval texts, with
 * minisearch's defaults k1 = 1.2, b = 0.7, δ = 0.5 and the curator's Unicode tokenizer.
 * Exact term match only: no prefix or fuzzy expansion, which would let `get` match
 * `getaway` in a catalog where every other tool starts with `get`.
 */
import MiniSearch from 'minisearch';
import { tokenize } from './tokenize.js';

/** One BM25 match: catalog index, score (> 0, unbounded) and the query terms it matched. */
export interface Bm25Hit {
  index: number;
  score: number;
  terms: string[];
}

interface Doc {
  id: number;
  text: string;
}

export class Bm25Index {
  private readonly search: MiniSearch<Doc>;
  private readonly df = new Map<string, number>();
  readonly size: number;

  /** Indexes `texts`; a hit's `index` is the position in this array. */
  constructor(texts: readonly string[]) {
    this.size = texts.length;
    this.search = new MiniSearch<Doc>({
      fields: ['text'],
      tokenize,
      processTerm: (term) => term,
      searchOptions: { tokenize, processTerm: (term) => term, combineWith: 'OR', prefix: false, fuzzy: false },
    });
    this.search.addAll(texts.map((text, id) => ({ id, text })));
    for (const text of texts) {
      for (const term of new Set(tokenize(text))) this.df.set(term, (this.df.get(term) ?? 0) + 1);
    }
  }

  /**
   * Tools matching at least one query term, best first; only those with `allowed[index]`
   * set when a mask is given. Empty when no term matches (the zero-score case).
   */
  query(text: string, allowed?: Uint8Array): Bm25Hit[] {
    const results = this.search.search(text, allowed ? { filter: (r) => allowed[r.id] === 1 } : undefined);
    return results.map((r) => ({ index: r.id as number, score: r.score, terms: r.queryTerms }));
  }

  /**
   * BM25 inverse document frequency of a term, ln(1 + (N − df + 0.5) / (df + 0.5)), the
   * formula minisearch scores with; a term absent from the catalog gets the largest value.
   */
  idf(term: string): number {
    const df = this.df.get(term) ?? 0;
    return Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
  }
}
