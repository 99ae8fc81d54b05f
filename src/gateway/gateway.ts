/**
 * The gateway core, shared by every host session: config, upstream pool, catalog,
 * curator index, policy and the guarded call path. Sessions (session.ts) are thin views
 * over it. The catalog is rebuilt, and the index refreshed, whenever an upstream's tool
 * list changes.
 */
import { EventEmitter } from 'node:events';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { buildCatalog } from '../catalog/catalog.js';
import { assignNames, type NameChange } from '../catalog/names.js';
import type { ToolRecord } from '../catalog/types.js';
import { loadConfig, type LoadedConfig } from '../config/load.js';
import type { GatewayConfig } from '../config/schema.js';
import type { ExtraContext, Selection, ToolCurator } from '../curator/types.js';
import type { Embedder } from '../embedding/types.js';
import { ApprovalStore } from '../store/approvals.js';
import { AuditLog } from '../store/audit.js';
import { approverCheck, approverKeyPath } from '../guards/approver.js';
import { createCallPath } from '../guards/pipeline.js';
import { nameIndexOf } from '../guards/nameIndex.js';
import type { CallHandler } from '../guards/types.js';
import { log } from '../log.js';
import { unmatchedPatterns, type PatternIssue } from '../policy/patterns.js';
import { Policy } from '../policy/policy.js';
import { CallRelay } from '../relay/calls.js';
import { Relay } from '../relay/relay.js';
import { openConfiguredStore, type Db } from '../store/db.js';
import { OAuthStore } from '../store/oauth.js';
import { upstreamAuth } from '../upstream/auth/index.js';
import { NameStore } from '../store/names.js';
import { UpstreamPool } from '../upstream/pool.js';
import { writeSnapshot } from './catalogSnapshot.js';
import { extraContext, startCurator } from './curatorSetup.js';
import { forwardTo } from './forward.js';

/**
 * How long after the first catalog find_tools may wait for the first dense index, in
 * ms: 5 s covers loading USE and a warm index build on a loaded 2-core machine (24 s at
 * load 30 for the embedder, started beside the upstreams; the index 0.9 s after them).
 */
const DENSE_GRACE_MS = 5_000;

/** Start-up phases, each in ms from the start of Gateway.start (the first two run in parallel). */
export interface StartupTimings {
  upstreamsMs: number;
  embedderMs: number;
  /** Catalog built and indexed (embeddings cache read, missing vectors computed). */
  indexedMs: number;
}

export interface GatewayOptions {
  /** Skip the embedder (BM25 only), e.g. for `tool-curator tools`. */
  noEmbedder?: boolean;
}

export class Gateway extends EventEmitter {
  catalog: ToolRecord[] = [];
  /** Bumped on every catalog change; caches key on it. */
  version = 0;
  readonly policy: Policy;
  readonly callPath: CallHandler;
  readonly audit: AuditLog;
  readonly approvals: ApprovalStore;
  /** Resources, templates, prompts and completion of the upstreams (src/relay/relay.ts). */
  readonly relay: Relay;
  /** Progress, log messages, questions and cancellation between hosts and upstreams during a call (src/relay/calls.ts). */
  readonly calls: CallRelay;
  /** Created at once, with the embedder still loading; it answers from BM25 until the dense index is ready. */
  curator!: ToolCurator;
  /** Resolves when the upstreams are connected and the first catalog is built (not yet indexed). */
  readonly catalogReady: Promise<void>;
  /** Resolves when the first catalog is fully indexed (dense included); never rejects for upstream or embedder failures. */
  readonly ready: Promise<void>;
  startup: StartupTimings = { upstreamsMs: 0, embedderMs: 0, indexedMs: 0 };
  /** URL of the approvals page once serveHttp serves one (http.approvals_token); parked calls point to it. */
  approvalsPage: string | undefined;
  /** Persona patterns matching no tool of a connected upstream, as of the latest catalog (logged as warnings; `--strict` refuses them). */
  patternIssues: PatternIssue[] = [];
  /** Exposed names that could not be kept since this gateway started (logged; for `doctor`). */
  readonly renamed: NameChange[] = [];
  private readonly names: NameStore;
  private embedderLoad: Promise<Embedder | null> = Promise.resolve(null);
  private readonly allowedCache = new Map<string, ToolRecord[]>();
  /** Resolves DENSE_GRACE_MS after the first catalog is built (findTools). */
  private denseGrace: Promise<void> = Promise.resolve();

  private constructor(
    readonly loaded: LoadedConfig,
    readonly db: Db,
    readonly pool: UpstreamPool,
    opts: GatewayOptions,
  ) {
    super();
    this.setMaxListeners(0);
    this.policy = new Policy(loaded.personas);
    this.audit = new AuditLog(db, loaded.config.audit.redact, loaded.config.audit.max_value_bytes);
    this.approvals = new ApprovalStore(db);
    this.names = new NameStore(db);
    const { relay, timeouts } = loaded.config;
    this.relay = new Relay(pool, this.policy, { pageSize: relay.page_size, maxReadBytes: relay.max_read_bytes, callMs: timeouts.call_ms }, Object.keys(loaded.config.upstreams));
    this.calls = new CallRelay({
      mayUse: (persona, upstream) => this.allowedFor(persona).some((t) => t.server === upstream),
      requestMs: timeouts.call_max_ms,
    });
    pool.on('connected', (name: string, client: Client) => this.calls.attach(name, client));
    this.callPath = createCallPath({
      tools: () => this.catalog,
      policy: this.policy,
      config: loaded.config,
      audit: this.audit,
      approvals: this.approvals,
      approver: approverCheck(approverKeyPath(loaded.config, loaded.baseDir), () => loaded.config.http.approvals_token),
      forward: forwardTo(pool, this.calls),
      approvalsPage: () => this.approvalsPage,
    });
    let catalogBuilt!: () => void;
    this.catalogReady = new Promise((resolve) => (catalogBuilt = resolve));
    this.ready = this.init(opts, catalogBuilt);
    this.ready.catch((err: Error) => log.error({ err: err.stack }, 'gateway start-up failed; find_tools will report it'));
    pool.on('change', () => {
      this.ready.then(() => this.rebuild()).catch((err: Error) => log.error({ err: err.stack }, 'rebuilding the catalog index failed'));
    });
  }

  /**
   * Opens the store and starts the gateway in the background: connects the upstreams and
   * loads the embedder in parallel, then builds the catalog and its index. A host can
   * connect at once — `initialize` never waits for embeddings; tools/list waits for
   * `catalogReady`, find_tools for the index. A failing upstream or embedder is logged
   * and skipped.
   * @throws only for a store that cannot be opened: ConfigError naming `store` for a corrupt or foreign file.
   */
  static create(loaded: LoadedConfig, opts: GatewayOptions = {}): Gateway {
    const { config, baseDir } = loaded;
    const db = openConfiguredStore(loaded);
    const pool = new UpstreamPool(config.upstreams, {
      baseDir,
      startupMs: config.timeouts.startup_ms,
      callMs: config.timeouts.call_ms,
      maxItems: config.relay.max_items,
      callMaxMs: config.timeouts.call_max_ms,
      auth: upstreamAuth(new OAuthStore(db)),
    });
    return new Gateway(loaded, db, pool, opts);
  }

  /** `create`, then wait until the first catalog is indexed. */
  static async start(loaded: LoadedConfig, opts: GatewayOptions = {}): Promise<Gateway> {
    const gateway = Gateway.create(loaded, opts);
    await gateway.ready;
    return gateway;
  }

  private async init(opts: GatewayOptions, catalogBuilt: () => void): Promise<void> {
    const t0 = performance.now();
    const since = () => Math.round(performance.now() - t0);
    const upstreams = this.pool.start();
    // The curator takes the embedder while it loads: BM25 answers find_tools meanwhile.
    const { curator, embedder } = startCurator(this.loaded, this.db, { noEmbedder: opts.noEmbedder, onProgress: (p) => this.emit('progress', p) });
    this.curator = curator;
    // close() closes the embedder even while it is still loading (lifecycle.ts).
    this.embedderLoad = embedder.finally(() => void (this.startup.embedderMs = since()));
    await upstreams;
    this.startup.upstreamsMs = since();
    this.setCatalog(this.buildCatalog());
    this.denseGrace = new Promise((resolve) => setTimeout(resolve, DENSE_GRACE_MS).unref());
    catalogBuilt();
    await Promise.all([this.index(), this.embedderLoad]);
    this.startup.indexedMs = since();
    log.info(this.startup, 'gateway ready');
  }

  get extraContext(): ExtraContext {
    return extraContext(this.loaded);
  }

  /** The catalog of the upstreams' current tools, with exposed names kept stable through the store (catalog/names.ts). */
  private buildCatalog(): ToolRecord[] {
    const byServer = this.pool.toolsByServer();
    const { names, changed } = assignNames(byServer, this.names.load());
    if (changed.length > 0) {
      this.renamed.push(...changed);
      log.warn({ changed }, 'exposed tool names changed: hosts, pins and approvals that used the old names must use the new ones');
    }
    const catalog = buildCatalog(byServer, this.loaded.config.confirmation.actions, names);
    this.names.save(catalog.map((t) => ({ server: t.server, upstreamName: t.upstreamName, name: t.name })));
    this.checkPatterns(catalog);
    // A complete catalog lets `select` and `eval` rank without starting the upstreams.
    if (this.pool.status().every((s) => s.state === 'ready')) writeSnapshot(this.loaded, catalog);
    return catalog;
  }

  /** Warns once per pattern that matches no tool of a connected upstream (a typo silently changes access otherwise). */
  private checkPatterns(catalog: ToolRecord[]): void {
    const status = this.pool.status();
    const connected = new Set(status.filter((s) => s.state === 'ready').map((s) => s.name));
    const before = new Set(this.patternIssues.map((i) => i.key));
    // A pattern without a server is judged only once every upstream is connected: a tool of
    // one still starting (or failed) may be the one it matches.
    const all = connected.size === status.length;
    this.patternIssues = unmatchedPatterns(this.loaded.personas, catalog, connected).filter((i) => all || /^[^*.][^.]*\./.test(i.pattern));
    for (const issue of this.patternIssues) {
      if (!before.has(issue.key)) log.warn({ file: this.loaded.config.policy.personas, key: issue.key }, `${this.loaded.config.policy.personas}: ${issue.key}: ${issue.message}`);
    }
  }

  private setCatalog(catalog: ToolRecord[]): void {
    this.catalog = catalog;
    this.allowedCache.clear();
    this.version++;
  }

  private async index(): Promise<void> {
    const started = performance.now();
    const catalog = this.catalog;
    const built = this.curator.buildIndex(catalog, this.extraContext);
    // The name guard's fuzzy index, built in the background so a first misspelled name does
    // not wait for it; once BM25 answers and the find_tools calls waiting for it have run.
    void this.curator.whenSearchable().then(() => setImmediate(() => void nameIndexOf(catalog).prepare()));
    await built;
    log.info({ tools: this.catalog.length, ms: Math.round(performance.now() - started), mode: this.curator.mode }, 'catalog indexed');
  }

  /**
   * Live configuration (liveConfig.ts): re-reads gateway.config.yaml and the files it names
   * and puts in force what can change under a running gateway — personas, dependencies,
   * synonyms, exemplars (the index is refreshed; hosts get list_changed).
   * @returns what was applied, and the gateway.config.yaml keys that changed but need a restart.
   * @throws ConfigError (file, key, reason) for an edit that does not load; nothing changes then.
   */
  async reload(): Promise<{ applied: string[]; restart: string[] }> {
    const fresh = loadConfig(this.loaded.file);
    if (this.loaded.overrides?.exposure) fresh.config.exposure.mode = this.loaded.overrides.exposure;
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    const live = ['personas', 'dependencies', 'synonyms', 'exemplars'] as const;
    const applied = live.filter((k) => !same(this.loaded[k], fresh[k]));
    const restart = (Object.keys(fresh.config) as (keyof GatewayConfig)[]).filter((k) => k !== 'policy' && !same(this.loaded.config[k], fresh.config[k]));
    if (applied.length === 0) return { applied, restart };
    Object.assign(this.loaded, { personas: fresh.personas, dependencies: fresh.dependencies, synonyms: fresh.synonyms, exemplars: fresh.exemplars });
    this.policy.replace(fresh.personas);
    await this.ready.then(() => this.rebuild());
    return { applied, restart };
  }

  /** An upstream's tool list changed: new catalog at once, index after, then tell the sessions. */
  private async rebuild(): Promise<void> {
    this.setCatalog(this.buildCatalog());
    this.emit('catalog');
    await this.index();
  }

  /** The persona's allowed tools in catalog order (cached per catalog version). */
  allowedFor(persona: string | undefined): ToolRecord[] {
    const key = persona ?? '';
    let allowed = this.allowedCache.get(key);
    if (!allowed) {
      allowed = this.policy.allowed(persona, this.catalog);
      this.allowedCache.set(key, allowed);
    }
    return allowed;
  }

  /**
   * Ranks the persona's allowed tools for `query`; pinned tools are left out (they are
   * always shown). Waits for the catalog and its BM25 index, and for the first dense index
   * only during DENSE_GRACE_MS after the first catalog is built: with cached vectors (curator.vectors,
   * the store) the dense index follows within about a second, so a host that starts the
   * gateway for one query gets both retrievers; a cold build is not waited for, and the
   * answer comes from BM25 (`Selection.mode` 'bm25') until it is done.
   */
  async findTools(query: string, persona: string | undefined, topK?: number): Promise<Selection> {
    await this.catalogReady;
    await Promise.race([this.ready, Promise.all([this.curator.whenSearchable(), this.denseGrace])]);
    return this.curator.select(query, this.allowedFor(persona), { topK: topK ?? this.loaded.config.curator.top_k });
  }

  /**
   * Closes upstreams, embedder and store. During start-up it does not wait for the index
   * build: closing the embedder (and its worker pool) first makes the build end early.
   */
  async close(): Promise<void> {
    await this.pool.close();
    await this.embedderLoad.then((e) => e?.close()).catch(() => undefined);
    await this.ready.catch(() => undefined);
    this.db.close();
  }
}
