/**
 * No-match honesty: when nothing in the catalog answers a query, say so instead of
 * returning a full shortlist at a confidence that looks like any other. Nonsense queries
 * used to get 16–23 tools, all added to the session's visible set, and Japanese or
 * Chinese queries the same three tools, two of them state-changing.
 *
 * A query matches nothing well when neither retriever has evidence:
 * - BM25: its best hit contains no content word of the query (coverage 0; fusion.ts
 *   bm25Coverage);
 * - dense: the best tool's score is under the embedder's floor (NO_MATCH_SIMILARITY),
 *   measured per embedder on development data because similarity scales differ by model.
 * A query in a script the catalog does not use (script.ts) is judged by the dense side
 * alone (BM25 cannot match across scripts): unmatched with an English-only embedder, or
 * under the floor; a match through a multilingual embedder comes with a notice.
 */
import type { ToolRecord } from '../catalog/types.js';
import type { Ranking } from './retrieve.js';
import type { Script } from './script.js';
import type { MatchSignals, NoMatch } from './types.js';

/**
 * Per embedder (id prefix): the dense score (dense.ts, (document + best passage) / 2)
 * under which the best tool is not a match when BM25 matched no content word either.
 * Similarity scales differ by model, so the floor is measured per embedder on
 * development data: for USE Lite on the university catalog, the best score of 444
 * on-topic queries (eval/university.yaml and eval/dev-generalization.yaml) against 50
 * off-topic ones (dev-generalization's no_match cases, the dev suite's off-topic list);
 * with 0.33, 3 on-topic queries without a BM25 term fall under it and 23 off-topic ones
 * (docs/CURATOR.md, "No-match honesty"). An embedder not listed has no floor: its queries
 * are never judged unmatched on similarity.
 */
export const NO_MATCH_SIMILARITY: Readonly<Record<string, number>> = {
  'use:': 0.33,
};

/**
 * Embedders whose model reads English only (USE Lite, `*-en` models such as
 * bge-small-en-v1.5): a query in another script gets a vector that says nothing, so its
 * dense score is not evidence whatever its value (every Japanese and Chinese query scored
 * 0.40 with USE Lite, above many on-topic English ones).
 */
export const ENGLISH_ONLY = /^use:|(^|[-_/.])en([-_.:]|$)/i;

/** At most this many tools on a weak match, none of them state-changing. */
export const WEAK_MATCH_MAX = 3;

/** The evidence a ranking gives for the query, for the no-match judgement and explanations. */
export function matchSignals(whole: Ranking, foreignScripts: readonly Script[]): MatchSignals {
  const s: MatchSignals = { coverage: Number(whole.coverage.toFixed(4)) };
  if (whole.dense && whole.dense.similarities.length > 0) s.denseTop = Number(whole.dense.similarities[0]!.toFixed(4));
  if (foreignScripts.length > 0) s.foreignScripts = [...foreignScripts];
  return s;
}

/** The dense floor of an embedder, or undefined when none was measured for it. */
export function similarityFloor(embedderId: string | undefined): number | undefined {
  if (!embedderId) return undefined;
  const key = Object.keys(NO_MATCH_SIMILARITY).find((prefix) => embedderId.startsWith(prefix));
  return key === undefined ? undefined : NO_MATCH_SIMILARITY[key];
}

/**
 * Undefined when the query matches; otherwise why not and a plain message for the caller
 * saying how to rephrase.
 *
 * ### Usage
 * ```ts
 * judgeMatch({ coverage: 0, denseTop: 0.21 }, 'use:lite-512')
 * // { reason: 'no-match', message: 'No tool matches this request well ...' }
 * ```
 */
export function judgeMatch(signals: MatchSignals, embedderId: string | undefined): NoMatch | undefined {
  const floor = similarityFloor(embedderId);
  const denseWeak = signals.denseTop === undefined || (floor !== undefined && signals.denseTop < floor);
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
  // Without a dense ranking (bm25 mode, embedder down) BM25's silence alone decides.
  if (signals.coverage > 0 || !denseWeak) return undefined;
  return {
    reason: 'no-match',
    message: 'No tool matches this request well: none shares its key words and none is close in meaning, so the tools listed may not help. ' + REPHRASE,
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
