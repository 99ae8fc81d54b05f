/**
 * Dense retrieval: exact inner-product search (FAISS IndexFlatIP semantics) with usearch
 * over L2-normalized embeddings, so every similarity is a cosine in [-1, 1].
 *
 * A tool has a whole document (its retrieval text) and short passages (name phrase,
 * description sentences, synonym string, exemplar phrasings). Its score is
 *
 *     (document + max over passages) / 2
 *
 * The whole document keeps the tool's overall topic; the best passage (MaxP, Dai & Callan,
 * SIGIR 2019) is the one statement of purpose that a long description dilutes in a single
 * sentence vector. Averaging the two, unweighted, lets a focused match lift a tool without
 * letting one short text decide alone: a sentence encoder rates two requests alike for
 * their form as much as their intent ("take attendance for CS701, Ananya was absent" is
 * USE Lite's best match for "Arjun finished his degree, shut off his login U2231"), so an
 * exemplar is a passage too, not a verdict. Adding a passage can only raise its tool's
 * score. A tool without passages scores its document alone.
 */
import { exactSearch, MetricKind, type BatchMatches } from 'usearch';
import { RowGraph } from './ann.js';
import type { LearnedPassages } from './learned.js';
import { yieldToEventLoop } from './progress.js';
import type { Quantization } from './types.js';
import { topK } from './topk.js';

/** Dense ranking of the allowed tools: catalog indices best first, and their scores. */
export interface DenseRanking {
  /** The best `depth` scored tools (all of them without a depth), best first; ties in catalog order. */
  indices: Int32Array;
  /** The score above of each of `indices`, in [-1, 1]. */
  similarities: Float32Array;
  /**
   * The allowed tools that were scored, in catalog order: every allowed tool for an exact
   * search; for an approximate one, the graph's candidates, the `extra` tools asked for and
   * an evenly spaced sample of the pool (what the minimum is taken over).
   */
  pool: Int32Array;
  /** The score of every tool, by catalog index (meaningful for `pool` only). */
  score: Float32Array;
  /** Lowest and highest score over the pool (0 for an empty pool). */
  min: number;
  max: number;
  /** True when a graph proposed the tools scored (approximate search); false when every allowed tool was scored. */
  approximate: boolean;
}

/** The unit vectors of one tool's views. */
export interface ToolVectors {
  document: Float32Array;
  passages?: readonly Float32Array[];
}

/**
 * Rows the graph is asked for per tool of the wanted depth: a tool has 3.3 rows on
 * average (document, name phrase, sentences), and its best rows are often neighbours.
 */
const ROWS_PER_WANTED = 3;
/** Fewest rows asked of the graph, however shallow the ranking. */
const MIN_ROWS = 256;
/** When the rows asked for hold too few tools, the graph is asked again for WIDEN times as many, at most MAX_WIDENINGS times. */
const WIDEN = 4;
const MAX_WIDENINGS = 2;
/**
 * Pool tools scored, evenly spaced, besides the candidates in an approximate search: the
 * minimum of the score fusion's [0, 1] scale (fusion.ts) is taken over them, since the
 * candidates are the best tools, not a cross-section.
 */
const FLOOR_SAMPLE = 256;
/** Tools whose rows are copied per synchronous chunk by DenseIndex.create. */
const FILL_CHUNK = 5_000;

export class DenseIndex {
  private readonly matrix: Float32Array;
  /** Rows of tool i are first[i] … first[i + 1] − 1: its document, then its passages. */
  private readonly first: Int32Array;
  /** The tool of each row. */
  private readonly owner: Int32Array;
  private graph: RowGraph | undefined;
  /**
   * The graph holds one row per distinct text (rows with the same text have the same
   * vector, and a graph crowded with identical points loses its way among them): the rows
   * of graph key g are members[memberStart[g] … memberStart[g + 1] − 1].
   */
  private memberStart = new Int32Array(0);
  private members = new Int32Array(0);
  /** Number of tools indexed. */
  readonly size: number;

  /**
   * @param tools the views of each tool, in catalog order
   * @param fill false leaves the rows to `fillRows` (DenseIndex.create fills them in chunks)
   */
  constructor(readonly dim: number, tools: readonly ToolVectors[], fill = true) {
    this.size = tools.length;
    this.first = new Int32Array(tools.length + 1);
    tools.forEach((t, i) => (this.first[i + 1] = this.first[i]! + 1 + (t.passages?.length ?? 0)));
    const rows = this.first[tools.length]!;
    this.matrix = new Float32Array(rows * dim);
    this.owner = new Int32Array(rows);
    if (fill) this.fillRows(tools, 0, tools.length);
  }

  /**
   * The index of `tools`, its rows copied CHUNK tools at a time with the event loop served
   * in between (100,000 tools have 335,000 rows, 650 MiB).
   */
  static async create(dim: number, tools: readonly ToolVectors[]): Promise<DenseIndex> {
    const index = new DenseIndex(dim, tools, false);
    for (let at = 0; at < tools.length; at += FILL_CHUNK) {
      index.fillRows(tools, at, Math.min(tools.length, at + FILL_CHUNK));
      await yieldToEventLoop();
    }
    return index;
  }

  private fillRows(tools: readonly ToolVectors[], from: number, to: number): void {
    for (let i = from; i < to; i++) {
      const t = tools[i]!;
      let row = this.first[i]!;
      const put = (v: Float32Array): void => {
        if (v.length !== this.dim) throw new Error(`Embedding has ${v.length} dimensions, expected ${this.dim}: rebuild the index with one embedder.`);
        this.matrix.set(v, row * this.dim);
        this.owner[row++] = i;
      };
      put(t.document);
      for (const p of t.passages ?? []) put(p);
    }
  }

  /** Rows indexed (documents and passages). */
  get rows(): number {
    return this.owner.length;
  }

  /** Whether searches with a depth go through a graph (buildGraph). */
  get approximate(): boolean {
    return this.graph !== undefined;
  }

  /**
   * Builds the HNSW graph (ann.ts) over one row per distinct text of `rowTexts` (the text
   * of each row; without them every row is its own), in chunks that serve the event loop;
   * from then on a search with a depth is approximate. False when `current()` turned false.
   */
  async buildGraph(quantization: Quantization, current: () => boolean = () => true, rowTexts?: readonly string[]): Promise<boolean> {
    const rows = this.rows;
    // Graph key of each row: one per distinct text (each row its own without texts).
    const key = new Int32Array(rows);
    const representatives: number[] = [];
    const byText = new Map<string, number>();
    for (let row = 0; row < rows; row++) {
      const text = rowTexts?.[row];
      let k = text === undefined ? undefined : byText.get(text);
      if (k === undefined) {
        k = representatives.length;
        representatives.push(row);
        if (text !== undefined) byText.set(text, k);
      }
      key[row] = k;
    }
    const start = new Int32Array(representatives.length + 1);
    for (let row = 0; row < rows; row++) start[key[row]! + 1]!++;
    for (let k = 0; k < representatives.length; k++) start[k + 1]! += start[k]!;
    const fill = start.slice(0, representatives.length);
    const members = new Int32Array(rows);
    for (let row = 0; row < rows; row++) members[fill[key[row]!]!++] = row;
    const graph = await RowGraph.build(this.matrix, this.dim, Int32Array.from(representatives), quantization, current);
    if (!graph) return false;
    this.memberStart = start;
    this.members = members;
    this.graph = graph;
    return true;
  }

  /**
   * The allowed tools ranked by their score for `query` (a unit vector); ties in catalog
   * order. Only the best `depth` are put in order (top-k selection, topk.ts). Default:
   * all, and exact.
   *
   * Exact (no graph, or no depth): every row is scored (~2 ms for 33,000 × 512 rows
   * here) and every allowed tool's score is returned; the order's first `depth` are
   * exactly the full order's. Approximate (a graph and a depth): the graph proposes the
   * tools of the rows nearest the query; those, the `extra` tools (BM25's best, so the
   * fusion has a dense score for them) and an evenly spaced sample of the pool are scored
   * exactly. Too few distinct tools among the rows returned: the graph is asked for more
   * rows (up to 16 times as many); a pool so narrow that they still hold fewer than
   * `depth` of its tools is scored whole instead.
   *
   * `learned`: the query's learned passages (learned.ts), each a passage of its tool for
   * this search only; the tools that have one are scored in an approximate search too.
   */
  search(query: Float32Array, allowed?: Uint8Array, depth = Infinity, extra: ArrayLike<number> = [], learned?: LearnedPassages): DenseRanking {
    if (this.graph && depth < this.size) return this.searchApproximate(this.graph, query, allowed, depth, extra, learned);
    return this.searchExact(query, allowed, depth, learned);
  }

  /**
   * search() for several queries (a compound query and its parts) with one pass over the
   * rows when the search is exact: the same rankings as one search() per query, for about
   * the cost of one. `extra[q]` and `learned[q]` are query q's `extra` and `learned`.
   */
  searchMany(queries: readonly Float32Array[], allowed?: Uint8Array, depth = Infinity, extra: readonly ArrayLike<number>[] = [], learned: readonly (LearnedPassages | undefined)[] = []): DenseRanking[] {
    if ((this.graph && depth < this.size) || queries.length < 2 || this.owner.length === 0) {
      return queries.map((q, k) => this.search(q, allowed, depth, extra[k], learned[k]));
    }
    // Every row against the Q queries (k = Q): for each row its Q distances, nearest first,
    // with the query each belongs to as its key.
    const n = queries.length;
    const stacked = new Float32Array(n * this.dim);
    queries.forEach((q, k) => stacked.set(q, k * this.dim));
    const m = exactSearch(stacked, this.matrix, this.dim, n, MetricKind.IP, 1) as BatchMatches;
    const rows = this.owner.length;
    const distances = queries.map(() => new Float32Array(rows));
    for (let row = 0; row < rows; row++) {
      for (let j = 0; j < n; j++) distances[Number(m.keys[row * n + j]!)]![row] = m.distances[row * n + j]!;
    }
    return distances.map((d, k) => this.rank(d, allowed, depth, learned[k]));
  }

  private searchExact(query: Float32Array, allowed: Uint8Array | undefined, depth: number, learned?: LearnedPassages): DenseRanking {
    if (this.owner.length === 0) return ranking([], new Float32Array(this.size), depth, false);
    // Every row against the one query (k = 1): the distances come back in row order, with
    // no sort of all rows and no key to convert, the same inner products as a search of
    // the query over the rows.
    const m = exactSearch(query, this.matrix, this.dim, 1, MetricKind.IP, 1) as BatchMatches;
    return this.rank(m.distances, allowed, depth, learned);
  }

  /** The exact ranking from every row's distance to the query (usearch's IP "distance", 1 − dot). */
  private rank(distances: Float32Array, allowed: Uint8Array | undefined, depth: number, learned?: LearnedPassages): DenseRanking {
    const tools: number[] = [];
    const score = new Float32Array(this.size);
    for (let i = 0; i < this.size; i++) {
      if (allowed && allowed[i] !== 1) continue;
      // Each row's similarity kept as float32.
      const document = Math.fround(1 - distances[this.first[i]!]!);
      let best = learned ? learned.best[i]! : -Infinity;
      for (let row = this.first[i]! + 1; row < this.first[i + 1]!; row++) best = Math.max(best, Math.fround(1 - distances[row]!));
      score[i] = best === -Infinity ? document : (document + best) / 2;
      tools.push(i);
    }
    return ranking(tools, score, depth, false);
  }

  private searchApproximate(graph: RowGraph, query: Float32Array, allowed: Uint8Array | undefined, depth: number, extra: ArrayLike<number>, learned?: LearnedPassages): DenseRanking {
    const scored = new Uint8Array(this.size);
    const tools: number[] = [];
    const score = new Float32Array(this.size);
    const take = (i: number): void => {
      if (scored[i] === 1 || (allowed && allowed[i] !== 1)) return;
      scored[i] = 1;
      score[i] = this.toolScore(query, i, learned ? learned.best[i]! : -Infinity);
      tools.push(i);
    };
    const pool = allowed ? poolOf(allowed) : undefined;
    const poolSize = pool ? pool.length : this.size;
    const wanted = Math.min(depth, poolSize);
    // Rows of one tool (and tools with identical texts) crowd the nearest rows: ask for
    // more rows while too few distinct allowed tools came back.
    for (let k = Math.max(MIN_ROWS, ROWS_PER_WANTED * depth), asks = 0; ; k *= WIDEN, asks++) {
      for (const g of graph.nearest(query, k)) {
        for (let m = this.memberStart[g]!; m < this.memberStart[g + 1]!; m++) take(this.owner[this.members[m]!]!);
      }
      if (tools.length >= wanted || k >= this.rows || asks === MAX_WIDENINGS) break;
    }
    if (tools.length < wanted) {
      // A narrow pool (a persona allowing few tools) barely shows among the graph's
      // candidates: score the pool whole, or every row when the pool is large.
      if (!pool || pool.length * (this.rows / this.size) > this.rows / 4) return this.searchExact(query, allowed, depth, learned);
      for (const i of pool) take(i);
    }
    for (let k = 0; k < extra.length; k++) take(extra[k]!);
    for (const i of learned?.tools ?? []) take(i);
    const spaced = Math.min(FLOOR_SAMPLE, poolSize);
    for (let k = 0; k < spaced; k++) {
      const at = Math.floor((k * poolSize) / spaced);
      take(pool ? pool[at]! : at);
    }
    tools.sort((a, b) => a - b);
    return ranking(tools, score, depth, true);
  }

  /** A tool's score (document + best passage) / 2 from its rows and its best learned passage `learned`, exactly (float32 vectors, float64 sums). */
  private toolScore(query: Float32Array, i: number, learned: number): number {
    const document = this.dot(query, this.first[i]!);
    let best = learned;
    for (let row = this.first[i]! + 1; row < this.first[i + 1]!; row++) best = Math.max(best, this.dot(query, row));
    return best === -Infinity ? document : (document + best) / 2;
  }

  private dot(query: Float32Array, row: number): number {
    const m = this.matrix;
    const dim = this.dim;
    let at = row * dim;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let j = 0;
    for (; j + 3 < dim; j += 4, at += 4) {
      s0 += m[at]! * query[j]!;
      s1 += m[at + 1]! * query[j + 1]!;
      s2 += m[at + 2]! * query[j + 2]!;
      s3 += m[at + 3]! * query[j + 3]!;
    }
    for (; j < dim; j++, at++) s0 += m[at]! * query[j]!;
    return s0 + s1 + s2 + s3;
  }
}

/** The allowed tools of a mask, in catalog order. */
function poolOf(allowed: Uint8Array): Int32Array {
  let n = 0;
  for (let i = 0; i < allowed.length; i++) n += allowed[i] === 1 ? 1 : 0;
  const out = new Int32Array(n);
  for (let i = 0, k = 0; i < allowed.length; i++) if (allowed[i] === 1) out[k++] = i;
  return out;
}

/** The ranking of the scored `tools` (catalog order): the first `depth` by score, ties in catalog order. */
function ranking(tools: number[], score: Float32Array, depth: number, approximate: boolean): DenseRanking {
  let min = Infinity;
  let max = -Infinity;
  for (const i of tools) {
    min = Math.min(min, score[i]!);
    max = Math.max(max, score[i]!);
  }
  const order = topK(tools, depth, (a, b) => score[a]! > score[b]! || (score[a] === score[b] && a < b));
  return {
    indices: Int32Array.from(order),
    similarities: Float32Array.from(order, (i) => score[i]!),
    pool: Int32Array.from(tools),
    score,
    min: tools.length > 0 ? min : 0,
    max: tools.length > 0 ? max : 0,
    approximate,
  };
}
