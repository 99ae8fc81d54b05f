/**
 * The BM25 index as it was before our own (src/curator/bm25.ts at 3bb0df8), on
 * minisearch 7.2: the oracle that bm25.test.ts compares the new index with, hit for hit
 * and bit for bit. Kept as it was, apart from the imports (the hit and field types are
 * the new module's) and the class name.
 */
import MiniSearch, { type QueryCombination } from 'minisearch';
import type { RetrievalFields } from '../../src/catalog/retrievalText.js';
import type { Bm25Hit, Field } from '../../src/curator/bm25.js';
import { expandTerms, SYNONYM_WEIGHT } from '../../src/curator/lexicon.js';
import { contentTerms, tokenize } from '../../src/curator/tokenize.js';

const FIELDS: readonly Field[] = ['name', 'description', 'parameters'];

/**
 * Field weights, all equal. Each field is scored by BM25 with its own length
 * normalization and document frequencies, so a word in a three-word name is not drowned
 * by a long description that mentions it in passing ("Only works within allowed
 * directories"); that separation is what the fields are for. Boosting names ×2 or
 * parameters ×½ changed nothing measurable on the development data, so no weight is
 * fitted.
 */
const FIELD_BOOST: Readonly<Record<Field, number>> = { name: 1, description: 1, parameters: 1 };

interface Doc extends RetrievalFields {
  id: number;
}

/** Sub-queries take terms as given: they are already tokenized. */
const AS_IS = { tokenize: (t: string): string[] => [t], processTerm: (t: string): string => t };

export class MinisearchBm25 {
  private readonly search: MiniSearch<Doc>;
  private readonly df = new Map<string, number>();
  private count = 0;

  /** Indexes `docs` (retrievalFields of each tool); a hit's `index` is the position in this array. */
  constructor(docs: readonly RetrievalFields[] = []) {
    this.search = new MiniSearch<Doc>({
      fields: [...FIELDS],
      tokenize,
      processTerm: (term) => term,
      searchOptions: { combineWith: 'OR', prefix: false, fuzzy: false, boost: { ...FIELD_BOOST } },
    });
    this.add(docs, 0);
  }

  /** Tools indexed. */
  get size(): number {
    return this.count;
  }

  /**
   * Adds `docs` as catalog indices `first`, `first + 1`, …: the next positions, so a
   * large catalog can be indexed chunk by chunk (build.ts) with the event loop served between.
   */
  add(docs: readonly RetrievalFields[], first: number): void {
    if (first !== this.count) throw new Error(`Bm25Index.add: documents must follow on; expected first index ${this.count}, got ${first}.`);
    this.search.addAll(docs.map((d, k) => ({ id: first + k, ...d })));
    for (const d of docs) {
      for (const term of new Set(FIELDS.flatMap((f) => tokenize(d[f])))) this.df.set(term, (this.df.get(term) ?? 0) + 1);
    }
    this.count += docs.length;
  }

  /**
   * Tools matching at least one content term of `text` or a synonym of one, best first;
   * only those with `allowed[index]` set when a mask is given. Empty when nothing matches
   * (the zero-score case), including a query of stopwords only. `fields` restricts the
   * match to some fields (each keeps its own BM25 statistics); default all three.
   */
  query(text: string, allowed?: Uint8Array, fields?: readonly Field[]): Bm25Hit[] {
    const terms = contentTerms(text);
    if (terms.length === 0) return [];
    const synonyms = expandTerms(terms);
    const queries: QueryCombination[] = [{ ...AS_IS, queries: terms }];
    if (synonyms.size > 0) queries.push({ ...AS_IS, queries: [...synonyms.keys()], boostTerm: () => SYNONYM_WEIGHT });
    const results = this.search.search({ combineWith: 'OR', queries }, {
      ...(allowed ? { filter: (r) => allowed[r.id] === 1 } : {}),
      ...(fields ? { fields: [...fields] } : {}),
    });
    return results.map((r) => {
      const matched = new Set(r.queryTerms);
      const direct = terms.filter((t) => matched.has(t));
      const viaSynonym = [...new Set([...synonyms].filter(([s]) => matched.has(s)).flatMap(([, from]) => from))].filter((t) => !direct.includes(t));
      return { index: r.id as number, score: r.score, terms: direct, viaSynonym };
    });
  }

  /** Whether any indexed tool's text contains `term` (tokenizer form). */
  has(term: string): boolean {
    return this.df.has(term);
  }

  /**
   * BM25 inverse document frequency of a term over whole tools, ln(1 + (N − df + 0.5) /
   * (df + 0.5)), the formula minisearch scores with; a term absent from the catalog gets
   * the largest value.
   */
  idf(term: string): number {
    const df = this.df.get(term) ?? 0;
    return Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
  }
}
