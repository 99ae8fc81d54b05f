/**
 * The curator: indexes a catalog with BM25 and dense embeddings and, per query, returns
 * a short ranked list of the allowed tools. The pipeline and why each stage exists:
 * docs/CURATOR.md. Fail-open throughout: a failing embedder degrades to BM25, a failing
 * index to the whole allowed pool; a user is never left with no tools.
 */
import { passageParts, retrievalFields, retrievalText } from '../catalog/retrievalText.js';
import type { ToolRecord } from '../catalog/types.js';
import type { Embedder } from '../embedding/types.js';
import { log } from '../log.js';
import type { EmbeddingStore } from '../store/embeddings.js';
import { NameAnchor } from './anchor.js';
import { Bm25Index } from './bm25.js';
import { DenseIndex } from './dense.js';
import { embedDocuments } from './embedCache.js';
import { ExactNames } from './exactNames.js';
import { LOW_CONFIDENCE, reserveOf } from './expand.js';
import { explain } from './explain.js';
import { DEFAULT_FUSION, type Fusion } from './fusion.js';
import { withinLimit } from './limit.js';
import { judgeMatch, matchSignals, scriptNotice, weakMatchList } from './noMatch.js';
import { retrieve, shortlistConfidence, type Ranking, type Retrievers } from './retrieve.js';
import { ScriptProfile } from './script.js';
import { assembleShortlist } from './shortlist.js';
import { splitQuery } from './split.js';
import { catalogTrust, type CatalogTrust, type ToolProbe } from './trust.js';
import type { CuratorMode, ExtraContext, Selection, SelectOptions, ToolCurator } from './types.js';

/** Version of the cached catalog trust's key; 2: camelCase splitting and invariant words in tokenize(). */
const TRUST_KEY_VERSION = 2;

/**
 * Default limit: the most tools a selection returns. 17 = the reference system's top_k of
 * 12 for a confident ranking plus the 5 slots (LOW_CONFIDENCE_EXTRA) a flat ranking or a
 * workflow may use (expand.ts reserveOf).
 */
export const DEFAULT_TOP_K = 17;

export interface CuratorOptions {
  /** 'hybrid' (BM25 + dense, gated fusion), 'dense', 'bm25', or 'none' (the whole allowed pool). */
  mode: CuratorMode;
  /**
   * How hybrid mode fuses the two rankings: 'score' (convex combination of the scores,
   * each scaled to [0, 1]) or 'rrf' (Reciprocal Rank Fusion, k = 60, top 50 of each), both
   * with the same gated weights (fusion.ts). Default 'score', the one that measured better
   * on the university suite (docs/CURATOR.md). Explanations carry both scores either way.
   */
  fusion?: Fusion;
  /** Needed by 'dense' and 'hybrid'; with null they run as 'bm25' (logged at buildIndex). */
  embedder: Embedder | null;
  /** Document-embedding cache; without it every buildIndex embeds the whole catalog. */
  cache?: EmbeddingStore;
  /**
   * Shortlist confidence (`Selection.confidence`) under which the shortlist fills the
   * whole limit instead of keeping back its reserve (expand.ts reserveOf). Default
   * LOW_CONFIDENCE (expand.ts, 0.3, measured on the university suite).
   */
  lowConfidenceThreshold?: number;
}

/** What buildDense makes: the dense index, the catalog-trust probes and every text embedded (document, passages per tool). */
interface DenseBuild {
  index: DenseIndex;
  probes: ToolProbe[];
  texts: string[];
}

interface Index extends Retrievers {
  tools: ToolRecord[];
  names: string[];
  byName: Map<string, number>;
  anchor: NameAnchor;
  exact: ExactNames;
  scripts: ScriptProfile;
  deps: Map<number, number[]>;
  pinned: Set<string>;
}

class Curator implements ToolCurator {
  private index: Index | undefined;
  private readonly threshold: number;
  private readonly fusion: Fusion;

  constructor(private readonly options: CuratorOptions) {
    this.threshold = options.lowConfidenceThreshold ?? LOW_CONFIDENCE;
    this.fusion = options.fusion ?? DEFAULT_FUSION;
  }

  get mode(): CuratorMode {
    return this.options.mode;
  }

  get trust(): CatalogTrust | undefined {
    return this.index?.trust;
  }

  async buildIndex(tools: ToolRecord[], extra: ExtraContext = {}): Promise<void> {
    const started = performance.now();
    const names = tools.map((t) => t.name);
    const byName = new Map(names.map((n, i) => [n, i] as const));
    const deps = new Map<number, number[]>();
    for (const [name, needs] of Object.entries(extra.dependencies ?? {})) {
      const i = byName.get(name);
      const found = needs.map((n) => byName.get(n)).filter((j): j is number => j !== undefined);
      if (i !== undefined && found.length > 0) deps.set(i, found);
    }
    const bm25 = new Bm25Index(tools.map((t) => retrievalFields(t, extra.synonyms?.[t.name])));
    const built = await this.buildDense(tools, extra);
    const dense = built?.index ?? null;
    // The catalog trust scales the fusion vote; only hybrid fuses.
    const trust = built && this.mode === 'hybrid' ? this.trustOf(built, bm25) : undefined;
    this.index = {
      tools, names, byName, deps, dense, bm25, trust,
      anchor: new NameAnchor(names),
      exact: new ExactNames(tools),
      scripts: new ScriptProfile(tools.map((t) => retrievalText(t, extra.synonyms?.[t.name]))),
      pinned: new Set(extra.pinned ?? []),
    };
    log.info({ tools: tools.length, mode: this.mode, fusion: this.fusion, dense: dense !== null, trust, ms: Math.round(performance.now() - started) }, 'curator index built');
  }

  /**
   * Embeds each tool's document and passages (passageParts(): name phrase, description
   * sentences, synonyms; then its exemplars) through the cache, one embedder call for
   * everything missing. Returns the dense index and the catalog-trust probes built from
   * the same vectors.
   */
  private async buildDense(tools: ToolRecord[], extra: ExtraContext): Promise<DenseBuild | null> {
    const embedder = this.options.embedder;
    if (this.mode === 'none' || this.mode === 'bm25') return null;
    if (!embedder) {
      log.warn({ mode: this.mode }, 'curator: no embedder configured, running BM25 only');
      return null;
    }
    try {
      const views = tools.map((t) => {
        const parts = passageParts(t, extra.synonyms?.[t.name]);
        const own = [...(parts.name ? [parts.name] : []), ...parts.sentences, ...(parts.synonyms ? [parts.synonyms] : [])];
        return { parts, document: retrievalText(t, extra.synonyms?.[t.name]), passages: [...own, ...(extra.exemplars?.[t.name] ?? [])] };
      });
      const texts = views.flatMap((v) => [v.document, ...v.passages]);
      const { vectors, embedded } = await embedDocuments(embedder, texts, this.options.cache);
      let next = 0;
      const take = (n: number): Float32Array[] => vectors.slice(next, (next += n));
      const perTool = views.map((v) => ({ document: take(1)[0]!, passages: take(v.passages.length) }));
      const probes = views.map(({ parts }, i): ToolProbe => {
        const own = perTool[i]!.passages;
        const first = parts.name ? 1 : 0;
        const description = own.slice(first, first + parts.sentences.length + (parts.synonyms ? 1 : 0));
        return {
          ...(parts.name ? { name: { text: parts.name, vector: own[0]! } } : {}),
          ...(parts.sentences.length > 0 ? { sentence: { text: parts.sentences[0]!, vector: own[first]! } } : {}),
          description,
        };
      });
      log.debug({ embedder: embedder.id, vectors: vectors.length, embedded }, 'curator: document embeddings ready');
      return { index: new DenseIndex(embedder.dim, perTool), probes, texts };
    } catch (err) {
      log.warn({ err, embedder: embedder.id }, 'curator: embedding the catalog failed, running BM25 only');
      return null;
    }
  }

  /**
   * The catalog trust (trust.ts), cached in the embedding store under the embedder id
   * + `#trust`, keyed by every text indexed: measuring it costs about 0.15 s on a
   * 464-tool catalog (the BM25 probes mostly), a cache hit nothing. The key's version
   * (TRUST_KEY_VERSION) changes whenever tokenize() or the probes change what the same
   * texts measure, so a store written by an older build is not trusted.
   */
  private trustOf(built: DenseBuild, bm25: Bm25Index): CatalogTrust | undefined {
    const cache = this.options.cache;
    const id = `${this.options.embedder!.id}#trust`;
    const key = `catalog trust v${TRUST_KEY_VERSION}\n${JSON.stringify(built.texts)}`;
    let stored = cache?.get(id, [key])[0];
    if (!stored) {
      const trust = catalogTrust(built.probes, bm25, built.index.dim);
      // Stored as float32, and used as stored on a cold build too, so a warm one ranks identically.
      stored = Float32Array.of(trust?.dense ?? 0, trust?.bm25 ?? 0, trust?.probes ?? 0);
      cache?.put(id, [{ text: key, vector: stored }]);
    }
    return stored[2]! > 0 ? { dense: stored[0]!, bm25: stored[1]!, probes: stored[2]! } : undefined;
  }

  async select(query: string, allowed: ToolRecord[], options: SelectOptions = {}): Promise<Selection> {
    const topK = options.topK ?? DEFAULT_TOP_K;
    const index = this.index;
    if (!index) {
      log.warn('curator: select() before buildIndex(), returning the allowed pool');
      return passThrough(allowed, 'fallback', options.explain, topK);
    }
    const mask = new Uint8Array(index.tools.length);
    const pool: number[] = [];
    for (const t of allowed) {
      const i = index.byName.get(t.name);
      if (i === undefined || mask[i] === 1 || index.pinned.has(t.name)) continue;
      mask[i] = 1;
      pool.push(i);
    }
    const poolTools = pool.map((i) => index.tools[i]!);
    if (this.mode === 'none' || pool.length <= topK) return passThrough(poolTools, 'passthrough', options.explain);
    if (query.trim() === '') return passThrough(poolTools, 'blank', options.explain, topK);
    try {
      return await this.rank(index, query, mask, pool, topK, options.explain === true);
    } catch (err) {
      log.error({ err }, 'curator: retrieval failed, returning the allowed pool');
      return passThrough(poolTools, 'fallback', options.explain, topK);
    }
  }

  private async rank(index: Index, query: string, mask: Uint8Array, pool: number[], topK: number, wantExplain: boolean): Promise<Selection> {
    const parts = splitQuery(query);
    const texts = parts.length > 1 ? [query, ...parts] : [query];
    const vectors = await this.embedQueries(index, texts);
    const mode = vectors ? (this.mode === 'dense' ? 'dense' : 'hybrid') : 'bm25';
    const rankings: Ranking[] = texts.map((t, k) => retrieve(index, mode, t, vectors?.[k], mask, this.fusion));
    const whole = rankings[0]!;

    // The confident list is the limit less its reserve; confidence compares its head with the first tool it leaves out.
    const confident = topK - reserveOf(topK);
    const confidence = shortlistConfidence(whole.score, confident);
    const named = index.exact.match(query, mask).map((n) => n.index);
    const signals = matchSignals(whole, index.scripts.foreign(query));
    const noMatch = named.length === 0 ? judgeMatch(signals, this.options.embedder?.id) : undefined;
    if (noMatch) {
      const weak = weakMatchList(whole.order, index.tools, topK);
      const selection: Selection = { tools: weak.map((i) => index.tools[i]!), confidence, mode, match: signals, noMatch };
      if (wantExplain) selection.explanations = explain(index.names, weak, weak.map(() => 'weak-match'), whole);
      return selection;
    }

    const assembled = assembleShortlist({
      whole: whole.order,
      parts: rankings.slice(1).map((r) => r.order),
      topK: confident,
      extra: confidence < this.threshold ? topK - confident : 0,
      anchored: index.anchor.match(query, mask).map((a) => a.index),
      pool,
    });
    // Exact names first, in the order the query names them; then the assembled list.
    const ranked = [...named, ...assembled.tools.filter((i) => !named.includes(i))];
    const addedBy = [...named.map(() => 'exact-name'), ...assembled.tools.flatMap((i, k) => (named.includes(i) ? [] : [assembled.addedBy[k]!]))];
    const limited = withinLimit(ranked, addedBy, index.deps, (i) => mask[i] === 1, topK);

    const selection: Selection = { tools: limited.tools.map((i) => index.tools[i]!), confidence, mode, match: signals };
    if (limited.cut.length > 0) selection.cut = limited.cut.map((i) => index.names[i]!);
    const notice = scriptNotice(signals);
    if (notice) selection.notice = notice;
    if (wantExplain) selection.explanations = explain(index.names, limited.tools, limited.addedBy, whole);
    return selection;
  }

  /** Query embeddings for dense/hybrid, or null to run BM25 alone (fail-open). */
  private async embedQueries(index: Index, texts: string[]): Promise<Float32Array[] | null> {
    const embedder = this.options.embedder;
    if (!embedder || !index.dense || this.mode === 'bm25') return null;
    try {
      return await Promise.all(texts.map((t) => embedder.embedQuery(t)));
    } catch (err) {
      log.warn({ err, embedder: embedder.id }, 'curator: query embedding failed, BM25 only for this query');
      return null;
    }
  }
}

/**
 * The pool as given, unranked: no retriever ran. Mode 'none' and a pool within the limit
 * return it whole (confidence 1: nothing left out); a blank query and the fail-open
 * fallbacks return its first `limit` tools in catalog order and name the rest in `cut`.
 */
function passThrough(all: ToolRecord[], why: string, wantExplain?: boolean, limit = Infinity): Selection {
  const tools = all.slice(0, limit);
  const selection: Selection = { tools, confidence: 1, mode: 'none' };
  if (tools.length < all.length) selection.cut = all.slice(limit).map((t) => t.name);
  if (wantExplain) selection.explanations = tools.map((t) => ({ name: t.name, addedBy: why }));
  return selection;
}

/**
 * Creates a curator. Call `buildIndex` once per catalog change, then `select` per query.
 *
 * ### Usage
 * ```ts
 * const curator = createCurator({ mode: 'hybrid', fusion: 'score', embedder: await createEmbedder({ provider: 'use' }),
 *                                 cache: new EmbeddingStore(openDb('.tool-curator/store.db')) });
 * await curator.buildIndex(catalog, { synonyms, dependencies, pinned: ['get_my_profile'] });
 * const { tools, confidence, mode, noMatch, cut } = await curator.select('what do I owe in fees?', policy.allowed(persona), { topK: 17 });
 * // tools: at most 17 ToolRecords best first (pinned excluded; 12 when the ranking is confident); confidence in [0, 1],
 * // low = widen; mode: 'hybrid' unless degraded; noMatch: set when nothing matches well; cut: what the limit left out
 * ```
 */
export function createCurator(options: CuratorOptions): ToolCurator {
  return new Curator(options);
}
