/**
 * The gateway core, shared by every host session: config, upstream pool, catalog,
 * curator index, policy and the guarded call path. Sessions (session.ts) are thin views
 * over it. The catalog is rebuilt, and the index refreshed, whenever an upstream's tool
 * list changes.
 */
import { EventEmitter } from 'node:events';
import { buildCatalog } from '../catalog/catalog.js';
import type { ToolRecord } from '../catalog/types.js';
import { resolveFrom, type LoadedConfig } from '../config/load.js';
import { createCurator } from '../curator/index.js';
import type { ExtraContext, Selection, ToolCurator } from '../curator/types.js';
import { createEmbedder } from '../embedding/index.js';
import type { Embedder } from '../embedding/types.js';
import { ApprovalStore } from '../store/approvals.js';
import { AuditLog } from '../store/audit.js';
import { createCallPath } from '../guards/pipeline.js';
import type { CallHandler } from '../guards/types.js';
import { log } from '../log.js';
import { Policy } from '../policy/policy.js';
import { openDb, type Db } from '../store/db.js';
import { EmbeddingStore } from '../store/embeddings.js';
import { UpstreamPool } from '../upstream/pool.js';
import { forwardTo } from './forward.js';

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
  private readonly allowedCache = new Map<string, ToolRecord[]>();
  private byName = new Map<string, ToolRecord>();
  private indexing: Promise<void> = Promise.resolve();
  startup: StartupTimings = { upstreamsMs: 0, embedderMs: 0, indexedMs: 0 };

  private constructor(
    readonly loaded: LoadedConfig,
    readonly db: Db,
    readonly pool: UpstreamPool,
    readonly curator: ToolCurator,
    private readonly embedder: Embedder | null,
  ) {
    super();
    this.setMaxListeners(0);
    this.policy = new Policy(loaded.personas);
    this.audit = new AuditLog(db, loaded.config.audit.redact);
    this.approvals = new ApprovalStore(db);
    this.callPath = createCallPath({
      tools: () => this.catalog,
      policy: this.policy,
      config: loaded.config,
      audit: this.audit,
      approvals: this.approvals,
      forward: forwardTo(pool),
    });
    pool.on('change', () => {
      this.indexing = this.rebuild();
    });
  }

  /**
   * Opens the store, connects the upstreams and loads the embedder in parallel, then
   * builds the catalog and its index. A failing upstream or embedder is logged and
   * skipped; only a config or store error rejects.
   */
  static async start(loaded: LoadedConfig, opts: GatewayOptions = {}): Promise<Gateway> {
    const { config, baseDir } = loaded;
    const db = openDb(resolveFrom(baseDir, config.store));
    const pool = new UpstreamPool(config.upstreams, { baseDir, startupMs: config.timeouts.startup_ms, callMs: config.timeouts.call_ms });
    const wantsEmbedder = !opts.noEmbedder && (config.curator.mode === 'dense' || config.curator.mode === 'hybrid');
    const t0 = performance.now();
    const since = () => Math.round(performance.now() - t0);
    let upstreamsMs = 0;
    let embedderMs = 0;
    const [, embedder] = await Promise.all([
      pool.start().then(() => void (upstreamsMs = since())),
      (wantsEmbedder
        ? createEmbedder(config.curator.embedder).catch((err: Error) => {
            log.error({ err: err.message }, 'no embedder could be loaded; the curator falls back to BM25');
            return null;
          })
        : Promise.resolve(null)
      ).finally(() => void (embedderMs = since())),
    ]);
    const mode = opts.noEmbedder && config.curator.mode !== 'none' ? 'bm25' : config.curator.mode;
    const curator = createCurator({ mode, embedder, cache: new EmbeddingStore(db) });
    const gateway = new Gateway(loaded, db, pool, curator, embedder);
    await gateway.rebuild();
    gateway.startup = { upstreamsMs, embedderMs, indexedMs: since() };
    log.info(gateway.startup, 'gateway ready');
    return gateway;
  }

  get extraContext(): ExtraContext {
    const { synonyms, exemplars, dependencies, config } = this.loaded;
    return { synonyms, exemplars, dependencies, pinned: config.exposure.pinned };
  }

  private async rebuild(): Promise<void> {
    const catalog = buildCatalog(this.pool.toolsByServer(), this.loaded.config.confirmation.actions);
    const started = performance.now();
    await this.curator.buildIndex(catalog, this.extraContext);
    this.catalog = catalog;
    this.byName = new Map(catalog.map((t) => [t.name, t]));
    this.allowedCache.clear();
    this.version++;
    log.info({ tools: catalog.length, ms: Math.round(performance.now() - started), mode: this.curator.mode }, 'catalog indexed');
    this.emit('catalog');
  }

  /** Resolves once a catalog change in flight is indexed. */
  settled(): Promise<void> {
    return this.indexing;
  }

  tool(name: string): ToolRecord | undefined {
    return this.byName.get(name);
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

  /** Ranks the persona's allowed tools for `query`; pinned tools are left out (they are always shown). */
  async findTools(query: string, persona: string | undefined, topK?: number): Promise<Selection> {
    await this.indexing;
    return this.curator.select(query, this.allowedFor(persona), { topK: topK ?? this.loaded.config.curator.top_k });
  }

  async close(): Promise<void> {
    await this.pool.close();
    await this.embedder?.close();
    this.db.close();
  }
}
