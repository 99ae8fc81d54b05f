/**
 * Typo tolerance for BM25: a query term the catalog does not contain is matched to the
 * catalog terms within a small edit distance ("placments" → placement), which BM25 then
 * scores at CORRECTION_WEIGHT, below the query's own words. Without it a misspelled
 * request matched no word, and the no-match rule (noMatch.ts) answered it as nonsense.
 *
 * Only unknown terms are corrected, so a word the catalog uses is never turned into
 * another. A correction keeps the first letter (people rarely mistype it, and it keeps
 * "cast" from becoming "last"), allows one edit in words of 5 to 9 letters and two from 10,
 * and in 4-letter words only a swap of two neighbouring letters (Elasticsearch's AUTO
 * fuzziness is one edit from 3 letters, two from 6; ours is stricter because queries are
 * full of real words the catalog lacks, and a wrong correction adds a topic the user
 * never asked for: "lift" is not "list", "spinning" is not "spending"), and gives
 * up when a stopword is as close as any catalog term ("wher" is "where", not "when" the
 * catalog happens to use). Edits are insertions, deletions, substitutions and swaps of
 * neighbouring letters (optimal string alignment distance).
 */
import { STOPWORDS } from './tokenize.js';

/**
 * Weight of a corrected term's BM25 score, relative to the query's own word: ½, as the
 * lexicon's synonyms (lexicon.ts SYNONYM_WEIGHT), so a tool matching what the user typed
 * outranks one matching only a guess at it.
 */
export const CORRECTION_WEIGHT = 0.5;

/** Shortest word corrected: shorter ones are within one edit of too many others. */
export const MIN_CORRECTED_LENGTH = 4;

/** Edits allowed for a word of `length` letters: 0 under 4, 1 up to 9 (a 4-letter word: only a swap, isSwap), 2 from 10. */
export function maxEdits(length: number): number {
  return length < MIN_CORRECTED_LENGTH ? 0 : length < 10 ? 1 : 2;
}

/** Shortest word any edit is corrected in; a shorter one only when two neighbouring letters are swapped ("lsit"). */
export const MIN_ANY_EDIT_LENGTH = 5;

/**
 * Whether `a` becomes `b` by swapping two neighbouring letters. A 4-letter word is one
 * substitution, insertion or deletion from many real words ("lift" → list, "moan" →
 * mean, "team" → term): only a swap, which rarely makes another word, is corrected there.
 */
export function isSwap(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i + 1 < a.length && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
}

/** Only letters (in a script written with spaces): numbers, codes and ideographs are not spelled. */
const SPELLED = /^[\p{L}\p{M}]+$/u;
const IDEOGRAPHIC = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * Optimal string alignment distance between `a` and `b` when it is at most `max`, else
 * `max + 1` (the computation stops as soon as every path exceeds `max`).
 *
 * ### Usage
 * ```ts
 * editDistance('placment', 'placement', 2)  // 1
 * editDistance('gardes', 'grades', 1)       // 1 (a swap)
 * editDistance('cast', 'list', 1)           // 2 (= max + 1)
 * ```
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const n = b.length;
  let before = new Int32Array(n + 1);
  let previous = Int32Array.from({ length: n + 1 }, (_, j) => j);
  let current = new Int32Array(n + 1);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      current[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return max + 1;
    [before, previous, current] = [previous, current, before];
  }
  return Math.min(previous[n]!, max + 1);
}

/**
 * The catalog's terms by first letter and length, for correcting query terms. Built from
 * the BM25 vocabulary (tokenizer form: lower-cased, plurals folded).
 */
export class TermCorrector {
  /** first letter → length → terms. */
  private readonly buckets = new Map<string, Map<number, string[]>>();

  constructor(vocabulary: Iterable<string>) {
    for (const term of vocabulary) {
      if (term.length < MIN_CORRECTED_LENGTH - 1 || !SPELLED.test(term) || IDEOGRAPHIC.test(term)) continue;
      const first = term[0]!;
      let byLength = this.buckets.get(first);
      if (!byLength) this.buckets.set(first, (byLength = new Map()));
      const list = byLength.get(term.length);
      if (list) list.push(term);
      else byLength.set(term.length, [term]);
    }
  }

  /**
   * The catalog terms nearest to `term` (a term the catalog lacks), all those at the
   * smallest distance within maxEdits (for a 4-letter word, those one swap away), and that
   * distance; undefined for a word too short or not spelled in letters, with no catalog
   * term close enough, or as close to a stopword as to any catalog term.
   *
   * ### Usage
   * ```ts
   * new TermCorrector(['placement', 'drive', 'stand']).correct('placment')  // { terms: ['placement'], distance: 1 }
   * new TermCorrector(['abort', 'placement']).correct('abuot')              // undefined ("about", a stopword, is as close)
   * new TermCorrector(['list', 'lift']).correct('lsit')                      // { terms: ['list'], distance: 1 } (4 letters: swaps only)
   * ```
   */
  correct(term: string): Correction | undefined {
    const max = maxEdits(term.length);
    if (max === 0 || !SPELLED.test(term) || IDEOGRAPHIC.test(term)) return undefined;
    const byLength = this.buckets.get(term[0]!);
    if (!byLength) return undefined;
    let best = max + 1;
    let found: string[] = [];
    if (term.length < MIN_ANY_EDIT_LENGTH) {
      best = 1;
      found = (byLength.get(term.length) ?? []).filter((c) => isSwap(term, c));
    } else {
      for (let length = term.length - max; length <= term.length + max; length++) {
        for (const candidate of byLength.get(length) ?? []) {
          const d = editDistance(term, candidate, Math.min(max, best));
          if (d < best) {
            best = d;
            found = [candidate];
          } else if (d === best && d <= max) found.push(candidate);
        }
      }
    }
    if (found.length === 0 || closerStopword(term, best)) return undefined;
    return { terms: found, distance: best };
  }
}

/** What TermCorrector.correct found: the nearest catalog terms and their edit distance. */
export interface Correction {
  terms: string[];
  distance: number;
}

/** Stopwords a misspelled word could stand for: 3 letters and up (a 4-letter typo is one edit from them). */
const STOPWORD_TARGETS: readonly string[] = [...STOPWORDS].filter((w) => w.length >= MIN_CORRECTED_LENGTH - 1);

/** Whether a stopword with `term`'s first letter is within `distance` of it. */
function closerStopword(term: string, distance: number): boolean {
  return STOPWORD_TARGETS.some((w) => w[0] === term[0] && editDistance(term, w, distance) <= distance);
}
