/**
 * Learned exemplars: queries after which users of one scope (a persona, within a tenant)
 * called a tool, given to the curator by the gateway's learning from use
 * (gateway/learning.ts decides what evidence is enough). Each one is a dense passage of
 * its tool, exactly like an exemplars.json phrasing, but only for queries of its own
 * scope: the catalog's dense index is shared by every persona, so a scope's learned
 * queries live in a small side index of their own, and select() with that scope lets
 * their similarity to the query stand in for the tool's best passage when it is higher
 * (dense.ts: a tool scores (document + best passage) / 2). A query without a scope, or of
 * another scope, is ranked exactly as if nothing had been learned.
 */
import type { Embedder } from '../embedding/types.js';
import type { EmbeddingCache } from '../store/types.js';
import { embedDocuments } from './embedCache.js';

/** A query that led users of one scope to a tool. */
export interface LearnedExemplar {
  query: string;
  /** Exposed tool name. */
  tool: string;
  /**
   * How much the evidence still counts, in (0, 1]: 1 for fresh evidence, halving with
   * every half-life of age (gateway/learning.ts). The passage's cosine is multiplied by
   * it, so old evidence fades below the tool's own passages instead of ending at once.
   */
  weight: number;
}

/** Learned exemplars by scope (learnedScope() of a persona and tenant). */
export type LearnedExemplars = Record<string, readonly LearnedExemplar[]>;

/**
 * The key of a persona's learned exemplars within a tenant: what the gateway passes as
 * `SelectOptions.learnedScope` and as the key of `ToolCurator.learn`'s map.
 */
export function learnedScope(persona: string | undefined, tenant = ''): string {
  return `${tenant}\u0000${persona ?? ''}`;
}

/** One scope's passages: unit vectors, the catalog index each belongs to and its weight. */
interface ScopeRows {
  vectors: Float32Array;
  owner: Int32Array;
  weight: Float32Array;
  /** The tools with at least one passage, ascending. */
  tools: Int32Array;
}

/** Per query vector: each tool's best learned passage similarity (−∞ without one), and which tools have one. */
export interface LearnedPassages {
  best: Float32Array;
  tools: Int32Array;
}

export class LearnedIndex {
  private constructor(
    private readonly size: number,
    private readonly dim: number,
    private readonly scopes: ReadonlyMap<string, ScopeRows>,
  ) {}

  /** Scopes with at least one passage on a tool of the index. */
  get scopeCount(): number {
    return this.scopes.size;
  }

  /**
   * Embeds every learned query through the cache (as exemplars are: document
   * embeddings) and keeps those whose tool the index has.
   * @param byName exposed name → catalog index of the index the passages are for
   * @throws what the embedder throws (the caller keeps the previous learned index)
   */
  static async build(learned: LearnedExemplars, byName: ReadonlyMap<string, number>, size: number, embedder: Embedder, cache?: EmbeddingCache): Promise<LearnedIndex> {
    const kept = Object.entries(learned).map(([scope, list]) => [scope, list.filter((e) => byName.has(e.tool) && e.weight > 0)] as const).filter(([, list]) => list.length > 0);
    const { vectors } = await embedDocuments(embedder, kept.flatMap(([, list]) => list.map((e) => e.query)), cache);
    let next = 0;
    const scopes = new Map<string, ScopeRows>();
    for (const [scope, list] of kept) {
      const rows: ScopeRows = {
        vectors: new Float32Array(list.length * embedder.dim),
        owner: Int32Array.from(list, (e) => byName.get(e.tool)!),
        weight: Float32Array.from(list, (e) => Math.min(1, e.weight)),
        tools: new Int32Array(0),
      };
      list.forEach((_, k) => rows.vectors.set(vectors[next++]!, k * embedder.dim));
      rows.tools = Int32Array.from(new Set(rows.owner)).sort();
      scopes.set(scope, rows);
    }
    return new LearnedIndex(size, embedder.dim, scopes);
  }

  /** The learned passages of `scope` scored against `query` (a unit vector); undefined when the scope has none. */
  passages(scope: string | undefined, query: Float32Array): LearnedPassages | undefined {
    const rows = scope === undefined ? undefined : this.scopes.get(scope);
    if (!rows || query.length !== this.dim) return undefined;
    const best = new Float32Array(this.size).fill(-Infinity);
    for (let k = 0; k < rows.owner.length; k++) {
      let dot = 0;
      for (let j = 0, at = k * this.dim; j < this.dim; j++, at++) dot += rows.vectors[at]! * query[j]!;
      const i = rows.owner[k]!;
      best[i] = Math.max(best[i]!, Math.fround(dot * rows.weight[k]!));
    }
    return { best, tools: rows.tools };
  }
}
