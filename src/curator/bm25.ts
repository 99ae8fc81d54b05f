/**
 * Sparse retrieval: BM25+ (Lv & Zhai, CIKM 2011) over the tools' retrieval texts, with
 * minisearch's defaults k1 = 1.2, b = 0.7, δ = 0.5 (postings.ts) and the curator's
 * Unicode tokenizer. Exact term match only: no prefix or fuzzy expansion, which would let
 * `get` match `getaway` in a catalog where every other tool starts with `get`.
 *
 * A query is its content terms (stopwords removed) plus their synonyms from the general
 * lexicon (lexicon.ts) at half weight.
 *
 * The index is our own (typed-array postings per field, postings.ts) but scores exactly
 * as minisearch 7.2 did with this configuration (without spelling correction, which
 * minisearch lacks: `{ spelling: false }`), to the last bit and in the same order,
 * ties included (test/curator/bm25.test.ts compares the two): each field is scored with
 * its own statistics and the fields' scores summed in order; a query's terms are summed
 * left to right, then its synonyms' total added; the sum is multiplied by the number of
 * distinct terms and synonyms matched; equal scores keep the order in which the tools
 * were first matched (terms, then fields, then catalog order).
 */
import type { RetrievalFields } from '../catalog/retrievalText.js';
import { expandTerms, SYNONYM_WEIGHT } from './lexicon.js';
import { QueryScratch } from './bm25Scratch.js';
import { FieldPostings, withRoom } from './postings.js';
import { contentTerms, literalTerms, tokenize, WORD } from './tokenize.js';
import { CORRECTION_WEIGHT, TermCorrector } from './typos.js';
import { topK } from './topk.js';

/** One BM25 match: catalog index, score (> 0, unbounded) and the query terms it matched. */
export interface Bm25Hit {
  index: number;
  score: number;
  /** Query content terms the tool's text contains. */
  terms: string[];
  /** Query content terms the tool's text lacks but has a synonym or a spelling correction (typos.ts) of. */
  viaSynonym: string[];
}

export type Field = keyof RetrievalFields;
/**
 * The fields, scored alike. Each field is scored by BM25 with its own length
 * normalization and document frequencies, so a word in a three-word name is not drowned
 * by a long description that mentions it in passing ("Only works within allowed
 * directories"); that separation is what the fields are for. Boosting names ×2 or
 * parameters ×½ changed nothing measurable on the development data, so no field weight
 * is fitted.
 */
const FIELDS: readonly Field[] = ['name', 'description', 'parameters'];

export class Bm25Index {
  /** Term (tokenizer form) → term id, over every field. */
  private readonly termIds = new Map<string, number>();
  /** Tools whose text (any field) contains term t. */
  private df = new Int32Array(0);
  /** 1 + the last tool counted in df[t]. */
  private lastDoc = new Int32Array(0);
  /** Occurrences of term t in the field being added; 0 outside add(). */
  private tf = new Int32Array(0);
  private readonly postings = FIELDS.map(() => new FieldPostings());
  private count = 0;
  private sealed = true;
  private scratch = new QueryScratch(0);
  /** Spelling corrector over the vocabulary, made on the first query with an unknown term. */
  private corrector: TermCorrector | undefined;

  /** Whether query terms the catalog lacks are spelling-corrected (typos.ts). */
  private readonly spelling: boolean;

  /**
   * Indexes `docs` (retrievalFields of each tool); a hit's `index` is the position in this array.
   * @param options.spelling correct query terms the catalog lacks (typos.ts); default true. false: plain BM25+, exactly minisearch's.
   */
  constructor(docs: readonly RetrievalFields[] = [], options: { spelling?: boolean } = {}) {
    this.spelling = options.spelling ?? true;
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
    let distinct = new Int32Array(64);
    for (let k = 0; k < docs.length; k++) {
      const doc = first + k;
      for (let f = 0; f < FIELDS.length; f++) {
        const tokens = tokenize(docs[k]![FIELDS[f]!]);
        let n = 0;
        distinct = withRoom(distinct, tokens.length);
        for (const token of tokens) {
          const t = this.termId(token);
          if (this.tf[t]!++ === 0) distinct[n++] = t;
        }
        const field = this.postings[f]!;
        field.addLength(doc, n);
        for (let i = 0; i < n; i++) {
          const t = distinct[i]!;
          field.addPosting(t, doc, this.tf[t]!);
          this.tf[t] = 0;
          if (this.lastDoc[t] !== doc + 1) {
            this.lastDoc[t] = doc + 1;
            this.df[t]!++;
          }
        }
      }
    }
    this.count += docs.length;
    if (docs.length > 0) {
      this.sealed = false;
      this.corrector = undefined;
    }
  }

  /**
   * Tools matching at least one content term of `text` or a synonym of one, best first;
   * only those with `allowed[index]` set when a mask is given (the mask filters, it does
   * not change scores). Empty when nothing matches (the zero-score case), including a
   * query of stopwords only. `fields` restricts the match to some fields (each keeps its
   * own BM25 statistics); default all three. `limit` (a positive integer) returns only
   * the first `limit` hits of that order, selected without sorting the rest; default all.
   *
   * ### Usage
   * ```ts
   * const index = new Bm25Index([
   *   { name: 'list directory', description: 'List the files of a folder.', parameters: 'path' },
   *   { name: 'read file', description: 'Read a file.', parameters: 'path' },
   * ]);
   * index.query('make a dir')  // [{ index: 0, score: 2.00…, terms: [], viaSynonym: ['dir'] }]
   * index.query('files in a folder', undefined, undefined, 1)  // [{ index: 0, score: 5.20…, terms: ['file', 'folder'], viaSynonym: [] }]
   * ```
   */
  query(text: string, allowed?: Uint8Array, fields?: readonly Field[], limit?: number): Bm25Hit[] {
    const terms = contentTerms(text);
    if (terms.length === 0) return [];
    const synonyms = expandTerms(terms);
    const corrections = this.corrections(terms, synonyms, text);
    // Distinct strings: contentTerms() drops repeats, expandTerms() the query's own terms, corrections() both.
    const sources = [...terms, ...synonyms.keys(), ...corrections.keys()];
    const firstCorrection = terms.length + synonyms.size;
    this.seal();
    const s = this.scratch;
    const searched = [...new Set(fields ?? FIELDS)].map((f) => this.postings[FIELDS.indexOf(f)]!);
    for (let j = 0; j < sources.length; j++) {
      const t = this.termIds.get(sources[j]!);
      const weight = j < terms.length ? 1 : j < firstCorrection ? SYNONYM_WEIGHT : CORRECTION_WEIGHT;
      if (t !== undefined) this.scoreTerm(t, j, j < terms.length ? s.direct : s.synonym, weight, searched);
    }
    const out = this.rank(allowed, limit).map((i): Bm25Hit => {
      const doc = s.hitDocs[i]!;
      const { direct, viaSynonym } = s.reportOnce(doc, (matched) => {
        const direct = matched.filter((j) => j < terms.length).map((j) => terms[j]!);
        const via = matched.filter((j) => j >= terms.length).flatMap((j) => synonyms.get(sources[j]!) ?? corrections.get(sources[j]!)!);
        return { direct, viaSynonym: [...new Set(via)].filter((t) => !direct.includes(t)) };
      });
      return { index: doc, score: s.hitScores[i]!, terms: direct.slice(), viaSynonym: viaSynonym.slice() };
    });
    s.clear();
    return out;
  }

  /**
   * Spelling corrections of the query terms the catalog lacks (typos.ts), as catalog term →
   * the query terms it corrects; none for a term a lexicon synonym already matches, for an
   * argument value (tokenize.ts literalTerms: IDs, names) or for a term that is itself a
   * query term or synonym. `sure` keeps only single-candidate corrections one edit away
   * (what correctedText hands the dense retriever).
   */
  private corrections(terms: readonly string[], synonyms: ReadonlyMap<string, readonly string[]>, text: string, sure = false): Map<string, string[]> {
    const out = new Map<string, string[]>();
    if (!this.spelling) return out;
    const unknown = terms.filter((t) => !this.termIds.has(t));
    if (unknown.length === 0) return out;
    const stood = new Set([...synonyms].filter(([syn]) => this.termIds.has(syn)).flatMap(([, from]) => from));
    const literals = literalTerms(text);
    this.corrector ??= new TermCorrector(this.termIds.keys());
    for (const t of unknown) {
      if (stood.has(t) || literals.has(t)) continue;
      const found = this.corrector.correct(t);
      if (!found || (sure && (found.distance > 1 || found.terms.length > 1))) continue;
      for (const c of found.terms) {
        if (terms.includes(c) || synonyms.has(c)) continue;
        const from = out.get(c);
        if (from) from.push(t);
        else out.set(c, [t]);
      }
    }
    return out;
  }

  /**
   * `text` with each misspelled word replaced by its correction, where the correction is
   * sure (one edit away, the only catalog term that close); undefined when no word is.
   * The dense retriever embeds this instead of the misspelled text: a sentence encoder's
   * subword pieces of "sned an emial" say little, and it has no weight to give a guess,
   * so it gets only the sure ones (BM25 scores every correction, at CORRECTION_WEIGHT).
   *
   * ### Usage
   * ```ts
   * index.correctedText('sned an emial to Bo')  // 'send an email to Bo' (catalog with send_email)
   * ```
   */
  correctedText(text: string): string | undefined {
    const terms = contentTerms(text);
    const corrections = this.corrections(terms, expandTerms(terms), text, true);
    if (corrections.size === 0) return undefined;
    const fix = new Map<string, string>();
    for (const [correction, from] of corrections) for (const t of from) fix.set(t, correction);
    return text.replace(WORD, (word) => {
      const [term, ...more] = tokenize(word);
      return term !== undefined && more.length === 0 ? (fix.get(term) ?? word) : word;
    });
  }

  /** Whether any indexed tool's text contains `term` (tokenizer form). */
  has(term: string): boolean {
    return this.termIds.has(term);
  }

  /** Whether the catalog accounts for a query term: a term of its texts, or one that BM25 spelling-corrects onto one (typos.ts). */
  accounts(term: string): boolean {
    if (this.termIds.has(term)) return true;
    if (!this.spelling) return false;
    this.corrector ??= new TermCorrector(this.termIds.keys());
    return this.corrector.correct(term) !== undefined;
  }

  /**
   * BM25 inverse document frequency of a term over whole tools, ln(1 + (N − df + 0.5) /
   * (df + 0.5)), the formula the fields are scored with; a term absent from the catalog
   * gets the largest value.
   */
  idf(term: string): number {
    const t = this.termIds.get(term);
    const df = t === undefined ? 0 : this.df[t]!;
    return Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
  }

  private termId(term: string): number {
    let t = this.termIds.get(term);
    if (t === undefined) {
      t = this.termIds.size;
      this.termIds.set(term, t);
      this.df = withRoom(this.df, t + 1);
      this.lastDoc = withRoom(this.lastDoc, t + 1);
      this.tf = withRoom(this.tf, t + 1);
    }
    return t;
  }

  /** Lays out the postings added since the last query (postings.ts seal()) and sizes the scratch to the catalog. */
  private seal(): void {
    if (this.sealed) return;
    for (const p of this.postings) p.seal(this.termIds.size);
    this.scratch = new QueryScratch(this.count);
    this.sealed = true;
  }

  /**
   * Adds query term (or synonym) `j`, term id `t`, weighted `weight`, to `total`: its
   * score for a tool is its fields' BM25 scores summed in field order, then added to the
   * tool's running total, as minisearch sums. A field's score is `weight × (IDF × term
   * weight)`, the value of minisearch's `1 × weight × 1 × 1 × (IDF × …)`: its field and
   * document boosts are 1, and multiplying by 1 is exact.
   */
  private scoreTerm(t: number, j: number, total: Float64Array, weight: number, fields: readonly FieldPostings[]): void {
    const s = this.scratch;
    let n = 0;
    for (const field of fields) {
      const from = field.start[t]!;
      const to = field.start[t + 1]!;
      if (from === to) continue;
      const m = to - from;
      const idf = Math.log(1 + (this.count - m + 0.5) / (m + 0.5));
      for (let p = from; p < to; p++) {
        const doc = field.docs[p]!;
        // Scores are > 0, so 0 marks a tool this term has not matched yet.
        if (s.term[doc] === 0) s.termDocs[n++] = doc;
        s.term[doc]! += weight * (idf * field.weights[p]!);
      }
    }
    for (let i = 0; i < n; i++) {
      const doc = s.termDocs[i]!;
      s.match(doc, j);
      total[doc]! += s.term[doc]!;
      s.term[doc] = 0;
    }
  }

  /**
   * The matched tools that `allowed` lets through, best first (ties in first-matched
   * order), the first `limit` of them: positions in the scratch's hitDocs and hitScores.
   */
  private rank(allowed: Uint8Array | undefined, limit: number | undefined): number[] {
    const s = this.scratch;
    let n = 0;
    for (let i = 0; i < s.seen; i++) {
      const doc = s.order[i]!;
      if (allowed && allowed[doc] !== 1) continue;
      s.hitDocs[n] = doc;
      s.hitScores[n++] = (s.direct[doc]! + s.synonym[doc]!) * s.quality[doc]!;
    }
    const scores = s.hitScores;
    return topK(s.positions.subarray(0, n), limit ?? n, (a, b) => scores[a]! > scores[b]! || (scores[a] === scores[b] && a < b));
  }
}
