/**
 * English words: Hunspell's en_US dictionary (dictionary-en, SCOWL-based, MIT/BSD) read
 * through nspell, which applies its affix rules (plurals, tenses, -er, -ly: "bursaries",
 * "retaking"). A spelling dictionary, not a word-game list: it lacks the rare borrowings
 * ("tai", "kadi", "meu") that would make foreign words look English. Two readers: the
 * no-match rule (language.ts: can an English-only embedder read the request?) and the name
 * guard (guards/nameMatch.ts: is a token another real word, or a slip of one?).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import nspell from 'nspell';
import { log } from '../log.js';

/** Whether a word, as written or lower-cased, is an English word. */
export type WordCheck = (word: string) => boolean;

let check: WordCheck | undefined;

/**
 * The dictionary's word check, built on the first call and kept for the process (nspell
 * reads the affix and word files synchronously: about half a second, more on a busy
 * machine; the curator builds it with the dense index, ahead of the first query).
 *
 * ### Usage
 * ```ts
 * const isWord = englishWords();
 * isWord('bursaries')  // true
 * isWord('Retaking')   // true (lower-cased too)
 * isWord('phiếu')      // false
 * ```
 * @throws when dictionary-en is not installed or unreadable.
 */
export function englishWords(): WordCheck {
  if (!check) {
    const started = performance.now();
    // The package exports only its entry point, which reads the files with a top-level await: read them beside it.
    const dir = dirname(createRequire(import.meta.url).resolve('dictionary-en'));
    const speller = nspell({ aff: readFileSync(join(dir, 'index.aff')), dic: readFileSync(join(dir, 'index.dic')) });
    // Not capitalized as a third try: the proper nouns would make foreign words English ("Mes", "Los").
    check = (word) => speller.correct(word) || speller.correct(word.toLowerCase());
    log.debug({ ms: Math.round(performance.now() - started) }, 'English dictionary loaded');
  }
  return check;
}
