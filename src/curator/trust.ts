/**
 * Catalog trust: how reliably each retriever finds a tool of this catalog from another
 * phrasing of it, measured at buildIndex without any query or label, and used to scale
 * the fusion vote (fusion.ts).
 *
 * Why: how much the dense retriever can be trusted depends on the catalog. Where tools
 * come in look-alike families ("playwright click" / "puppeteer click", seven "get … report"
 * tools) a sentence encoder places them almost on one point and only the words that tell
 * them apart, which BM25 weighs by rarity, can; where tools are few and distinct, the
 * encoder's grasp of meaning is worth more than exact words. The per-query gate (BM25's
 * coverage of the query) cannot see this: it measures the query, not the catalog.
 *
 * The measurement is self-retrieval, two probes per tool that has a name and a
 * description sentence, each against the other part of every tool's text:
 * - its name phrase against every tool's description (dense: the best cosine over a tool's
 *   description sentences and synonym string; BM25: the description field alone);
 * - its first description sentence against every tool's name phrase (dense: cosine with
 *   the name phrase; BM25: the name field alone).
 * A retriever's reliability is its mean reciprocal rank of the probed tool over both
 * probes, ties counted against it (a twin with an identical description halves it), a
 * tool BM25 does not match at all counting 0. Every vector is one the dense index embeds
 * anyway (the passages), so the measurement embeds nothing.
 */
import { exactSearch, MetricKind } from 'usearch';
import type { Bm25Index } from './bm25.js';

/** One tool's probe material: texts for BM25, unit vectors of the same texts for dense. */
export interface ToolProbe {
  /** Name phrase (split name and title). */
  name?: { text: string; vector: Float32Array };
  /** First description sentence. */
  sentence?: { text: string; vector: Float32Array };
  /** Vectors of every description sentence and the synonym string: the tool's description side for dense. */
  description: readonly Float32Array[];
}

/** Self-retrieval reliability of each retriever on a catalog, each a mean reciprocal rank in [0, 1]. */
export interface CatalogTrust {
  dense: number;
  bm25: number;
  /** Tools probed (those with a name phrase and a description sentence). */
  probes: number;
}

/** Fewer probed tools than this say nothing about a catalog: no trust, the gate alone decides. */
export const MIN_PROBES = 5;

/**
 * Measures both retrievers on `tools` (catalog order, as indexed by `bm25`); undefined
 * when fewer than MIN_PROBES tools can be probed.
 */
export function catalogTrust(tools: readonly ToolProbe[], bm25: Bm25Index, dim: number): CatalogTrust | undefined {
  const probed = tools.flatMap((t, i) => (t.name && t.sentence ? [i] : []));
  if (probed.length < MIN_PROBES) return undefined;

  // Dense, name → description: every probe's name against every description row; a tool scores its best row.
  const owners: number[] = [];
  tools.forEach((t, i) => t.description.forEach(() => owners.push(i)));
  const rows = stack(tools.flatMap((t) => t.description), dim);
  const byName = similarities(rows, owners.length, stack(probed.map((i) => tools[i]!.name!.vector), dim), probed.length, dim);
  // Dense, sentence → name: every probe's first sentence against every tool's name phrase.
  const named = tools.flatMap((t, i) => (t.name ? [i] : []));
  const names = stack(named.map((i) => tools[i]!.name!.vector), dim);
  const bySentence = similarities(names, named.length, stack(probed.map((i) => tools[i]!.sentence!.vector), dim), probed.length, dim);

  let dense = 0;
  let lexical = 0;
  const best = new Float32Array(tools.length);
  const sentenceScores = new Float32Array(tools.length);
  probed.forEach((i, q) => {
    best.fill(-Infinity);
    for (let r = 0; r < owners.length; r++) best[owners[r]!] = Math.max(best[owners[r]!]!, byName[q * owners.length + r]!);
    sentenceScores.fill(-Infinity);
    named.forEach((j, r) => (sentenceScores[j] = bySentence[q * named.length + r]!));
    dense += (reciprocalRank(best, i) + reciprocalRank(sentenceScores, i)) / 2;
    lexical += (bm25ReciprocalRank(bm25, tools[i]!.name!.text, 'description', i) + bm25ReciprocalRank(bm25, tools[i]!.sentence!.text, 'name', i)) / 2;
  });
  return { dense: dense / probed.length, bm25: lexical / probed.length, probes: probed.length };
}

/**
 * BM25's share of the fusion vote for a query, from its coverage p and the catalog's
 * trust: the odds p : (1 − p) scaled by bm25 : dense reliability,
 *
 *     p' = p · r_bm25 / (p · r_bm25 + (1 − p) · r_dense)
 *
 * so each retriever's vote is the share of the query it can account for times how
 * reliably it finds this catalog's tools. p = 0 and p = 1 are unchanged; equal
 * reliabilities (or no trust) leave p as it is.
 *
 * ### Usage
 * ```ts
 * bm25Share(0.5, { dense: 0.4, bm25: 0.6, probes: 50 })  // 0.6
 * ```
 */
export function bm25Share(p: number, trust: CatalogTrust | undefined): number {
  if (!trust || p <= 0 || p >= 1) return p;
  const lexical = p * trust.bm25;
  const semantic = (1 - p) * trust.dense;
  return lexical + semantic > 0 ? lexical / (lexical + semantic) : p;
}

/** 1 / rank of `i` by `scores`, rank 1 + the number of other entries scoring at least as much. */
function reciprocalRank(scores: Float32Array, i: number): number {
  const s = scores[i]!;
  if (s === -Infinity) return 0;
  let rank = 1;
  for (let j = 0; j < scores.length; j++) if (j !== i && scores[j]! >= s) rank++;
  return 1 / rank;
}

function bm25ReciprocalRank(bm25: Bm25Index, text: string, field: 'name' | 'description', i: number): number {
  const hits = bm25.query(text, undefined, [field]);
  const own = hits.find((h) => h.index === i);
  if (!own) return 0;
  return 1 / (1 + hits.filter((h) => h.index !== i && h.score >= own.score).length);
}

function stack(vectors: readonly Float32Array[], dim: number): Float32Array {
  const out = new Float32Array(vectors.length * dim);
  vectors.forEach((v, k) => out.set(v, k * dim));
  return out;
}

/** Inner products of every query with every row, query-major (nQueries × nRows). */
function similarities(rows: Float32Array, nRows: number, queries: Float32Array, nQueries: number, dim: number): Float32Array {
  const out = new Float32Array(nQueries * nRows);
  if (nRows === 0 || nQueries === 0) return out;
  const m = exactSearch(rows, queries, dim, nRows, MetricKind.IP, 0);
  // One query gives Matches (keys, distances); several give BatchMatches, k = nRows results per query.
  const { keys, distances } = m;
  for (let q = 0; q < nQueries; q++) {
    for (let r = 0; r < nRows; r++) {
      const at = q * nRows + r;
      // usearch's IP "distance" is 1 − dot.
      out[q * nRows + Number(keys[at])] = 1 - distances[at]!;
    }
  }
  return out;
}
