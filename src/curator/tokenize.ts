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

const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;

/**
 * English function words that carry no topic. They are still indexed by BM25 (its IDF
 * already discounts them); the list only keeps them out of the anchor and the fusion
 * gate's query-term coverage, where a match on "the" would count as evidence.
 */
const STOPWORD_LIST =
  'a an the and or but if of to in on at by for from with about into over under as is are was were be been ' +
    'being do does did have has had i me my we our you your he she it its they them their this that these those ' +
    'what which who whom how when where why can could would should will shall may might must please want need ' +
    'like just some any all also then there here not no so too very up out get';

/**
 * Harman's S-stemmer (JASIS 1991): folds English plurals only (`policies` → policy,
 * `files` → file), the conservative stemmer that never merges unrelated words.
 */
export function sStem(word: string): string {
  const n = word.length;
  if (n > 3 && word.endsWith('ies') && !word.endsWith('eies') && !word.endsWith('aies')) return word.slice(0, -3) + 'y';
  if (n > 3 && word.endsWith('es') && !/(aes|ees|oes)$/.test(word)) return word.slice(0, -1);
  if (n > 3 && word.endsWith('s') && !/(us|ss)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** Stopwords in the form `tokenize` emits them. */
const STOPWORDS: ReadonlySet<string> = new Set(STOPWORD_LIST.split(' ').map(sStem));

function cjkBigrams(run: string, out: string[]): void {
  const chars = Array.from(run);
  if (chars.length === 1) out.push(chars[0]!);
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
}

/**
 * Lowercased, S-stemmed terms of `text`, in order (duplicates kept).
 *
 * ### Usage
 * ```ts
 * tokenize('Get the fee dues')      // ['get', 'the', 'fee', 'due']
 * tokenize('Получить расписание')   // ['получить', 'расписание']
 * tokenize('查看课程表')              // ['查看', '看课', '课程', '程表']
 * ```
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(WORD)) {
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
