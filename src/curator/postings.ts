/**
 * The inverted index of one retrieval field for BM25 (bm25.ts), in typed arrays: per
 * term, the tools whose field contains it in catalog order, each with its term frequency
 * and its BM25 term weight; and each tool's field length with the running average that
 * scores them. A term's postings are one slice of flat arrays (compressed sparse rows),
 * so a catalog of 100,000 tools costs a few arrays, not millions of small objects.
 *
 * Postings are appended as tools are added and laid out by term on the first query after
 * (`seal`); the term weights are computed there too, because every added tool moves the
 * average field length they depend on.
 */

/**
 * BM25+ parameters, minisearch 7.2's defaults: term-frequency saturation k1 = 1.2 (1.2 to
 * 2 is the usual range), length normalization b = 0.7, lower bound δ = 0.5 for a matching
 * term however long the field (Lv & Zhai, CIKM 2011).
 */
const K = 1.2;
const B = 0.7;
const D = 0.5;

/** `array` itself when it holds `size` values, else a copy at least twice as long. */
export function withRoom<T extends Int32Array | Float64Array>(array: T, size: number): T {
  if (size <= array.length) return array;
  const grown = new (array.constructor as new (n: number) => T)(Math.max(size, 2 * array.length));
  grown.set(array);
  return grown;
}

export class FieldPostings {
  /** Term t's postings are positions start[t] to start[t + 1] − 1 of `docs` and `weights`; valid after seal(). */
  start = new Int32Array(1);
  /** Catalog index of each posting's tool, ascending within a term. */
  docs = new Int32Array(0);
  /** BM25 term weight of each posting: the part of its score that the IDF multiplies. */
  weights = new Float64Array(0);
  private tfs = new Int32Array(0);
  /** Each tool's field length: its number of distinct terms, as minisearch counts it. */
  private lengths = new Int32Array(0);
  private averageLength = 0;
  /** Postings added since the last seal(), in catalog order. */
  private newTerms = new Int32Array(0);
  private newDocs = new Int32Array(0);
  private newTfs = new Int32Array(0);
  private added = 0;

  /**
   * Records tool `doc`'s field length (`doc` tools precede it) and updates the average
   * the way minisearch's addFieldLength does, `(average × doc + length) / (doc + 1)`, so
   * that scores match it to the last bit.
   */
  addLength(doc: number, length: number): void {
    this.lengths = withRoom(this.lengths, doc + 1);
    this.lengths[doc] = length;
    this.averageLength = (this.averageLength * doc + length) / (doc + 1);
  }

  /** Adds tool `doc` (not before any tool added so far) to term `term`'s postings, `tf` occurrences. */
  addPosting(term: number, doc: number, tf: number): void {
    const at = this.added++;
    if (at === this.newTerms.length) {
      this.newTerms = withRoom(this.newTerms, at + 1);
      this.newDocs = withRoom(this.newDocs, at + 1);
      this.newTfs = withRoom(this.newTfs, at + 1);
    }
    this.newTerms[at] = term;
    this.newDocs[at] = doc;
    this.newTfs[at] = tf;
  }

  /**
   * Lays out every posting by term for terms 0 … terms − 1 (new postings after the old,
   * so each term stays in catalog order) and recomputes the term weights against the
   * current average field length.
   */
  seal(terms: number): void {
    const { start: old, newTerms, newDocs, newTfs, added, lengths, averageLength } = this;
    const oldTerms = old.length - 1;
    const start = new Int32Array(terms + 1);
    for (let t = 0; t < oldTerms; t++) start[t + 1] = old[t + 1]! - old[t]!;
    for (let i = 0; i < added; i++) start[newTerms[i]! + 1]!++;
    for (let t = 0; t < terms; t++) start[t + 1]! += start[t]!;
    const total = start[terms]!;
    const docs = new Int32Array(total);
    const tfs = new Int32Array(total);
    const next = start.slice(0, terms);
    for (let t = 0; t < oldTerms; t++) {
      docs.set(this.docs.subarray(old[t]!, old[t + 1]!), next[t]!);
      tfs.set(this.tfs.subarray(old[t]!, old[t + 1]!), next[t]!);
      next[t]! += old[t + 1]! - old[t]!;
    }
    for (let i = 0; i < added; i++) {
      const at = next[newTerms[i]!]!++;
      docs[at] = newDocs[i]!;
      tfs[at] = newTfs[i]!;
    }
    const weights = new Float64Array(total);
    for (let p = 0; p < total; p++) {
      const tf = tfs[p]!;
      // minisearch's calcBM25Score without the IDF, operation for operation.
      weights[p] = D + tf * (K + 1) / (tf + K * (1 - B + B * lengths[docs[p]!]! / averageLength));
    }
    this.start = start;
    this.docs = docs;
    this.tfs = tfs;
    this.weights = weights;
    // Freed rather than kept for reuse: after a whole catalog they hold every posting.
    this.newTerms = new Int32Array(0);
    this.newDocs = new Int32Array(0);
    this.newTfs = new Int32Array(0);
    this.added = 0;
  }
}
