/**
 * The ToolCurator interface: index a catalog once, then select a short, ranked list of
 * tools for each query. Knows nothing about MCP sessions.
 */
import type { ToolRecord } from '../catalog/types.js';
import type { LearnedExemplars } from './learned.js';
import type { CatalogTrust } from './trust.js';

/** Domain knowledge beside the catalog, all optional, keyed by exposed tool name. */
/**
 * Mechanisms of the ranked pipeline that `CuratorOptions.off` can switch off, to measure
 * each one's share (docs/EVAL.md): `servers` (server-level evidence for multi-step
 * requests, servers.ts), `lexical` (confident lexical hits of long requests, lexical.ts),
 * `lexical-head` (BM25's confident head of the whole query kept first, in BM25's order, lexical.ts),
 * `result-steps` (a save/send/post step split off as a part of its own, split.ts),
 * `spelling` (query terms the catalog lacks spelling-corrected, typos.ts),
 * `gloss` (English glosses of tool texts written in Chinese, gloss.ts),
 * `language` (a request whose words neither the catalog nor an English-only embedder reads is no match, language.ts).
 */
export const MECHANISMS = ['servers', 'lexical', 'lexical-head', 'result-steps', 'spelling', 'gloss', 'language'] as const;
export type Mechanism = (typeof MECHANISMS)[number];

export interface ExtraContext {
  /** Synonym string appended to a tool's retrieval text (domain_synonyms.json). */
  synonyms?: Record<string, string>;
  /** English gloss of a tool's Chinese text (gloss.ts): indexed by BM25 beside the synonyms, never embedded (a list of dictionary senses is not a sentence). */
  glosses?: Record<string, string>;
  /** Example phrasings of requests for a tool: dense passages of it (dense.ts), never a verdict on their own. */
  exemplars?: Record<string, string[]>;
  /** Workflow rules: a selected tool pulls in these (dependencies.yaml). */
  dependencies?: Record<string, string[]>;
  /** Always-in-scope tools: never take a retrieval slot. */
  pinned?: string[];
}

export type CuratorMode = 'none' | 'bm25' | 'dense' | 'hybrid';

export type { Fusion } from './fusion.js';

export interface SelectOptions {
  /**
   * The most tools returned, whatever added them (retrieval, split parts, exact names,
   * anchors, dependencies); what did not fit is reported in `Selection.cut`. Default 12
   * (the reference system's setting).
   */
  topK?: number;
  /** Fill `explanations`. Default false (it costs allocations on the hot path). */
  explain?: boolean;
  /**
   * Whose learned exemplars count for this query (learned.ts learnedScope(persona,
   * tenant); the gateway passes its session's). Default none: the ranking is exactly the
   * one without learning.
   */
  learnedScope?: string;
}

/** Why a tool is in the shortlist and how each retriever ranked it. Ranks are 1-based. */
export interface Explanation {
  name: string;
  denseRank?: number;
  /** Dense score in [-1, 1]: (whole-document cosine + best passage cosine) / 2 (dense.ts). */
  denseSimilarity?: number;
  bm25Rank?: number;
  bm25Score?: number;
  /** The best similarity of the query to a learned exemplar of the tool in the query's scope, times its weight (learned.ts); absent without one. */
  learnedSimilarity?: number;
  /**
   * RRF score (Cormack et al., SIGIR 2009; k = 60, top 50 of each list), with the fusion
   * gate's weights: (1 − p) / (60 + denseRank) + p / (60 + bm25Rank), p = BM25's share
   * (a list's term is 0 past its rank 50; one retriever alone: 1 / (60 + rank)). At most
   * 1/61. Computed whichever fusion ranked.
   */
  rrfScore?: number;
  /**
   * The score the ranking used: with fusion 'score' the score fusion's value in [0, 1],
   * (1 − p) × dense + p × BM25, each scaled to [0, 1] over the allowed pool (one retriever
   * alone: its own score so scaled); in hybrid mode with fusion 'rrf' equal to
   * `rrfScore` (fusion.ts).
   */
  fusedScore?: number;
  /**
   * The mechanism that put it in the list: 'retrieval', 'exact-name', 'anchor', 'lexical' (a sentence that
   * names it to BM25, lexical.ts), 'lexical-head' (BM25's confident head of the whole query, lexical.ts), 'split', 'dependency',
   * 'pinned', 'passthrough', 'blank', 'expansion', 'fallback', 'weak-match' (a no-match's nearest tools).
   */
  addedBy: string;
}

export interface Selection {
  /** Shortlist in rank order (pinned tools are not included; the gateway adds them). */
  tools: ToolRecord[];
  /**
   * How clearly the shortlist's head stands above what was left out, in [0, 1]: the best
   * score-fusion score minus the best one a confident list leaves out (the
   * (topK − reserveOf(topK) + 1)-th; expand.ts), on the score fusion's [0, 1] scale,
   * whichever fusion ranked (retrieve.ts `shortlistConfidence`). Low means the ranking is
   * flat around the cut and the caller should widen (a larger topK, or ask the user);
   * docs/CURATOR.md gives its distribution for Correct and missed shortlists on the
   * university suite and the cut below which misses concentrate. 1 when the shortlist is the
   * whole allowed pool (nothing left out: pool no larger than topK, blank query, mode
   * 'none', fallback).
   */
  confidence: number;
  /**
   * The retrievers that actually answered: 'hybrid' (BM25 and dense), 'dense', 'bm25'
   * (the embedder failed, or the dense index is still being built) or 'none' (no ranking).
   */
  mode: CuratorMode;
  explanations?: Explanation[];
  /** The evidence the query gave each retriever (absent when no retriever ran: pass-through, blank, fallback). */
  match?: MatchSignals;
  /**
   * Set when nothing matches the query well (noMatch.ts): `tools` is then at most 3
   * read-only tools, the nearest, and `message` says so and how to rephrase.
   */
  noMatch?: NoMatch;
  /** A note for the caller, e.g. that a query in another script matched only through the embedding model. */
  notice?: string;
  /**
   * Tools the ranking or a workflow wanted that the limit (topK) cut, best first; absent
   * when nothing was cut. Ask again with topK ≥ tools.length + cut.length to get them.
   */
  cut?: string[];
}

/** What the query gave each retriever: the no-match judgement's input (noMatch.ts). */
export interface MatchSignals {
  /** BM25's IDF-weighted coverage of the query by its best hit, in [0, 1]; 0 when no term matched. */
  coverage: number;
  /** Best dense score among the allowed tools, in [-1, 1]; absent without a dense ranking. */
  denseTop?: number;
  /** Median dense score of the allowed tools, when BM25 matched no word (the no-match rule's separation reads it; noMatch.ts). */
  denseMedian?: number;
  /** Scripts of the query that the catalog does not use, when most of its letters are in them (script.ts). */
  foreignScripts?: string[];
  /**
   * Share of the query's Latin-script words, in [0, 1], that the catalog's terms or, for an
   * embedder that reads English only, an English dictionary account for (language.ts);
   * absent for other embedders and for a query without such words.
   */
  readable?: number;
}

export interface NoMatch {
  /**
   * 'script': written in a script the catalog lacks and no dense match; 'language': most of
   * its words are neither the catalog's nor words the embedder reads; 'no-match': no lexical
   * and no dense evidence.
   */
  reason: 'script' | 'language' | 'no-match';
  /** Plain sentence for the host's model or the user: what happened and how to rephrase. */
  message: string;
}

export interface ToolCurator {
  readonly mode: CuratorMode;
  /**
   * The catalog trust the last buildIndex measured (hybrid only; trust.ts): each
   * retriever's self-retrieval reliability, which scales the fusion vote. Undefined
   * before buildIndex, outside hybrid mode, without dense vectors or with fewer than 5
   * probed tools.
   */
  readonly trust?: CatalogTrust;
  /**
   * Indexes the catalog: retrieval texts, BM25 index, document embeddings (cached, stored
   * batch by batch as computed), catalog trust. Call once per catalog change; resolves
   * when every retriever is built. BM25 is published first (`whenSearchable`), so select()
   * answers from BM25 (`Selection.mode` 'bm25') while the vectors are computed, and from
   * both once they are ready. Never throws for an embedder or trust failure: it falls
   * back to BM25 (or to the gate without trust) and logs why.
   */
  buildIndex(tools: ToolRecord[], extra?: ExtraContext): Promise<void>;
  /**
   * Resolves as soon as the latest buildIndex can answer select() (its BM25 index is
   * built: seconds, where the dense index of a cold catalog may take minutes), or has
   * failed (select() then returns the allowed pool). Resolves at once when no build is
   * under way.
   */
  whenSearchable(): Promise<void>;
  /**
   * Ranks `allowed` (a subset of the indexed tools, e.g. a persona's) for `query`.
   * Tools in `allowed` that were not indexed are ignored. The pool an array stands for
   * is computed once per index (O(catalog)) and kept while the array lives: pass the same
   * array for the same list, and a new array, never a changed one, for another.
   */
  select(query: string, allowed: ToolRecord[], options?: SelectOptions): Promise<Selection>;
  /**
   * Replaces the learned exemplars (learning from use; learned.ts): per scope, queries
   * after which that scope's users called a tool, each a BM25 field and a dense passage
   * of its tool for select() calls of that scope only (SelectOptions.learnedScope).
   * Queries are embedded through the cache. Applied to the current index (resolves when
   * in use) and to every index built later; without an embedder, BM25 only. Never throws:
   * a failure to embed them is logged and the dense ranking stays without them.
   */
  learn(learned: LearnedExemplars): Promise<void>;
}

/** How the approximate index's graph stores vectors (ann.ts). */
export const QUANTIZATIONS = ['i8', 'f16', 'f32'] as const;
export type Quantization = (typeof QUANTIZATIONS)[number];

/** When the dense stage searches a graph instead of every row, and how the graph stores vectors (ann.ts). */
export interface ApproximateOptions {
  /** Catalogs of at least this many tools get a graph; smaller ones are searched exactly. */
  from: number;
  quantization: Quantization;
}

/**
 * Default: a graph from 20,000 tools on, i8. Below it the exact scan is fast enough
 * (about 2 ms of inner products at 10,000 tools here) and costs no start-up; above it
 * the scan grows linearly while the graph's search stays near a millisecond.
 */
export const DEFAULT_APPROXIMATE: ApproximateOptions = { from: 20_000, quantization: 'i8' };
