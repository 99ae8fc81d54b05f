/**
 * Approximate nearest rows for large catalogs: a usearch HNSW graph (Malkov & Yashunin,
 * TPAMI 2020) over the dense index's rows, inner product, vectors stored quantized (i8 by
 * default: a quarter of float32's memory). It only proposes candidates: the dense index
 * rescores every candidate tool's rows exactly in float32 (dense.ts), so a score is never
 * approximate, only the set of tools scored is. docs/PERFORMANCE.md has the recall it
 * loses against exact search.
 *
 * Building inserts rows in chunks and gives the event loop back between them, so a host's
 * requests are served during a build of hundreds of thousands of rows.
 */
import { Index, MetricKind, ScalarKind } from 'usearch';
import { yieldToEventLoop } from './progress.js';
import type { Quantization } from './types.js';

/** Edges per node (usearch's default is 16). */
const CONNECTIVITY = 16;
/** Candidate list size while inserting: graph quality against build time. */
const EXPANSION_ADD = 64;
/** Rows inserted per synchronous chunk (each about 0.1 s on this machine) before the event loop is given back. */
const ADD_CHUNK = 512;

const SCALAR: Record<Quantization, ScalarKind> = { i8: ScalarKind.I8, f16: ScalarKind.F16, f32: ScalarKind.F32 };

export class RowGraph {
  private constructor(private readonly index: Index, readonly rows: number) {}

  /**
   * Inserts the rows `rows` (row numbers of `matrix`, unit vectors of `dim`, row-major) as
   * keys 0, 1, … in that order, in chunks that yield to the event loop. `current()` false
   * stops the build (a newer catalog superseded it): resolves undefined.
   */
  static async build(matrix: Float32Array, dim: number, rows: Int32Array, quantization: Quantization, current: () => boolean = () => true): Promise<RowGraph | undefined> {
    const index = new Index({
      dimensions: dim,
      metric: MetricKind.IP,
      quantization: SCALAR[quantization],
      connectivity: CONNECTIVITY,
      expansion_add: EXPANSION_ADD,
      expansion_search: 64,
      multi: false,
    });
    for (let at = 0; at < rows.length; at += ADD_CHUNK) {
      const end = Math.min(rows.length, at + ADD_CHUNK);
      const keys = new BigUint64Array(end - at);
      const vectors = new Float32Array((end - at) * dim);
      for (let k = 0; k < keys.length; k++) {
        keys[k] = BigInt(at + k);
        const row = rows[at + k]!;
        vectors.set(matrix.subarray(row * dim, (row + 1) * dim), k * dim);
      }
      index.add(keys, vectors, 0);
      await yieldToEventLoop();
      if (!current()) return undefined;
    }
    return new RowGraph(index, rows.length);
  }

  /** The keys of the (about) `k` inserted rows nearest `query`, nearest first. */
  nearest(query: Float32Array, k: number): Int32Array {
    const m = this.index.search(query, Math.min(k, this.rows), 1);
    const out = new Int32Array(m.keys.length);
    for (let r = 0; r < out.length; r++) out[r] = Number(m.keys[r]!);
    return out;
  }
}
