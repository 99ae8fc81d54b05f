/**
 * The working memory of a BM25 query (bm25.ts): one slot per tool, reused by every
 * query. A query writes only the slots of the tools it matches and clears only those
 * after, so it costs its postings, not the catalog.
 */
import { withRoom } from './postings.js';

/** A hit's matched query terms, and the query terms it matched only through a synonym. */
export interface Reported {
  direct: readonly string[];
  viaSynonym: readonly string[];
}

export class QueryScratch {
  /** The current term's score per tool; 0 where it has not matched (scores are > 0). */
  readonly term: Float64Array;
  /** Tools the current term matched, in first-matched order. */
  readonly termDocs: Int32Array;
  /** Sum of the query's own terms' scores, and of its synonyms' scores, per tool. */
  readonly direct: Float64Array;
  readonly synonym: Float64Array;
  /** Distinct terms and synonyms matched per tool; 0: not matched. */
  readonly quality: Int32Array;
  /** Matched tools in first-matched order, `seen` of them. */
  readonly order: Int32Array;
  seen = 0;
  /** The hits the mask lets through, in first-matched order, and their final scores. */
  readonly hitDocs: Int32Array;
  readonly hitScores: Float64Array;
  /** 0, 1, 2, …: the hits' positions, to rank. */
  readonly positions: Int32Array;
  /**
   * The query terms and synonyms (their positions j in the query) each tool matched: a
   * list per tool, newest first, through `last` (1 + the tool's latest match; 0: none)
   * and `previous` (1 + the match before it).
   */
  private readonly last: Int32Array;
  private matchTerm = new Int32Array(0);
  private previous = new Int32Array(0);
  private matches = 0;
  /** What reportOnce() computed for each set of matched terms met in this query. */
  private readonly reported = new Map<string, Reported>();

  constructor(tools: number) {
    this.term = new Float64Array(tools);
    this.termDocs = new Int32Array(tools);
    this.direct = new Float64Array(tools);
    this.synonym = new Float64Array(tools);
    this.quality = new Int32Array(tools);
    this.order = new Int32Array(tools);
    this.hitDocs = new Int32Array(tools);
    this.hitScores = new Float64Array(tools);
    this.positions = Int32Array.from({ length: tools }, (_, i) => i);
    this.last = new Int32Array(tools);
  }

  /** Records that query term or synonym `j` matched tool `doc`; once per pair, `j` not decreasing. */
  match(doc: number, j: number): void {
    if (this.quality[doc]!++ === 0) this.order[this.seen++] = doc;
    const at = this.matches++;
    this.matchTerm = withRoom(this.matchTerm, at + 1);
    this.previous = withRoom(this.previous, at + 1);
    this.matchTerm[at] = j;
    this.previous[at] = this.last[doc]!;
    this.last[doc] = at + 1;
  }

  /**
   * `report` of the positions of the query terms and synonyms `doc` matched, ascending;
   * computed once for all the tools of this query that matched the same ones.
   */
  reportOnce(doc: number, report: (matched: number[]) => Reported): Reported {
    const matched: number[] = [];
    for (let at = this.last[doc]!; at !== 0; at = this.previous[at - 1]!) matched.push(this.matchTerm[at - 1]!);
    matched.reverse();
    const key = matched.join();
    let reported = this.reported.get(key);
    if (!reported) this.reported.set(key, (reported = report(matched)));
    return reported;
  }

  /** Clears what the query wrote, for the next one. */
  clear(): void {
    for (let i = 0; i < this.seen; i++) {
      const doc = this.order[i]!;
      this.direct[doc] = 0;
      this.synonym[doc] = 0;
      this.quality[doc] = 0;
      this.last[doc] = 0;
    }
    this.seen = 0;
    this.matches = 0;
    this.reported.clear();
  }
}
