/**
 * Dense retrieval: exact inner-product search (FAISS IndexFlatIP semantics) with usearch
 * over L2-normalized embeddings, so a score is the cosine similarity in [-1, 1].
 * A tool owns one row for its retrieval text and one per exemplar phrasing; its score is
 * the max over its rows, so an exemplar can only pull a tool up, never push it down.
 */
import { exactSearch, MetricKind, type Matches } from 'usearch';

/** Dense ranking of the allowed tools: catalog indices best first, and their similarities. */
export interface DenseRanking {
  indices: Int32Array;
  similarities: Float32Array;
}

export class DenseIndex {
  private readonly matrix: Float32Array;
  private readonly owner: Int32Array;

  /**
   * @param documents one unit vector per tool, in catalog order
   * @param exemplars per tool (same order), extra unit vectors; may be shorter or sparse
   */
  constructor(
    readonly dim: number,
    documents: readonly Float32Array[],
    exemplars: readonly (readonly Float32Array[] | undefined)[] = [],
  ) {
    const rows: Float32Array[] = [];
    const owner: number[] = [];
    documents.forEach((v, i) => {
      rows.push(v);
      owner.push(i);
      for (const e of exemplars[i] ?? []) {
        rows.push(e);
        owner.push(i);
      }
    });
    for (const v of rows) {
      if (v.length !== dim) throw new Error(`Embedding has ${v.length} dimensions, expected ${dim}: rebuild the index with one embedder.`);
    }
    this.matrix = new Float32Array(rows.length * dim);
    rows.forEach((v, r) => this.matrix.set(v, r * dim));
    this.owner = Int32Array.from(owner);
  }

  /** Number of tools indexed. */
  get size(): number {
    return this.owner.length === 0 ? 0 : this.owner[this.owner.length - 1]! + 1;
  }

  /**
   * Every allowed tool ranked by similarity to `query` (a unit vector). All rows are
   * scored (exact search; ~0.1 ms for 1,000 × 512 here), then the first row of each
   * allowed tool is kept, which is its max.
   */
  search(query: Float32Array, allowed?: Uint8Array): DenseRanking {
    const rows = this.owner.length;
    if (rows === 0) return { indices: new Int32Array(0), similarities: new Float32Array(0) };
    const m = exactSearch(this.matrix, query, this.dim, rows, MetricKind.IP, 1) as Matches;
    const seen = new Uint8Array(this.size);
    const indices = new Int32Array(this.size);
    const similarities = new Float32Array(this.size);
    let n = 0;
    for (let r = 0; r < m.keys.length; r++) {
      const tool = this.owner[Number(m.keys[r])]!;
      if (seen[tool] || (allowed && allowed[tool] !== 1)) continue;
      seen[tool] = 1;
      indices[n] = tool;
      // usearch's IP "distance" is 1 − dot.
      similarities[n++] = 1 - m.distances[r]!;
    }
    return { indices: indices.subarray(0, n), similarities: similarities.subarray(0, n) };
  }
}
