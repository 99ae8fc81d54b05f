/**
 * No-match honesty: when nothing in the catalog answers a query, say so instead of
 * returning a full shortlist at a confidence that looks like any other. Nonsense queries
 * used to get 16–23 tools, all added to the session's visible set, and Japanese or
 * Chinese queries the same three tools, two of them state-changing.
 *
 * A query matches nothing well when neither retriever has evidence:
 * - BM25: its best hit contains no content word of the query (coverage 0; fusion.ts
 *   bm25Coverage, spelling corrections included);
 * - dense: the best tool's score is under the embedder's floor (NO_MATCH_FLOORS), and
 *   does not stand clear of the catalog's median tool either: a paraphrase that shares no
 *   word with any tool still lifts its tool above the rest, nonsense lifts them all alike.
 *   Measured per embedder on development data because similarity scales differ by model.
 * A query in a script the catalog does not use (script.ts) is judged by the dense side
 * alone (BM25 cannot match across scripts): unmatched with an English-only embedder, or
 * under the floor; a match through a multilingual embedder comes with a notice.
 * With an English-only embedder, a query most of whose words are neither the catalog's
 * terms nor English words (language.ts: another Latin-script language, or made-up words)
 * is unmatched whatever either retriever scored: a stray word BM25 matched ("plan" in a
 * Polish request) or USE's vector of words it cannot read is no evidence.
 */
import type { ToolRecord } from '../catalog/types.js';
import type { Ranking } from './retrieve.js';
import type { Script } from './script.js';
import type { MatchSignals, NoMatch } from './types.js';

/** Where an embedder's dense score says a query without a BM25 word matches nothing. */
export interface NoMatchFloor {
  /** Under this best dense score (dense.ts, (document + best passage) / 2) the best tool is no match. */
  floor: number;
  /**
   * Between `from` and `floor`, the best tool is a match after all when its score stands
   * at least `gap` above the median score of the allowed tools (MatchSignals.denseMedian).
   * Absent: the floor alone decides.
   */
  separation?: { from: number; gap: number };
}

/**
 * Per embedder (id prefix): when a query that matched no BM25 word matches nothing on
 * the dense side either. An embedder not listed has no floor: its queries are never
 * judged unmatched on similarity.
 *
 * USE Lite, measured on development data only (docs/CURATOR.md, "No-match floor"): 74
 * on-topic requests that share no word with any tool (eval/dev-nomatch*.yaml no_overlap,
 * dev-generalization, the dev suite, eval/university.yaml, eval/dev-robust.yaml; the
 * university, workbench and dev catalogs) against 102 off-topic ones without a BM25 word
 * (off-topic, gibberish, other Latin-script languages). The floor 0.33 alone answers 21 of
 * the 74 on-topic requests and 63 of the 102 off-topic ones with no-match; with the
 * separation (from 0.28, gap 0.15), 13 and 57. A lower floor alone (0.28: 5 and 43) lets
 * through the gibberish of dev-generalization's no_match cases ("zzzz", 0.31).
 */
export const NO_MATCH_FLOORS: Readonly<Record<string, NoMatchFloor>> = {
  'use:': { floor: 0.33, separation: { from: 0.28, gap: 0.15 } },
};

/**
 * Embedders whose model reads English only (USE Lite, `*-en` models such as
 * bge-small-en-v1.5): a query in another script gets a vector that says nothing, so its
 * dense score is not evidence whatever its value (every Japanese and Chinese query scored
 * 0.40 with USE Lite, above many on-topic English ones).
 */
export const ENGLISH_ONLY = /^use:|(^|[-_/.])en([-_.:]|$)/i;

/**
 * Under this share of readable words (MatchSignals.readable) an English-only embedder's
 * query is no match. Measured on development data only (docs/CURATOR.md, "Other languages").
 */
export const READABLE_MIN = 0.5;

/** At most this many tools on a weak match, none of them state-changing. */
export const WEAK_MATCH_MAX = 3;

/**
 * The evidence a ranking gives for the query, for the no-match judgement and explanations.
 * The median dense score is read only when BM25 matched no word (the only case the rule
 * judges), from every scored tool (an approximate search: its candidates and an even
 * sample, so a median on the high side and a separation that is harder to reach).
 */
export function matchSignals(whole: Ranking, foreignScripts: readonly Script[], readable?: number): MatchSignals {
  const s: MatchSignals = { coverage: Number(whole.coverage.toFixed(4)) };
  const dense = whole.dense;
  if (dense && dense.similarities.length > 0) {
    s.denseTop = Number(dense.similarities[0]!.toFixed(4));
    if (whole.coverage === 0 && dense.pool.length > 0) s.denseMedian = Number(medianScore(dense.pool, dense.score).toFixed(4));
  }
  if (foreignScripts.length > 0) s.foreignScripts = [...foreignScripts];
  if (readable !== undefined) s.readable = Number(readable.toFixed(4));
  return s;
}

/** The lower median of `score[i]` over the tools `pool`. */
function medianScore(pool: Int32Array, score: Float32Array): number {
  const values = Float32Array.from(pool, (i) => score[i]!).sort();
  return values[(values.length - 1) >> 1]!;
}

/** The no-match floor of an embedder, or undefined when none was measured for it. */
export function noMatchFloor(embedderId: string | undefined): NoMatchFloor | undefined {
  if (!embedderId) return undefined;
  const key = Object.keys(NO_MATCH_FLOORS).find((prefix) => embedderId.startsWith(prefix));
  return key === undefined ? undefined : NO_MATCH_FLOORS[key];
}

/** True when the dense side gives no evidence: no ranking, or a best score under the floor that does not stand clear of the median. */
function denseIsWeak(signals: MatchSignals, floor: NoMatchFloor | undefined): boolean {
  const top = signals.denseTop;
  if (top === undefined) return true;
  if (!floor || top >= floor.floor) return false;
  const sep = floor.separation;
  const separated = sep !== undefined && top >= sep.from && signals.denseMedian !== undefined && top - signals.denseMedian >= sep.gap;
  return !separated;
}

/**
 * Undefined when the query matches; otherwise why not and a plain message for the caller
 * saying how to rephrase.
 *
 * ### Usage
 * ```ts
 * judgeMatch({ coverage: 0, denseTop: 0.21, denseMedian: 0.12 }, 'use:lite-512')
 * // { reason: 'no-match', message: 'No tool matches this request well ...' }
 * judgeMatch({ coverage: 0, denseTop: 0.30, denseMedian: 0.12 }, 'use:lite-512')
 * // undefined: under the floor 0.33, but 0.18 above the median
 * ```
 */
export function judgeMatch(signals: MatchSignals, embedderId: string | undefined): NoMatch | undefined {
  const denseWeak = denseIsWeak(signals, noMatchFloor(embedderId));
  if (signals.foreignScripts) {
    // BM25 cannot match across scripts; only a dense match from a model that reads the script counts.
    if (!denseWeak && !ENGLISH_ONLY.test(embedderId ?? '')) return undefined;
    return {
      reason: 'script',
      message:
        `No tool matches well: the request is written in ${signals.foreignScripts.join(', ')} script, which this catalog's tool descriptions do not use. ` +
        REPHRASE,
    };
  }
  if (signals.readable !== undefined && signals.readable < READABLE_MIN && ENGLISH_ONLY.test(embedderId ?? '')) {
    return {
      reason: 'language',
      message:
        'No tool matches well: most words of the request are neither in the tool descriptions nor English, the only language the embedding model reads. ' +
        REPHRASE,
    };
  }
  // Without a dense ranking (bm25 mode, embedder down) BM25's silence alone decides.
  if (signals.coverage > 0 || !denseWeak) return undefined;
  return {
    reason: 'no-match',
    message: 'No tool matches this request well: none shares its key words and none is close in meaning, so any tool listed here may not help. ' + REPHRASE,
  };
}

const REPHRASE = 'Rephrase it in the language of the tool descriptions, naming the action and the object (e.g. "renew a library book loan"), or there may be no tool for it.';

/**
 * For a query in a script the catalog does not use that still matched (a multilingual
 * embedder, or an unmeasured one): a note that the match crossed languages.
 */
export function scriptNotice(signals: MatchSignals): string | undefined {
  if (!signals.foreignScripts) return undefined;
  return `The request is written in ${signals.foreignScripts.join(', ')} script, which this catalog's tool descriptions do not use: only the embedding model matched it, so check the tools fit. ${REPHRASE}`;
}

/** The first WEAK_MATCH_MAX tools of the ranking that change nothing (isAction false). */
export function weakMatchList(order: readonly number[], tools: readonly ToolRecord[], topK: number): number[] {
  const max = Math.min(WEAK_MATCH_MAX, topK);
  const out: number[] = [];
  for (const i of order) {
    if (out.length >= max) break;
    if (!tools[i]!.isAction) out.push(i);
  }
  return out;
}
