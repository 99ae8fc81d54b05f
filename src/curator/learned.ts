/**
 * Learned exemplars: queries after which users of one scope (a persona, within a tenant)
 * called a tool, given to the curator by the gateway's learning from use
 * (learning/learning.ts decides what evidence is enough). They count only for queries of
 * their own scope: the catalog's indexes are shared by every persona, so a scope's learned
 * queries live in small side indexes of their own, used by select() with that scope.
 * - Dense (LearnedIndex): each one is a passage of its tool, exactly like an exemplars.json
 *   phrasing: its similarity to the query stands in for the tool's best passage when it is
 *   higher (dense.ts: a tool scores (document + best passage) / 2).
 * - BM25 (LearnedTerms): each tool's learned queries are one more field of it, scored with
 *   its own statistics over the whole catalog and added to the tool's BM25 score, as
 *   BM25 sums its fields (bm25.ts); it works without an embedder too.
 * A query without a scope, or of another scope, is ranked exactly as if nothing had been
 * learned.
 */
import type { Embedder } from '../embedding/types.js';
import { Bm25Index, type Bm25Hit } from './bm25.js';
import { yieldToEventLoop } from './progress.js';

/** Tools per synchronous chunk of a scope's BM25 field (build.ts indexes the catalog in the same steps). */
const CHUNK = 2_000;
import type { EmbeddingCache } from '../store/types.js';
import { embedDocuments } from './embedCache.js';

/** A query that led users of one scope to a tool. */
export interface LearnedExemplar {
  query: string;
  /** Exposed tool name. */
  tool: string;
  /**
   * How much the evidence still counts, in (0, 1]: 1 for fresh evidence, halving with
   * every half-life of age (learning/learning.ts). The passage's cosine is multiplied by
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

/**
 * Cosine under which a learned query says nothing about a query, per embedder id prefix:
 * learned queries are queries, and a query resembles other queries more than tool texts
 * (USE Lite: unrelated short requests often reach 0.4), so without a floor every learned
 * passage lifts its tool a little on every request. Embedders not listed get none.
 *
 * Source: replays of eval/university.yaml (hybrid, 245 learned exemplars from its traffic
 * half, test half Correct: 189 of 195 with no floor, 191 with 0.5 or 0.6, 190 with 0.7)
 * and eval/dev-learning.yaml (hybrid, top_k 3: 20 of 24 with no floor, 19 with 0.5 or
 * 0.6, 18 with 0.7), measured 2026-12-02; 0.5 is the lowest floor that stops the
 * university regressions.
 */
export const LEARNED_SIMILARITY: Readonly<Record<string, number>> = {
  'use:': 0.5,
};

function floorFor(embedderId: string): number {
  const key = Object.keys(LEARNED_SIMILARITY).find((prefix) => embedderId.startsWith(prefix));
  return key === undefined ? -Infinity : LEARNED_SIMILARITY[key]!;
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
    /** Learned passages less similar to the query than this are ignored (LEARNED_SIMILARITY). */
    private readonly floor: number,
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
    return new LearnedIndex(size, embedder.dim, scopes, floorFor(embedder.id));
  }

  /** The learned passages of `scope` scored against `query` (a unit vector), those under the floor left out; undefined when the scope has none. */
  passages(scope: string | undefined, query: Float32Array): LearnedPassages | undefined {
    const rows = scope === undefined ? undefined : this.scopes.get(scope);
    if (!rows || query.length !== this.dim) return undefined;
    const best = new Float32Array(this.size).fill(-Infinity);
    for (let k = 0; k < rows.owner.length; k++) {
      let dot = 0;
      for (let j = 0, at = k * this.dim; j < this.dim; j++, at++) dot += rows.vectors[at]! * query[j]!;
      const i = rows.owner[k]!;
      if (dot < this.floor) continue;
      best[i] = Math.max(best[i]!, Math.fround(dot * rows.weight[k]!));
    }
    return { best, tools: rows.tools };
  }
}

/**
 * The BM25 side of learned exemplars: per scope, a BM25 index over the whole catalog in
 * which a tool's text is its learned queries (empty for the others), so document
 * frequencies and lengths are those of a field of the catalog. No spelling correction:
 * the main index corrects the query's typos already.
 */
export class LearnedTerms {
  private constructor(private readonly scopes: ReadonlyMap<string, Bm25Index>) {}

  /**
   * The learned queries of each scope whose tool `byName` has, as a field of a `size`-tool
   * catalog; indexed in chunks so requests are served in between (a scope of a
   * 100,000-tool catalog takes about half a second).
   */
  static async build(learned: LearnedExemplars, byName: ReadonlyMap<string, number>, size: number): Promise<LearnedTerms | undefined> {
    const scopes = new Map<string, Bm25Index>();
    for (const [scope, list] of Object.entries(learned)) {
      const texts = new Map<number, string[]>();
      for (const e of list) {
        const i = byName.get(e.tool);
        if (i !== undefined && e.weight > 0) texts.set(i, [...(texts.get(i) ?? []), e.query]);
      }
      if (texts.size === 0) continue;
      const index = new Bm25Index([], { spelling: false });
      for (let at = 0; at < size; at += CHUNK) {
        const docs = Array.from({ length: Math.min(CHUNK, size - at) }, (_, k) => ({ name: '', description: texts.get(at + k)?.join('. ') ?? '', parameters: '' }));
        index.add(docs, at);
        await yieldToEventLoop();
      }
      scopes.set(scope, index);
    }
    return scopes.size > 0 ? new LearnedTerms(scopes) : undefined;
  }

  /**
   * `hits` (the catalog BM25's, best first) with each tool's learned-field score added and
   * its learned terms merged in; tools only the learned field matches are added. The same
   * array when the scope has nothing learned or nothing of it matches.
   */
  merge(scope: string | undefined, text: string, allowed: Uint8Array, hits: Bm25Hit[]): Bm25Hit[] {
    const index = scope === undefined ? undefined : this.scopes.get(scope);
    const learned = index?.query(text, allowed) ?? [];
    if (learned.length === 0) return hits;
    const merged = new Map(hits.map((h) => [h.index, { ...h }]));
    for (const l of learned) {
      const h = merged.get(l.index);
      if (!h) merged.set(l.index, { ...l });
      else {
        h.score += l.score;
        h.terms = [...new Set([...h.terms, ...l.terms])];
        h.viaSynonym = h.viaSynonym.filter((t) => !h.terms.includes(t));
      }
    }
    // Stable: equal scores keep the catalog BM25's order, then the learned field's.
    return [...merged.values()].sort((a, b) => b.score - a.score);
  }
}
