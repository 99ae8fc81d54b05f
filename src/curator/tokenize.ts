/**
 * The curator's one tokenizer, shared by BM25, the name-token anchor and the fusion gate
 * so that a query and a tool name are compared on the same terms.
 *
 * Unicode-aware: a token is a run of letters and digits (`\p{L}\p{N}`) in any script, so
 * Cyrillic, Greek, Arabic, Devanagari, ... are kept whole; combining marks (`\p{M}`) stay
 * inside the word, or Devanagari's vowel signs would cut नमस्ते into pieces. Han, Hiragana, Katakana and
 * Hangul are written without spaces, so a run of them becomes its overlapping character
 * bigrams (the usual CJK indexing unit), never nothing.
 */

import { splitName } from '../catalog/retrievalText.js';

/** A word: a run of letters, combining marks and digits (global: use with matchAll or replace). */
export const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;

/**
 * English function words that carry no topic: BM25 queries, the anchor and the fusion
 * gate's coverage leave them out. They stay in the index (a document's length counts
 * them). IDF does not discount them enough on a tool catalog: in 36 short descriptions
 * "a" and "with" are in only half the tools, so four function words outscored the one
 * word that mattered ("connect Alice and Acme with a works_at relation" ranked
 * list_directory_with_sizes over create_relations).
 */
const STOPWORD_LIST =
  'a an the and or but if of to in on at by for from with about into over under as is are was were be been ' +
    'being do does did have has had i me my we our you your he she it its they them their this that these those ' +
    'what which who whom how when where why can could would should will shall may might must please want need ' +
    'like just some any all also then there here not no so too very up out get ' +
    // pronouns, and the fragments the tokenizer cuts from contractions (what's, I'm, don't, I'll, we're, I've, I'd)
    'am his her him hers us ours yours mine s t m d ll re ve don doesn didn isn aren wasn weren haven hasn couldn wouldn shouldn';

/**
 * Words the stemmer leaves whole: the words ending in -s among the Porter2 (Snowball
 * English) stemmer's invariant "exceptional forms" (snowballstem.org/algorithms/english),
 * singular words that an -s rule would fold onto a different word ("news" → "new", so
 * "find news about X" matched every "create a new …" tool).
 */
const INVARIANT: ReadonlySet<string> = new Set(['news', 'atlas', 'cosmos', 'bias', 'andes']);

/**
 * Harman's S-stemmer (JASIS 1991): folds English plurals only (`policies` → policy,
 * `files` → file), the conservative stemmer that never merges unrelated words, except
 * the few singular words in INVARIANT that it would.
 */
export function sStem(word: string): string {
  const n = word.length;
  if (INVARIANT.has(word)) return word;
  if (n > 3 && word.endsWith('ies') && !word.endsWith('eies') && !word.endsWith('aies')) return word.slice(0, -3) + 'y';
  if (n > 3 && word.endsWith('es') && !/(aes|ees|oes)$/.test(word)) return word.slice(0, -1);
  if (n > 3 && word.endsWith('s') && !/(us|ss)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** Stopwords in the form `tokenize` emits them. */
export const STOPWORDS: ReadonlySet<string> = new Set(STOPWORD_LIST.split(' ').map(sStem));

function cjkBigrams(run: string, out: string[]): void {
  const chars = Array.from(run);
  if (chars.length === 1) out.push(chars[0]!);
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
}

/**
 * camelCase and PascalCase boundaries, where a word is cut before lowercasing: a lower-case
 * letter then a capital (`dragItem` → drag Item), and an acronym's last capital when a
 * lower-case letter follows it (`HTTPStatus` → HTTP Status). splitName() cuts tool names
 * the same way, so a query quoting an identifier (`getUserToken`, a `dropZone` element)
 * meets the words of the name it indexes.
 */
const CAMEL_LOWER_UPPER = /(\p{Ll})(\p{Lu})/gu;
const CAMEL_ACRONYM = /(\p{Lu})(\p{Lu}\p{Ll})/gu;

/**
 * Lowercased, S-stemmed terms of `text`, in order (duplicates kept); camelCase words are
 * cut into their parts first.
 *
 * ### Usage
 * ```ts
 * tokenize('Get the fee dues')      // ['get', 'the', 'fee', 'due']
 * tokenize('drag to dropZone')      // ['drag', 'to', 'drop', 'zone']
 * tokenize('Получить расписание')   // ['получить', 'расписание']
 * tokenize('查看课程表')              // ['查看', '看课', '课程', '程表']
 * ```
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  const words = text.replace(CAMEL_LOWER_UPPER, '$1 $2').replace(CAMEL_ACRONYM, '$1 $2').toLowerCase();
  for (const m of words.matchAll(WORD)) {
    const word = m[0];
    if (!CJK.test(word)) {
      out.push(sStem(word));
      continue;
    }
    for (const piece of word.match(CJK_RUN) ?? []) {
      if (CJK.test(piece)) cjkBigrams(piece, out);
      else out.push(sStem(piece));
    }
  }
  return out;
}

/** Distinct non-stopword terms of `text`: what a query asks about. */
export function contentTerms(text: string): string[] {
  return [...new Set(tokenize(text).filter((t) => !STOPWORDS.has(t)))];
}

/**
 * A word spelled as a code identifier: letters joined by `_` (`mark_attendance`,
 * `filesystem__write_file`; not kebab-case, which English compounds share: up-to-date),
 * or lower camelCase with a head of three letters or more
 * (`getFeeReceipt`; not brands such as GitHub, iPhone, eBay, arXiv). The whole word,
 * quotes and punctuation around it aside: digits, dots, slashes and `@` inside keep it
 * literal (CS301, notes.txt, report_v2, a path, an address).
 */
const IDENTIFIER_SPELLING = /^(?:\p{L}+(?:_+\p{L}+)+|\p{Ll}{3,}(?:\p{Lu}\p{Ll}+)+)$/u;
/** What may stand around such a word: quotes, brackets and sentence punctuation, not a path's `./` or a selector's `#`. */
const AROUND = /^(["'`(\[{<*]*)(.*?)(["'`)\]}>*.,;:!?]*)$/u;

/**
 * `text` with each word spelled as a code identifier written as its words, the way tool
 * names are embedded (splitName in catalog/retrievalText.ts): a sentence encoder reads
 * `mark_attendance` as unfamiliar subword pieces, and "mark attendance" as the name it
 * indexed. Undefined when no word is such an identifier. BM25 needs none of this: tokenize
 * already cuts camelCase and its word pattern stops at `_` and `-`.
 *
 * ### Usage
 * ```ts
 * identifierWords('call mark_attendance now')  // 'call mark attendance now'
 * identifierWords('open notes.txt')            // undefined
 * ```
 */
export function identifierWords(text: string): string | undefined {
  let changed = false;
  const out = text.replace(/\S+/gu, (token) => {
    const [, before, word, after] = AROUND.exec(token)!;
    if (!IDENTIFIER_SPELLING.test(word!)) return token;
    changed = true;
    return `${before}${splitName(word!).join(' ')}${after}`;
  });
  return changed ? out : undefined;
}

/** A word with a digit, or with `_ . / : @` between letters or digits: an ID, number, file name, path or address. */
const IDENTIFIER = /\p{N}|[\p{L}\p{N}][_./:@][\p{L}\p{N}]/u;
/** Capitalized but not all capitals: a name (Alice, Acme, Pune); acronyms (CGPA, DBMS) are often domain terms. */
const NAME = /^\p{Lu}(?!\p{Lu}*$)/u;

/**
 * Terms of `text` that come from argument values rather than from what is asked:
 * words with a digit or an inner `_ . / : @` (CS301, notes.txt, works_at, 17), and
 * capitalized words other than the first (Alice, Acme). No tool's description contains a
 * user's file names, IDs or acquaintances, so the fusion gate does not count them as
 * words BM25 failed to match.
 *
 * ### Usage
 * ```ts
 * literalTerms('Rename notes.txt for Alice to v2')  // Set { 'note', 'txt', 'alice', 'v2' }
 * ```
 */
export function literalTerms(text: string): Set<string> {
  const out = new Set<string>();
  text.split(/\s+/u).forEach((raw, i) => {
    const word = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (word && (IDENTIFIER.test(word) || (i > 0 && NAME.test(word)))) for (const t of tokenize(word)) out.add(t);
  });
  return out;
}
