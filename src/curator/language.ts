/**
 * Which words of a query the curator can read: the catalog's own terms, or, for an
 * embedder that reads English only (noMatch.ts ENGLISH_ONLY), English words (english.ts).
 * script.ts catches a query in a script the catalog does not use; a Latin-script query in
 * another language (Vietnamese, Turkish, Polish, Swahili, Spanish, ...) passed it, and USE
 * Lite gave it a vector near something whatever it said: "download my exam admit card" in
 * Vietnamese scored 0.35 against a hostel-leave tool, over the no-match floor. A request
 * whose words neither the catalog nor the embedder can read is not evidence of anything.
 */
import { log } from '../log.js';
import { englishWords, type WordCheck } from './english.js';
import { ENGLISH_ONLY } from './noMatch.js';
import { literalTerms, STOPWORDS, tokenize } from './tokenize.js';

/** A word, with the apostrophe of a contraction or elision inside it ("I'll", "l'orario"). */
const WORD_RUN = /[\p{L}\p{M}\p{N}]+(?:['’][\p{L}\p{M}\p{N}]+)*/gu;
/** Latin letters and combining marks only: the words an English dictionary could know. */
const LATIN = /^[\p{Script=Latin}\p{M}'’]+$/u;
/** Two or more capitals and no small letter: an acronym (CGPA, PPO), often a catalog's jargon. */
const ACRONYM = /^[\p{Lu}\p{M}]{2,}$/u;

/**
 * The share, in [0, 1], of the query's counted words that `known` (catalog terms) or
 * `english` accepts; undefined when no word is counted. Counted are Latin-script words,
 * except acronyms (CGPA) and argument values the catalog does not know (tokenize.ts
 * literalTerms: CS301, /home/ana/todo.txt, a capitalized name after the first word such as
 * Lahore); a capitalized word the catalog has (Prüfungstermine) counts, readable. Words of
 * other scripts are script.ts's to judge.
 *
 * ### Usage
 * ```ts
 * const english = englishWords();
 * readableShare('any bursaries for high achievers', () => false, english)  // 1
 * readableShare('tải phiếu dự thi', () => false, english)                   // 0
 * readableShare('pokaż mój plan zajęć', (t) => t === 'plan', english)       // 0.25
 * ```
 */
export function readableShare(query: string, known: (term: string) => boolean, english: WordCheck): number | undefined {
  const literals = literalTerms(query);
  let counted = 0;
  let readable = 0;
  for (const [word] of query.matchAll(WORD_RUN)) {
    if (!LATIN.test(word) || ACRONYM.test(word)) continue;
    const terms = tokenize(word);
    // A stopword's form is no catalog evidence: Vietnamese "thi" is the S-stemmed "this" of the descriptions.
    const inCatalog = terms.every((t) => !STOPWORDS.has(t) && known(t));
    if (!inCatalog && terms.every((t) => literals.has(t))) continue;
    counted++;
    if (inCatalog || english(word.replace(/’/gu, "'"))) readable++;
  }
  return counted === 0 ? undefined : readable / counted;
}

/** Descriptions sampled, at most, to tell whether a catalog is written in English. */
const CATALOG_SAMPLE = 500;

/**
 * Whether a catalog's tool descriptions are written in English: at least half of the
 * Latin-script words of an even sample of them (CATALOG_SAMPLE) are English words.
 */
export function catalogInEnglish(descriptions: readonly string[], english: WordCheck): boolean {
  const step = Math.max(1, Math.ceil(descriptions.length / CATALOG_SAMPLE));
  let latin = 0;
  let known = 0;
  for (let i = 0; i < descriptions.length; i += step) {
    for (const [word] of descriptions[i]!.matchAll(WORD_RUN)) {
      if (!LATIN.test(word) || ACRONYM.test(word)) continue;
      latin++;
      if (english(word)) known++;
    }
  }
  return latin > 0 && known / latin >= 0.5;
}

/** What the no-match rule knows of the words an English-only embedder reads, and of the catalog's language. */
export interface QueryReader {
  english: WordCheck;
  /** The catalog's descriptions are in English (catalogInEnglish): a query word it lacks is then foreign to both retrievers. */
  catalogEnglish: boolean;
}

/**
 * The reader for an embedder that reads English only (noMatch.ts ENGLISH_ONLY) over a
 * catalog with these descriptions; undefined for any other embedder, or when the
 * dictionary cannot be loaded (logged: the no-match rule then goes without it).
 */
export function readerFor(embedderId: string, descriptions: readonly string[]): QueryReader | undefined {
  if (!ENGLISH_ONLY.test(embedderId)) return undefined;
  try {
    const english = englishWords();
    return { english, catalogEnglish: catalogInEnglish(descriptions, english) };
  } catch (err) {
    log.warn({ err, embedder: embedderId }, 'curator: the English dictionary could not be loaded; requests in other Latin-script languages are judged by their scores alone');
    return undefined;
  }
}
