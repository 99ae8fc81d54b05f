/**
 * Lookups of tool names for the name guard, cheap at any catalog size: exact and
 * case-insensitive names through Maps, and fuzzy candidates through a trigram index that
 * pre-filters (length window, shared trigrams) before the costly SequenceMatcher runs on
 * at most MAX_COMPARISONS names. Work per lookup is bounded whatever the catalog holds.
 */
import difflib from 'difflib';
import type { ToolRecord } from '../catalog/types.js';

/**
 * SequenceMatcher ratios computed per lookup, at most. 40 keeps a miss under about a
 * millisecond (a ratio of two 30-character names costs ~10 µs) while the true nearest
 * name, which shares the most trigrams, is virtually always among the first 40.
 */
export const MAX_COMPARISONS = 40;
/** Trigram postings read per lookup, at most (rarest trigrams first, as they say the most). */
export const MAX_POSTINGS = 30_000;
/** Persona checks per lookup, at most: a narrow persona in a huge catalog gets "find_tools" rather than a stall. */
export const MAX_ELIGIBILITY_CHECKS = 5_000;

/**
 * difflib's SequenceMatcher ratio, with the argument order of Python's
 * `get_close_matches(word, possibilities)`: `a` is the candidate, `b` the word asked for
 * (the ratio is not always symmetric).
 */
export function nameRatio(candidate: string, requested: string): number {
  return new difflib.SequenceMatcher(null, candidate, requested).ratio();
}

/**
 * The trigrams of a name as integers (three UTF-16 units folded to 32 bits), with start
 * and end marks so that short names have trigrams too. Lower-cased: case never hides a match.
 */
function trigrams(name: string): Set<number> {
  const s = `\u0002${name.toLowerCase()}\u0003`;
  const out = new Set<number>();
  for (let i = 0; i + 3 <= s.length; i++) out.add((Math.imul(s.charCodeAt(i), 0x9e3779b1) ^ Math.imul(s.charCodeAt(i + 1), 0x85ebca6b) ^ s.charCodeAt(i + 2)) | 0);
  return out;
}

export interface Candidate {
  tool: ToolRecord;
  /** SequenceMatcher ratio, 0..1. */
  ratio: number;
}

export interface FuzzyResult {
  /** Best ratio first; a tie keeps catalog order. */
  candidates: Candidate[];
  /** SequenceMatcher ratios computed: at most MAX_COMPARISONS. */
  comparisons: number;
}

export class NameIndex {
  private readonly exact = new Map<string, ToolRecord>();
  private readonly lower = new Map<string, ToolRecord[]>();
  private postings: Map<number, number[]> | undefined;
  /** Shared-trigram counts per tool id during a lookup; reset after each. */
  private counts: Uint8Array | undefined;

  constructor(private readonly tools: readonly ToolRecord[]) {
    for (const t of tools) {
      this.exact.set(t.name, t);
      const k = t.name.toLowerCase();
      const list = this.lower.get(k);
      if (list) list.push(t);
      else this.lower.set(k, [t]);
    }
  }

  get(name: string): ToolRecord | undefined {
    return this.exact.get(name);
  }

  /** The tools whose name equals `name` ignoring case (usually none or one). */
  caseInsensitive(name: string): ToolRecord[] {
    return this.lower.get(name.toLowerCase()) ?? [];
  }

  /** Built by prepare(), or on the first fuzzy lookup if that comes first: exact hits never pay for it. */
  private trigramPostings(): Map<number, number[]> {
    if (!this.postings) {
      const postings = new Map<number, number[]>();
      this.addTrigrams(postings, 0, this.tools.length);
      this.postings = postings;
    }
    return this.postings;
  }

  private addTrigrams(postings: Map<number, number[]>, from: number, to: number): void {
    for (let id = from; id < to; id++) {
      for (const g of trigrams(this.tools[id]!.name)) {
        const list = postings.get(g);
        if (list) list.push(id);
        else postings.set(g, [id]);
      }
    }
  }

  /**
   * Builds the trigram index ahead of the first misspelled name (the gateway calls it
   * when a catalog arrives), PREPARE_CHUNK names at a time with the event loop served in
   * between: 100,000 names take about half a second in all, which that first lookup
   * would otherwise wait for. A lookup during the build builds it at once; this then stops.
   */
  async prepare(): Promise<void> {
    const postings = new Map<number, number[]>();
    for (let at = 0; at < this.tools.length && !this.postings; at += PREPARE_CHUNK) {
      this.addTrigrams(postings, at, Math.min(this.tools.length, at + PREPARE_CHUNK));
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.postings ??= postings;
  }

  /**
   * The names nearest to `requested` among the tools `eligible` accepts, by
   * SequenceMatcher ratio, from at most MAX_COMPARISONS pre-filtered candidates: names
   * sharing the most trigrams with `requested` and whose length allows a ratio of at
   * least `minRatio` (a ratio is at most 2·min(len)/(sum of lengths)).
   */
  fuzzy(requested: string, eligible: (t: ToolRecord) => boolean, minRatio: number): FuzzyResult {
    const postings = this.trigramPostings();
    const grams = [...trigrams(requested)]
      .map((g) => postings.get(g))
      .filter((l): l is number[] => l !== undefined)
      .sort((a, b) => a.length - b.length);
    const counts = (this.counts ??= new Uint8Array(this.tools.length));
    const touched: number[] = [];
    let read = 0;
    for (const list of grams) {
      if (read + list.length > MAX_POSTINGS && touched.length > 0) break;
      read += list.length;
      for (const id of list) if (counts[id]++ === 0) touched.push(id);
    }
    const len = requested.length;
    const k = minRatio / (2 - minRatio);
    const fits = (n: number) => Math.min(n, len) >= k * Math.max(n, len);
    // Bucket by shared-trigram count (at most 130 trigrams in a 128-character name), most first.
    const buckets: number[][] = [];
    for (const id of touched) {
      if (fits(this.tools[id]!.name.length)) (buckets[counts[id]!] ??= []).push(id);
      counts[id] = 0;
    }
    const picked: number[] = [];
    let checks = 0;
    for (let c = buckets.length - 1; c > 0 && picked.length < MAX_COMPARISONS && checks < MAX_ELIGIBILITY_CHECKS; c--) {
      for (const id of buckets[c] ?? []) {
        if (picked.length >= MAX_COMPARISONS || checks++ >= MAX_ELIGIBILITY_CHECKS) break;
        if (eligible(this.tools[id]!)) picked.push(id);
      }
    }
    const candidates = picked
      .map((id) => ({ id, tool: this.tools[id]!, ratio: nameRatio(this.tools[id]!.name, requested) }))
      .sort((a, b) => b.ratio - a.ratio || a.id - b.id)
      .map(({ tool, ratio }) => ({ tool, ratio }));
    return { candidates, comparisons: picked.length };
  }
}

/** Names indexed per synchronous chunk by NameIndex.prepare. */
const PREPARE_CHUNK = 10_000;

const indexes = new WeakMap<readonly ToolRecord[], NameIndex>();

/** The index of a catalog array, built once per array (a new catalog is a new array). */
export function nameIndexOf(tools: readonly ToolRecord[]): NameIndex {
  let index = indexes.get(tools);
  if (!index) indexes.set(tools, (index = new NameIndex(tools)));
  return index;
}
