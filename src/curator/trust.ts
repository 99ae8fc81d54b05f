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
import { yieldToEventLoop } from './progress.js';

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
 * At most this many tools are probed, an evenly spaced sample of the catalog, so the
 * measurement is linear in the catalog at worst (each probe is one BM25 query and one
 * bounded vector search) and never dominates start-up. 512 covers every public set and
 * the university catalog whole (their trust is exact); above it the mean reciprocal rank
 * is a sample mean (standard error under 0.02 for reciprocal ranks in [0, 1]).
 */
export const MAX_PROBES = 512;

/**
 * At most this many tools, evenly spaced, are the catalog the probes are ranked in (both
 * retrievers see the same ones), so each probe's cost is bounded whatever the catalog's
 * size: 512 probes over 100,000 tools' rows took 40 s. 8,192 covers every public set and
 * the university catalog whole; in a larger catalog the sample keeps its mix of families
 * but has fewer look-alikes per tool, so both reliabilities read higher, alike.
 */
export const MAX_SCOPE = 8_192;

/**
 * Rows of the other side each dense probe looks at (its nearest ones): ranks deeper than
 * this contribute at most 1 / (tools among them) to the mean and are counted as not
 * found. 4,096 rows cover every row of the public sets' catalogs, so there it is exact.
 */
export const PROBE_DEPTH = 4_096;

/** Probes per synchronous chunk before the event loop is given back. */
const PROBE_CHUNK = 16;

/**
 * Measures both retrievers on `tools` (catalog order, as indexed by `bm25`) by
 * self-retrieval of at most MAX_PROBES of them, ranked among at most MAX_SCOPE; undefined when fewer than MIN_PROBES
 * tools can be probed. Yields to the event loop between chunks of probes.
 */
export async function measureTrust(tools: readonly ToolProbe[], bm25: Bm25Index, dim: number): Promise<CatalogTrust | undefined> {
  const scope = sample(tools.map((_, i) => i), MAX_SCOPE);
  const probed = sample(scope.filter((i) => tools[i]!.name && tools[i]!.sentence), MAX_PROBES);
  if (probed.length < MIN_PROBES) return undefined;
  const inScope = scope.length < tools.length ? new Uint8Array(tools.length) : undefined;
  for (const i of inScope ? scope : []) inScope![i] = 1;

  // Dense, name → description: a tool scores its best description row.
  const owners: number[] = [];
  for (const i of scope) tools[i]!.description.forEach(() => owners.push(i));
  const descriptions = new RowSet(stack(scope.flatMap((i) => tools[i]!.description), dim), Int32Array.from(owners), dim);
  // Dense, sentence → name: one name-phrase row per named tool.
  const named = scope.filter((i) => tools[i]!.name);
  const names = new RowSet(stack(named.map((i) => tools[i]!.name!.vector), dim), Int32Array.from(named), dim);

  let dense = 0;
  let lexical = 0;
  for (let at = 0; at < probed.length; at += PROBE_CHUNK) {
    const chunk = probed.slice(at, at + PROBE_CHUNK);
    const byName = descriptions.reciprocalRanks(chunk.map((i) => tools[i]!.name!.vector), chunk);
    const bySentence = names.reciprocalRanks(chunk.map((i) => tools[i]!.sentence!.vector), chunk);
    chunk.forEach((i, q) => {
      dense += (byName[q]! + bySentence[q]!) / 2;
      lexical += (bm25ReciprocalRank(bm25, tools[i]!.name!.text, 'description', i, inScope) + bm25ReciprocalRank(bm25, tools[i]!.sentence!.text, 'name', i, inScope)) / 2;
    });
    await yieldToEventLoop();
  }
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

function bm25ReciprocalRank(bm25: Bm25Index, text: string, field: 'name' | 'description', i: number, scope?: Uint8Array): number {
  const hits = bm25.query(text, scope, [field]);
  const own = hits.find((h) => h.index === i);
  if (!own) return 0;
  return 1 / (1 + hits.filter((h) => h.index !== i && h.score >= own.score).length);
}

function stack(vectors: readonly Float32Array[], dim: number): Float32Array {
  const out = new Float32Array(vectors.length * dim);
  vectors.forEach((v, k) => out.set(v, k * dim));
  return out;
}

/** `items` whole when there are at most `max`, else `max` of them evenly spaced (deterministic). */
function sample<T>(items: readonly T[], max: number): T[] {
  if (items.length <= max) return [...items];
  return Array.from({ length: max }, (_, k) => items[Math.floor((k * items.length) / max)]!);
}

/** Unit-vector rows, each owned by a tool; a tool scores its best row. */
class RowSet {
  private readonly n: number;

  constructor(
    private readonly rows: Float32Array,
    private readonly owner: Int32Array,
    private readonly dim: number,
  ) {
    this.n = owner.length;
  }

  /**
   * For each query vector, 1 / rank of its tool `own[q]` among the tools by best row: rank
   * 1 + the number of other tools whose best row scores at least as much as its own (ties
   * count against it). Only the PROBE_DEPTH nearest rows are looked at; a tool whose best
   * row is not among them scores 0.
   */
  reciprocalRanks(queries: readonly Float32Array[], own: readonly number[]): number[] {
    if (this.n === 0) return queries.map(() => 0);
    const k = Math.min(this.n, PROBE_DEPTH);
    const m = exactSearch(this.rows, stack(queries, this.dim), this.dim, k, MetricKind.IP, 0);
    return queries.map((_, q) => {
      // usearch's IP "distance" is 1 − dot (rounded to float32 as the scores were before); rows come nearest first.
      let mine = -Infinity;
      for (let r = 0; r < k; r++) if (this.owner[Number(m.keys[q * k + r])] === own[q]) { mine = Math.fround(1 - m.distances[q * k + r]!); break; }
      if (mine === -Infinity) return 0;
      const above = new Set<number>();
      for (let r = 0; r < k; r++) {
        const sim = Math.fround(1 - m.distances[q * k + r]!);
        if (sim < mine) break;
        const tool = this.owner[Number(m.keys[q * k + r])]!;
        if (tool !== own[q]) above.add(tool);
      }
      return 1 / (1 + above.size);
    });
  }
}
