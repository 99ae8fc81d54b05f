/**
 * The curator: indexes a catalog with BM25 and dense embeddings and, per query, returns
 * a short ranked list of the allowed tools. The pipeline and why each stage exists:
 * docs/CURATOR.md. Fail-open throughout: a failing embedder degrades to BM25, a failing
 * index to the whole allowed pool; a user is never left with no tools.
 */
import type { ToolRecord } from '../catalog/types.js';
import type { Embedder } from '../embedding/types.js';
import { log } from '../log.js';
import type { EmbeddingCache } from '../store/types.js';
import { NameAnchor } from './anchor.js';
import { buildBm25, buildDense, buildFields, buildLookups, cachedTrust } from './build.js';
import { ExactNames } from './exactNames.js';
import { LOW_CONFIDENCE, LOW_CONFIDENCE_EXTRA, reserveOf } from './expand.js';
import { explain } from './explain.js';
import { catalogGlosses } from './gloss.js';
import { bm25Coverage, DEFAULT_FUSION, type Fusion } from './fusion.js';
import { withinLimit } from './limit.js';
import { confidentLexicalHead, confidentLexicalHits, requestSentences } from './lexical.js';
import { LearnedIndex, LearnedTerms, type LearnedExemplars } from './learned.js';
import { readableShare, readerFor, type QueryReader } from './language.js';
import { judgeMatch, matchSignals, scriptNotice, weakMatchList } from './noMatch.js';
import { retrieveAll, shortlistConfidence, type Ranking, type Retrievers } from './retrieve.js';
import { assembleShortlist } from './shortlist.js';
import { MAX_PARTS, splitQuery } from './split.js';
import type { ProgressListener } from './progress.js';
import { ScriptProfile } from './script.js';
import { ServerMap } from './servers.js';
import { contentTerms, identifierWords, literalTerms } from './tokenize.js';
import type { CatalogTrust } from './trust.js';
import { DEFAULT_APPROXIMATE, type ApproximateOptions, type CuratorMode, type ExtraContext, type Mechanism, type Selection, type SelectOptions, type ToolCurator } from './types.js';

/**
 * Default limit: the most tools a selection returns. 17 = the reference system's top_k of
 * 12 for a confident ranking plus the 5 slots (LOW_CONFIDENCE_EXTRA) a flat ranking or a
 * workflow may use (expand.ts reserveOf).
 */
export const DEFAULT_TOP_K = 17;

/**
 * Catalogs of at least this many tools get their first answers from BM25 before the
 * name and script lookups are built (build.ts buildLookups: ~0.3 s at 20,000 tools, ~1.5 s
 * at 100,000), so a host's first find_tools does not wait for them.
 */
export const LATE_LOOKUPS_FROM = 20_000;

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
  /**
   * Needed by 'dense' and 'hybrid'; with null they run as 'bm25' (logged at buildIndex).
   * May be a promise (an embedder still loading): BM25 answers meanwhile.
   */
  embedder: Embedder | null | Promise<Embedder | null>;
  /** Document-embedding cache; without it every buildIndex embeds the whole catalog. */
  cache?: EmbeddingCache;
  /**
   * Shortlist confidence (`Selection.confidence`) under which the shortlist fills the
   * whole limit instead of keeping back its reserve (expand.ts reserveOf). Default
   * LOW_CONFIDENCE (expand.ts, 0.3, measured on the university suite).
   */
  lowConfidenceThreshold?: number;
  /** Called as document embeddings are computed during buildIndex (count, rate, ETA); a log line goes to stderr anyway. */
  onProgress?: ProgressListener;
  /**
   * Approximate dense search (HNSW, ann.ts) for catalogs of at least `from` tools, with
   * vectors stored `quantization` in the graph; scores stay exact. Default
   * DEFAULT_APPROXIMATE (from 20,000 tools, i8). `{ from: Infinity }`: always exact.
   */
  approximate?: Partial<ApproximateOptions>;
  /** Mechanisms switched off (types.ts MECHANISMS), to measure each one's share; default none. */
  off?: readonly Mechanism[];
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
  /** The pool of each `allowed` array select() was given (the gateway passes one array per persona): a mask costs O(catalog) to build. */
  pools: WeakMap<readonly ToolRecord[], Pool>;
  /** The learned exemplars of each scope, as passages of this index's tools (learned.ts); absent without a dense index or without any. */
  learned?: LearnedIndex;
  /** The learned exemplars of each scope as a BM25 field of this index's tools (learned.ts); absent without any. */
  learnedTerms?: LearnedTerms;
  /** English words and the catalog's language, with the dense index of an embedder that reads only English (language.ts); the no-match rule reads them. */
  reader?: QueryReader;
}

/** An allowed list in catalog terms: the mask retrieveAll() reads, its indices and records (pinned and unknown tools left out). */
interface Pool {
  mask: Uint8Array;
  indices: number[];
  tools: ToolRecord[];
}

class Curator implements ToolCurator {
  private index: Index | undefined;
  private readonly threshold: number;
  private readonly fusion: Fusion;
  /** The embedder once loaded (null: none, or it failed to load). */
  private embedder: Embedder | null = null;
  private readonly embedderLoaded: Promise<Embedder | null>;
  /** Bumped by every buildIndex; a build that is no longer the latest publishes nothing. */
  private generation = 0;
  private searchableGeneration = 0;
  private searchableWaiters: (() => void)[] = [];
  /** The latest learn() input: applied to every index built from now on. */
  private learnedInput: LearnedExemplars = {};
  private readonly off: ReadonlySet<Mechanism>;

  constructor(private readonly options: CuratorOptions) {
    this.threshold = options.lowConfidenceThreshold ?? LOW_CONFIDENCE;
    this.fusion = options.fusion ?? DEFAULT_FUSION;
    this.off = new Set(options.off ?? []);
    this.embedderLoaded = Promise.resolve(options.embedder).then(
      (e) => (this.embedder = e),
      (err: unknown) => {
        log.warn({ err }, 'curator: the embedder failed to load, running BM25 only');
        return null;
      },
    );
  }

  get mode(): CuratorMode {
    return this.options.mode;
  }

  get trust(): CatalogTrust | undefined {
    return this.index?.trust;
  }

  whenSearchable(): Promise<void> {
    if (this.searchableGeneration === this.generation) return Promise.resolve();
    return new Promise((resolve) => this.searchableWaiters.push(resolve));
  }

  /**
   * Builds in three steps, each published as soon as it is ready so select() never waits
   * for the slower ones: BM25 (select() answers in mode 'bm25' from here on), then the dense
   * index (mode 'hybrid' / 'dense'), then the catalog trust. A later buildIndex supersedes
   * this one: nothing more of this one is published.
   */
  async buildIndex(tools: ToolRecord[], given: ExtraContext = {}): Promise<void> {
    const started = performance.now();
    const generation = ++this.generation;
    const current = () => generation === this.generation;
    try {
      const extra = this.off.has('gloss') ? given : withGlosses(given, await catalogGlosses(tools));
      if (!current()) return;
      const names = tools.map((t) => t.name);
      const byName = new Map(names.map((n, i) => [n, i] as const));
      const deps = new Map<number, number[]>();
      for (const [name, needs] of Object.entries(extra.dependencies ?? {})) {
        const i = byName.get(name);
        const found = needs.map((n) => byName.get(n)).filter((j): j is number => j !== undefined);
        if (i !== undefined && found.length > 0) deps.set(i, found);
      }
      const fields = await buildFields(tools, extra);
      const bm25 = await buildBm25(tools, extra, fields, !this.off.has('spelling'));
      if (!current()) return;
      // On a large catalog BM25 answers first and the name and script lookups join a moment
      // later (about a second at 100,000 tools): until then no query is taken for a tool
      // name or a foreign script. A smaller one answers with them from the start.
      const late = tools.length >= LATE_LOOKUPS_FROM;
      const lookups = late ? { anchor: new NameAnchor(), exact: new ExactNames(), scripts: new ScriptProfile() } : await buildLookups(tools, fields);
      if (!current()) return;
      const learnedTerms = await this.learnedTerms(byName, tools.length);
      if (!current()) return;
      // Published with no wait since the learned terms were built: they are the latest learn()'s.
      const servers = this.off.has('servers') ? undefined : ServerMap.build(tools, fields);
      let base: Index = {
        tools, names, byName, deps, bm25, dense: null, ...lookups, ...(servers && { servers }),
        ...(learnedTerms && { learnedTerms }),
        pinned: new Set(extra.pinned ?? []),
        pools: new WeakMap(),
      };
      this.index = base;
      this.markSearchable(generation);
      if (late) {
        const lookups = await buildLookups(tools, fields);
        if (!current()) return;
        // Spread from the published index: a learn() meanwhile may have replaced its learned terms.
        base = { ...(this.index ?? base), ...lookups };
        this.index = base;
      }
      if (this.mode === 'none' || this.mode === 'bm25') return;
      log.info({ tools: tools.length, ms: Math.round(performance.now() - started) }, 'curator: BM25 ready, building the dense index');
      const embedder = await this.embedderLoaded;
      if (!embedder) {
        log.warn({ mode: this.mode }, 'curator: no embedder configured, running BM25 only');
        return;
      }
      let built;
      try {
        const approximate = { ...DEFAULT_APPROXIMATE, ...this.options.approximate };
        built = await buildDense(embedder, tools, extra, this.options.cache, this.options.onProgress, approximate, current);
      } catch (err) {
        log.warn({ err, embedder: embedder.id }, 'curator: embedding the catalog failed, running BM25 only');
        return;
      }
      const reader = this.off.has('language') ? undefined : readerFor(embedder.id, tools.map((t) => t.description));
      if (!current()) return;
      // Embedded for the latest learn() input: one that came while embedding is embedded again.
      let input: LearnedExemplars;
      let learned: LearnedIndex | undefined;
      do {
        input = this.learnedInput;
        learned = await this.learnedIndex(base.byName, tools.length, embedder);
      } while (input !== this.learnedInput && current());
      if (!current()) return;
      // Spread from the published index: a learn() meanwhile may have replaced its learned terms.
      this.index = { ...(this.index ?? base), dense: built.index, ...(learned && { learned }), ...(reader && { reader }) };
      if (this.mode !== 'hybrid') return;
      // The catalog trust scales the fusion vote; only hybrid fuses. Without it the gate alone decides.
      let trust: CatalogTrust | undefined;
      try {
        trust = await cachedTrust(embedder.id, built, bm25, this.options.cache);
      } catch (err) {
        log.warn({ err }, 'curator: measuring the catalog trust failed, fusing by the query gate alone');
      }
      // Spread from the published index: a learn() meanwhile may have replaced its learned exemplars.
      if (current() && this.index) this.index = { ...this.index, trust };
    } finally {
      this.markSearchable(generation);
      if (current()) {
        const index = this.index;
        log.info({ tools: tools.length, mode: this.mode, fusion: this.fusion, dense: index?.dense != null, trust: index?.trust, ms: Math.round(performance.now() - started) }, 'curator index built');
      }
    }
  }

  async learn(learned: LearnedExemplars): Promise<void> {
    this.learnedInput = learned;
    const before = this.index;
    if (before) {
      const terms = await LearnedTerms.build(learned, before.byName, before.tools.length);
      // Published only onto the catalog it was built for, and only if no newer learn() came meanwhile.
      if (this.index?.tools !== before.tools || this.learnedInput !== learned) return;
      const next: Index = { ...this.index, ...(terms && { learnedTerms: terms }) };
      if (!terms) delete next.learnedTerms;
      this.index = next;
    }
    const index = this.index;
    const embedder = this.embedder;
    if (!index?.dense || !embedder) return;
    const built = await this.learnedIndex(index.byName, index.tools.length, embedder);
    // Published only onto the dense index it was built for, and only if no newer learn() came meanwhile.
    if (this.index?.dense !== index.dense || this.learnedInput !== learned) return;
    const next: Index = { ...this.index, learned: built };
    if (!built) delete next.learned;
    this.index = next;
  }

  /** The learned BM25 field of the latest learn() input over an index's tools (built again if a learn() comes meanwhile); undefined when there is none. */
  private async learnedTerms(byName: ReadonlyMap<string, number>, size: number): Promise<LearnedTerms | undefined> {
    let input: LearnedExemplars;
    let terms: LearnedTerms | undefined;
    do {
      input = this.learnedInput;
      terms = await LearnedTerms.build(input, byName, size);
    } while (input !== this.learnedInput);
    return terms;
  }

  /** The learned index of the latest learn() input over an index's tools; undefined when there is none or embedding failed (logged). */
  private async learnedIndex(byName: ReadonlyMap<string, number>, size: number, embedder: Embedder): Promise<LearnedIndex | undefined> {
    if (Object.keys(this.learnedInput).length === 0) return undefined;
    try {
      const built = await LearnedIndex.build(this.learnedInput, byName, size, embedder, this.options.cache);
      return built.scopeCount > 0 ? built : undefined;
    } catch (err) {
      log.warn({ err, embedder: embedder.id }, 'curator: embedding the learned exemplars failed, ranking without them');
      return undefined;
    }
  }

  /** Build `generation` can answer queries (or has failed: select() then falls back): release whoever waits for it. */
  private markSearchable(generation: number): void {
    if (generation !== this.generation || this.searchableGeneration === generation) return;
    this.searchableGeneration = generation;
    const waiters = this.searchableWaiters;
    this.searchableWaiters = [];
    for (const w of waiters) w();
  }

  async select(query: string, allowed: ToolRecord[], options: SelectOptions = {}): Promise<Selection> {
    const topK = options.topK ?? DEFAULT_TOP_K;
    const index = this.index;
    if (!index) {
      log.warn('curator: select() before buildIndex(), returning the allowed pool');
      return passThrough(allowed, 'fallback', options.explain, topK);
    }
    const { mask, indices: pool, tools: poolTools } = poolOf(index, allowed);
    if (this.mode === 'none') return passThrough(poolTools, 'passthrough', options.explain);
    if (query.trim() === '') return passThrough(poolTools, 'blank', options.explain, topK);
    // A pool within the limit is ranked all the same: its order, and the no-match judgement, are the query's (wholePool).
    const whole = (s: Selection) => (pool.length <= topK ? wholePool(s, poolTools, options.explain) : s);
    // Fail-open, in steps: a failing dense stage (or fusion) → BM25 alone → the allowed pool.
    const wantExplain = options.explain === true;
    const scope = options.learnedScope;
    try {
      return whole(await this.rank(index, query, mask, pool, topK, wantExplain, true, scope));
    } catch (err) {
      if (index.dense && this.mode !== 'bm25') {
        log.error({ err }, 'curator: dense retrieval failed, BM25 alone for this query');
        try {
          return whole(await this.rank(index, query, mask, pool, topK, wantExplain, false, scope));
        } catch (again) {
          err = again;
        }
      }
      log.error({ err }, 'curator: retrieval failed, returning the allowed pool');
      return passThrough(poolTools, 'fallback', options.explain, topK);
    }
  }

  private async rank(index: Index, query: string, mask: Uint8Array, pool: number[], topK: number, wantExplain: boolean, useDense: boolean, scope?: string): Promise<Selection> {
    const parts = splitQuery(query, !this.off.has('result-steps'));
    const texts = parts.length > 1 ? [query, ...parts] : [query];
    const vectors = useDense ? await this.embedQueries(index, texts) : null;
    const mode = vectors ? (this.mode === 'dense' ? 'dense' : 'hybrid') : 'bm25';
    // Explanations give every tool's ranks, so they need the full rankings; a shortlist reads only their heads.
    const depth = wantExplain ? Infinity : rankingDepth(topK);
    const learned = vectors && index.learned ? vectors.map((v) => index.learned!.passages(scope, v)) : [];
    const terms = index.learnedTerms && scope !== undefined ? { index: index.learnedTerms, scope } : undefined;
    // Server-level evidence is for requests of several steps (servers.ts): a single ask is its best tool's, not its server's.
    const steps = parts.length > 1 || requestSentences(query).length > 1;
    const rankings: Ranking[] = retrieveAll(steps ? index : { ...index, servers: undefined }, mode, texts, vectors ?? undefined, mask, this.fusion, depth, learned, terms);
    const whole = rankings[0]!;

    // The confident list is the limit less its reserve; confidence compares its head with the first tool it leaves out.
    const confident = topK - reserveOf(topK);
    const confidence = shortlistConfidence(whole.best, confident);
    const named = index.exact.match(query, mask).map((n) => n.index);
    // Dense mode ranks without BM25, but the no-match rule asks both retrievers: BM25's coverage is measured all the same.
    const evidence = mode === 'dense' ? { ...whole, coverage: bm25Coverage(index.bm25.query(query, mask, undefined, 1), contentTerms(query), index.bm25, literalTerms(query)) } : whole;
    // A word an English catalog lacks is foreign to both retrievers; in a catalog in another language only a query BM25 missed is judged.
    const reader = index.reader && (evidence.coverage === 0 || index.reader.catalogEnglish) ? index.reader : undefined;
    const readable = reader && readableShare(query, (t) => index.bm25.accounts(t), reader.english);
    const signals = matchSignals(evidence, index.scripts.foreign(query), readable);
    const noMatch = named.length === 0 ? judgeMatch(signals, this.embedder?.id) : undefined;
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
    // Exact names first, in the order the query names them; then BM25's confident head of the whole query, in BM25's
    // order; then the tools sentences of a long request name to BM25; then the assembled list.
    const head = mode === 'hybrid' && !this.off.has('lexical-head') ? confidentLexicalHead(whole.bm25, query, index.bm25).filter((i) => !named.includes(i)) : [];
    const sentences = (this.off.has('lexical') ? [] : confidentLexicalHits(query, index.bm25, mask)).filter((i) => !named.includes(i) && !head.includes(i));
    const lexical = [...head, ...sentences].slice(0, Math.ceil(confident / 2));
    const first = [...named, ...lexical];
    const ranked = [...first, ...assembled.tools.filter((i) => !first.includes(i))];
    const addedBy = [...named.map(() => 'exact-name'), ...lexical.map((i) => (head.includes(i) ? 'lexical-head' : 'lexical')), ...assembled.tools.flatMap((i, k) => (first.includes(i) ? [] : [assembled.addedBy[k]!]))];
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
    const embedder = this.embedder;
    if (!embedder || !index.dense || this.mode === 'bm25') return null;
    try {
      // Each text with identifiers written as words and misspelled words corrected
      // (tokenize.ts, typos.ts); BM25 does both itself.
      return await Promise.all(
        texts.map((t) => {
          const words = identifierWords(t) ?? t;
          return embedder.embedQuery(index.bm25.correctedText(words) ?? words);
        }),
      );
    } catch (err) {
      log.warn({ err, embedder: embedder.id }, 'curator: query embedding failed, BM25 only for this query');
      return null;
    }
  }
}

/**
 * The pool of `allowed` in `index`, computed once per array: callers pass the same array
 * for the same allowed list (the gateway one per persona, rebuilt when the catalog or
 * policy changes) and must not change it afterwards.
 */
function poolOf(index: Index, allowed: ToolRecord[]): Pool {
  const known = index.pools.get(allowed);
  if (known) return known;
  const mask = new Uint8Array(index.tools.length);
  const indices: number[] = [];
  for (const t of allowed) {
    const i = index.byName.get(t.name);
    if (i === undefined || mask[i] === 1 || index.pinned.has(t.name)) continue;
    mask[i] = 1;
    indices.push(i);
  }
  const pool = { mask, indices, tools: indices.map((i) => index.tools[i]!) };
  index.pools.set(allowed, pool);
  return pool;
}

/**
 * How deep a ranking the shortlist can read (shortlist.ts): the whole query's list up to
 * top_k + the low-confidence extra, past the tools the split parts took (at most MAX_PARTS
 * × their budget, ≤ top_k + 7 each), doubled for margin. Deeper ranks are never read, so
 * they are not put in order.
 */
export function rankingDepth(topK: number): number {
  return 2 * (topK + LOW_CONFIDENCE_EXTRA + MAX_PARTS * (topK + 7));
}

/**
 * A ranked selection of a pool within the limit, made whole: the ranking's tools first, in
 * its order, then the pool's others in catalog order (`addedBy` 'pool'), at confidence 1
 * (nothing is left out). A no-match answer stays as it is (read-only candidates only): a
 * catalog small enough to show whole is no reason to offer its state-changing tools for a
 * request it cannot answer.
 */
function wholePool(ranked: Selection, all: ToolRecord[], wantExplain?: boolean): Selection {
  if (ranked.noMatch) return ranked;
  const shown = new Set(ranked.tools.map((t) => t.name));
  const rest = all.filter((t) => !shown.has(t.name));
  const selection: Selection = { ...ranked, tools: [...ranked.tools, ...rest], confidence: 1 };
  delete selection.cut;
  if (wantExplain) selection.explanations = [...(ranked.explanations ?? []), ...rest.map((t) => ({ name: t.name, addedBy: 'pool' }))];
  return selection;
}

/**
 * The pool as given, unranked: no retriever ran. Mode 'none' returns it whole
 * (confidence 1: nothing left out); a blank query and the fail-open fallbacks return its
 * first `limit` tools in catalog order and name the rest in `cut`.
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

/** `extra` with each glossed tool's English gloss (gloss.ts), for BM25. */
function withGlosses(extra: ExtraContext, glosses: ReadonlyMap<string, string>): ExtraContext {
  return glosses.size === 0 ? extra : { ...extra, glosses: Object.fromEntries(glosses) };
}
