/**
 * Confident lexical hits of long requests: a request of several sentences is mostly
 * context, and its one ask ("… Please convert report.docx to a PDF.") is a sentence whose
 * words name the tool. Over the whole request BM25's coverage (fusion.ts) is low, since
 * the context's words are in no tool, so the dense retriever gets nearly the whole vote,
 * and its embedding of the context can put unrelated tools first and drop the one BM25
 * found. Each sentence is therefore asked of BM25 alone; a sentence whose best tool
 * explains most of it, far ahead of the next, forces that tool into the shortlist's
 * confident head (an anchor, shortlist.ts).
 *
 * Confidence, from the development sets (eval/university.yaml, eval/dev-generalization.yaml,
 * eval/dev-robust.yaml, the dev suite; 567 queries, whole queries; docs/CURATOR.md "Issue
 * 22"): BM25's best tool is right for 98 % of the queries where it covers at least half
 * of the query's IDF-weighted terms (LEXICAL_COVERAGE) and scores at least 2.5 times the
 * next tool (gap (s1 − s2) / s1 ≥ LEXICAL_GAP), against 58 % where the gap holds but the
 * coverage is under 0.3.
 */
import type { Bm25Hit, Bm25Index } from './bm25.js';
import { bm25Coverage } from './fusion.js';
import { contentTerms, literalTerms } from './tokenize.js';

/** Share of a sentence's IDF-weighted content terms its best tool must contain (bm25Coverage). */
export const LEXICAL_COVERAGE = 0.5;
/** Relative lead of the best BM25 score over the second, (s1 − s2) / s1; 1 when only one tool matched. */
export const LEXICAL_GAP = 0.6;
/** Tools a confident lexical head (confidentLexicalHead) holds at most. */
export const LEXICAL_HEAD = 2;
/** Sentences asked of BM25 at most: the first and the last half of this many (a pasted document can hold hundreds). */
export const MAX_SENTENCES = 24;

/** Sentence ends in a request: . ! ? or ; before whitespace, and line breaks (users start sentences in lower case too). */
const QUERY_SENTENCE_END = /(?<=[.!?;])\s+|\s*\n\s*/u;

/**
 * The sentences of a request, trimmed, without those that have no content word; at most
 * MAX_SENTENCES (the first and the last ones).
 *
 * ### Usage
 * ```ts
 * requestSentences('We moved offices. list the directory /srv/shared!')  // ['We moved offices.', 'list the directory /srv/shared!']
 * ```
 */
export function requestSentences(query: string): string[] {
  const all = query.split(QUERY_SENTENCE_END).map((s) => s.trim()).filter((s) => contentTerms(s).length > 0);
  if (all.length <= MAX_SENTENCES) return all;
  const half = MAX_SENTENCES / 2;
  return [...all.slice(0, half), ...all.slice(all.length - half)];
}

/**
 * Catalog indices of the allowed tools that some sentence of a request of two sentences
 * or more confidently names (LEXICAL_COVERAGE, LEXICAL_GAP), in sentence order, each once;
 * [] for a one-sentence query (the whole query's fusion already gives a confident BM25 hit
 * its vote).
 *
 * ### Usage
 * ```ts
 * confidentLexicalHits('Our trip was chaotic, rain all week. Please convert report.docx to a PDF file.', bm25, mask)
 * // [index of convert_to_pdf]
 * ```
 */
export function confidentLexicalHits(query: string, bm25: Bm25Index, allowed: Uint8Array): number[] {
  const sentences = requestSentences(query);
  if (sentences.length < 2) return [];
  const out: number[] = [];
  for (const sentence of sentences) {
    const hits = bm25.query(sentence, allowed, undefined, 2);
    const top = hits[0];
    if (!top || out.includes(top.index)) continue;
    const gap = hits[1] ? (top.score - hits[1].score) / top.score : 1;
    if (gap < LEXICAL_GAP) continue;
    if (bm25Coverage(hits, contentTerms(sentence), bm25, literalTerms(sentence)) >= LEXICAL_COVERAGE) out.push(top.index);
  }
  return out;
}

/**
 * The confident head of the whole query's BM25 ranking, in BM25's order: its first one or
 * two hits (at most LEXICAL_HEAD) when they stand apart from the rest, the last of them
 * scoring at least 2.5 times the next hit (the LEXICAL_GAP of confidentLexicalHits, as a
 * ratio), and one of them covers at least LEXICAL_COVERAGE of the query's IDF-weighted
 * words; [] otherwise. The fusion keeps margins, but with the dense retriever's share
 * (1 − coverage) it can still reorder two tools BM25 sets far above the rest, or push
 * BM25's second below tools BM25 never matched, when the dense side ranks it low: BM25 is
 * confident that the answer is among these, and the dense retriever is not confident of
 * anything in particular. The curator puts them first, in BM25's order, after exact names.
 *
 * Chosen on the development suites (docs/CURATOR.md "Issue 22, third round"): heads of up
 * to 2 raised nDCG@10 on the university suite and changed no development case's outcome;
 * heads of 3, or without the coverage condition, lowered it (a single weak word matches
 * one or two tools far above the rest as often as not).
 *
 * ### Usage
 * ```ts
 * const q = 'which placement drives are coming up and what offers did I get';
 * confidentLexicalHead(bm25.query(q, mask), q, bm25)
 * // [index of get_placement_offers, index of list_placement_drives]: BM25 43.4 and 22.1, no third hit
 * ```
 */
export function confidentLexicalHead(hits: readonly Bm25Hit[], query: string, bm25: Bm25Index): number[] {
  const terms = contentTerms(query);
  const literals = literalTerms(query);
  for (let h = 1; h <= Math.min(LEXICAL_HEAD, hits.length); h++) {
    const next = hits[h]?.score ?? 0;
    const last = hits[h - 1]!.score;
    if (last <= 0 || (last - next) / last < LEXICAL_GAP) continue;
    const head = hits.slice(0, h);
    const covered = head.some((hit) => bm25Coverage([hit], terms, bm25, literals) >= LEXICAL_COVERAGE);
    return covered ? head.map((hit) => hit.index) : [];
  }
  return [];
}
