/**
 * The ToolCurator interface: index a catalog once, then select a short, ranked list of
 * tools for each query. Knows nothing about MCP sessions.
 */
import type { ToolRecord } from '../catalog/types.js';

/** Domain knowledge beside the catalog, all optional, keyed by exposed tool name. */
export interface ExtraContext {
  /** Synonym string appended to a tool's retrieval text (domain_synonyms.json). */
  synonyms?: Record<string, string>;
  /** Example phrasings of requests for a tool: dense passages of it (dense.ts), never a verdict on their own. */
  exemplars?: Record<string, string[]>;
  /** Workflow rules: a selected tool pulls in these (dependencies.yaml). */
  dependencies?: Record<string, string[]>;
  /** Always-in-scope tools: never take a retrieval slot. */
  pinned?: string[];
}

export type CuratorMode = 'none' | 'bm25' | 'dense' | 'hybrid';

export interface SelectOptions {
  /** Shortlist size before expansions. Default 12 (the reference system's setting). */
  topK?: number;
  /** Fill `explanations`. Default false (it costs allocations on the hot path). */
  explain?: boolean;
}

/** Why a tool is in the shortlist and how each retriever ranked it. Ranks are 1-based. */
export interface Explanation {
  name: string;
  denseRank?: number;
  /** Dense score in [-1, 1]: (whole-document cosine + best passage cosine) / 2 (dense.ts). */
  denseSimilarity?: number;
  bm25Rank?: number;
  bm25Score?: number;
  /** Fused score in [0, 1] (hybrid, when BM25 matched): (1 − p) × dense + p × BM25, each scaled to [0, 1], p = BM25's query coverage (fusion.ts). */
  fusedScore?: number;
  /**
   * @deprecated The fused score under its name from when fusion was RRF; same value as
   * `fusedScore`. Kept until src/gateway/selectView.ts reads `fusedScore`.
   */
  rrfScore?: number;
  /** The mechanism that put it in the list: 'retrieval', 'anchor', 'split', 'dependency', 'pinned', 'passthrough', 'blank', 'expansion', 'fallback'. */
  addedBy: string;
}

export interface Selection {
  /** Shortlist in rank order (pinned tools are not included; the gateway adds them). */
  tools: ToolRecord[];
  /**
   * Relative gap between the top two fused scores, (s1 - s2) / s1, in [0, 1];
   * 1 when there is a single candidate, 0 when the pool was passed through.
   * A low value tells the caller to widen.
   */
  confidence: number;
  /** The mode that actually ran (e.g. 'bm25' when the embedder failed in hybrid). */
  mode: CuratorMode;
  explanations?: Explanation[];
}

export interface ToolCurator {
  readonly mode: CuratorMode;
  /**
   * Indexes the catalog: retrieval texts, BM25 index, document embeddings (cached).
   * Call once per catalog change. Never throws for an embedder failure: it falls back
   * to BM25 and logs why.
   */
  buildIndex(tools: ToolRecord[], extra?: ExtraContext): Promise<void>;
  /**
   * Ranks `allowed` (a subset of the indexed tools, e.g. a persona's) for `query`.
   * Tools in `allowed` that were not indexed are ignored.
   */
  select(query: string, allowed: ToolRecord[], options?: SelectOptions): Promise<Selection>;
}
