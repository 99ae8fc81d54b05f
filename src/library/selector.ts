/**
 * The curator for applications: index a tool list once, then pick the tools to send with
 * each model call. A thin layer over `createCurator` (the same one the gateway runs) that
 * adds what an app needs around it: the embedder and its SQLite cache from plain options,
 * pinned tools put in front, and an optional catalog order so a prompt cache keeps its
 * prefix. Fail-open like the gateway: no embedder → BM25; a failing index → every tool.
 */
import type { ToolRecord } from '../catalog/types.js';
import { createCurator, DEFAULT_TOP_K } from '../curator/curator.js';
import type { Fusion } from '../curator/fusion.js';
import type { ApproximateOptions, CuratorMode, ExtraContext, Selection, ToolCurator } from '../curator/types.js';
import type { EmbedderConfig } from '../embedding/index.js';
import type { Embedder } from '../embedding/types.js';
import { log } from '../log.js';
import { openStore } from '../store/index.js';
import type { Store } from '../store/types.js';
import { createEmbedder } from './lazy.js';
import { assertUniqueNames } from './tools.js';

export interface ToolSelectorOptions extends Omit<ExtraContext, 'pinned'> {
  /** 'hybrid' (default), 'dense', 'bm25' or 'none' (every tool, no ranking). */
  mode?: CuratorMode;
  /** Hybrid fusion, 'score' (default) or 'rrf' (docs/CURATOR.md). */
  fusion?: Fusion;
  /**
   * Approximate dense search for large catalogs: from `from` tools (default 20,000) an HNSW
   * graph with vectors stored `quantization` (default 'i8') proposes the candidates, each
   * rescored exactly; `{ from: Infinity }` keeps every search exact (docs/PERFORMANCE.md).
   */
  approximate?: Partial<ApproximateOptions>;
  /**
   * An Embedder you built, an embedder config (`{ provider: 'use' }`, `{ provider:
   * 'transformers', model }`, `{ provider: 'openai', baseUrl, model }`…), or null for BM25
   * only. Default `{ provider: 'auto' }`, as in the gateway. An embedder you pass stays
   * yours to close; one built from a config is closed by `close()`.
   */
  embedder?: Embedder | EmbedderConfig | null;
  /**
   * Store for the document-embedding cache: a SQLite file (created if missing) or a
   * PostgreSQL URL (docs/STORE.md), so a restart with the same tools embeds nothing, and
   * processes sharing it embed each text once. Default: no cache (every process embeds its tools once).
   */
  cachePath?: string;
  /** The most tools a selection returns besides pinned ones, dependencies included; default 17 (DEFAULT_TOP_K, the gateway's `top_k`). */
  topK?: number;
  /** Tools sent with every call, in front, whatever the query; they take no ranking slot. */
  pinned?: string[];
  /** Default order of a selection: 'rank' (best first, default) or 'catalog' (the order tools were given). */
  order?: 'rank' | 'catalog';
}

export interface SelectRequest {
  /** Overrides the selector's topK for this query. */
  topK?: number;
  /** Only these tool names may be chosen (a persona's, a user's); default every tool. */
  allowed?: Iterable<string>;
  order?: 'rank' | 'catalog';
  /** Fill `explanations` (dense/BM25 ranks, fused score, mechanism per tool). */
  explain?: boolean;
}

export interface CuratedSelection extends Selection {
  /** Pinned tools that are allowed, in catalog order. */
  pinned: ToolRecord[];
  /** What to send to the model: pinned tools, then the selection, in the requested order. */
  all: ToolRecord[];
  /** Names of `all`, same order. */
  names: string[];
}

function isEmbedder(e: unknown): e is Embedder {
  return typeof e === 'object' && e !== null && typeof (e as Embedder).embedQuery === 'function';
}

export class ToolSelector {
  private records: ToolRecord[] = [];
  private position = new Map<string, number>();

  private constructor(
    private readonly curator: ToolCurator,
    private readonly options: ToolSelectorOptions,
    private readonly owned: { embedder: Embedder | null; store?: Store },
  ) {}

  /**
   * Builds the embedder (if given a config), opens the cache and indexes `tools`.
   * Never throws for an embedder that cannot load: it logs why and ranks with BM25.
   * @throws when two tools share a name (a curated set is keyed by name).
   *
   * ### Usage
   * ```ts
   * const selector = await ToolSelector.create(fromFunctionSpecs(specs), { embedder: { provider: 'use' }, cachePath: '.cache/tools.db' });
   * const { names, confidence } = await selector.select('refund my last order');
   * ```
   */
  static async create(tools: readonly ToolRecord[], options: ToolSelectorOptions = {}): Promise<ToolSelector> {
    assertUniqueNames(tools);
    const mode = options.mode ?? 'hybrid';
    const wantsEmbedder = mode === 'dense' || mode === 'hybrid';
    let embedder: Embedder | null = null;
    let ownsEmbedder = false;
    if (wantsEmbedder) {
      if (isEmbedder(options.embedder)) embedder = options.embedder;
      else if (options.embedder !== null) {
        embedder = await createEmbedder(options.embedder ?? { provider: 'auto' }).catch((err: Error) => {
          log.error({ err: err.message }, 'no embedder could be loaded; the curator falls back to BM25');
          return null;
        });
        ownsEmbedder = true;
      }
    }
    const store = options.cachePath ? await openStore(options.cachePath) : undefined;
    const curator = createCurator({ mode, fusion: options.fusion, approximate: options.approximate, embedder, cache: store?.embeddings });
    const selector = new ToolSelector(curator, options, { embedder: ownsEmbedder ? embedder : null, store });
    await selector.update(tools);
    return selector;
  }

  /** The indexed tools, in the order given. */
  get tools(): readonly ToolRecord[] {
    return this.records;
  }

  /** The mode that ranks ('bm25' when hybrid lost its embedder). */
  get mode(): CuratorMode {
    return this.curator.mode;
  }

  /** Re-indexes after the tool list changed (cached vectors are reused). */
  async update(tools: readonly ToolRecord[]): Promise<void> {
    assertUniqueNames(tools);
    const { synonyms, exemplars, dependencies, pinned } = this.options;
    await this.curator.buildIndex([...tools], { synonyms, exemplars, dependencies, pinned });
    this.records = [...tools];
    this.position = new Map(tools.map((t, i) => [t.name, i]));
  }

  /**
   * The tools for one model call: pinned tools, then at most `topK` ranked tools (the
   * tools their workflow needs, from `dependencies`, included). `noMatch` is set, and only
   * a few read-only tools come back, when nothing matches the query well; `cut` names what
   * the limit left out.
   */
  async select(query: string, request: SelectRequest = {}): Promise<CuratedSelection> {
    const allowedNames = request.allowed ? new Set(request.allowed) : undefined;
    const allowed = allowedNames ? this.records.filter((t) => allowedNames.has(t.name)) : this.records;
    const selection = await this.curator.select(query, allowed, {
      topK: request.topK ?? this.options.topK ?? DEFAULT_TOP_K,
      explain: request.explain,
    });
    const pinnedNames = new Set(this.options.pinned ?? []);
    const pinned = allowed.filter((t) => pinnedNames.has(t.name));
    const chosen = selection.tools.filter((t) => !pinnedNames.has(t.name));
    if ((request.order ?? this.options.order ?? 'rank') === 'catalog') chosen.sort((a, b) => this.position.get(a.name)! - this.position.get(b.name)!);
    const all = [...pinned, ...chosen];
    return { ...selection, pinned, all, names: all.map((t) => t.name) };
  }

  /** Closes what the selector opened (the embedder it built, the cache's store). */
  async close(): Promise<void> {
    await this.owned.embedder?.close();
    await this.owned.store?.close();
  }
}

/** `ToolSelector.create`, as a function. */
export function createToolSelector(tools: readonly ToolRecord[], options?: ToolSelectorOptions): Promise<ToolSelector> {
  return ToolSelector.create(tools, options);
}
