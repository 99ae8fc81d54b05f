/**
 * The gateway core, shared by every host session: config, upstream pool, catalog,
 * curator index, policy and the guarded call path. Sessions (session.ts) are thin views
 * over it. The catalog is rebuilt, and the index refreshed, whenever an upstream's tool
 * list changes or an upstream arrives; changes that come close together cause one rebuild.
 */
import { EventEmitter } from 'node:events';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client, Tool } from '@modelcontextprotocol/client';
import { boundTools } from '../catalog/bounds.js';
import { buildCatalogWith } from '../catalog/catalog.js';
import { assignNames, toolKey, type NameChange } from '../catalog/names.js';
import { overrideIssues } from '../catalog/overrides.js';
import type { ToolRecord } from '../catalog/types.js';
import { ConfigError, loadConfig, type LoadedConfig } from '../config/load.js';
import { openConfiguredStore } from '../config/store.js';
import type { GatewayConfig, RemoteUpstreamConfig } from '../config/schema.js';
import type { ExtraContext, Selection, ToolCurator } from '../curator/types.js';
import type { Embedder } from '../embedding/types.js';
import { acceptanceVoided, definitionProofValid } from '../guards/acceptance.js';
import { approverCheck, approverKeyPath, type ApproverCheck } from '../guards/approver.js';
import { fileLedger } from '../guards/usedLedger.js';
import { AuditWriter } from '../guards/audit.js';
import { createCallPath } from '../guards/pipeline.js';
import { startSecrets, type GatewaySecrets } from '../guards/secrets/index.js';
import { DefinitionPins, type ChangedDefinition } from '../guards/pins.js';
import { nameIndexOf } from '../guards/nameIndex.js';
import type { CallHandler } from '../guards/types.js';
import { Coalescer } from '../coalesce.js';
import { log } from '../log.js';
import { unmatchedPatterns, unmatchedPinned, type PatternIssue } from '../policy/patterns.js';
import { ActionRules } from '../policy/actions.js';
import { Policy } from '../policy/policy.js';
import { widenings } from '../policy/widening.js';
import { sealerFor } from '../guards/sealed.js';
import { CallRelay, UPSTREAM_CAPABILITIES } from '../relay/calls.js';
import { PerUserRelay } from '../relay/perUser.js';
import { Relay } from '../relay/relay.js';
import { StoredRelayNames } from '../relay/storedNames.js';
import type { ApprovalsPart, Store } from '../store/types.js';
import { isPerUser, upstreamAuth } from '../upstream/auth/index.js';
import { UpstreamPool } from '../upstream/pool.js';
import { writeSnapshot } from './catalogSnapshot.js';
import { checkApprovers } from '../host/auth/config.js';
import { approverPolicy } from '../host/auth/rules.js';
import { extraContext, startCurator } from './curatorSetup.js';
import { UserConnections } from '../upstream/users.js';
import { PerUserCalls } from './consent.js';
import { forwardTo } from './forward.js';
import { Learning } from '../learning/learning.js';
import type { UpstreamView } from '../guards/nameGuard.js';
import { upstreamView } from './upstreamView.js';
import { Admission } from './admission.js';

/** Catalog changes within this many ms of each other cause one rebuild. */
const REBUILD_COALESCE_MS = 50;

/**
 * How long after the first catalog find_tools may wait for the first dense index, in
 * ms: 5 s covers loading USE and a warm index build on a loaded 2-core machine (24 s at
 * load 30 for the embedder, started beside the upstreams; the index 0.9 s after them).
 */
const DENSE_GRACE_MS = 5_000;

/**
 * find_tools searches at once (gateway/admission.ts): 2 keeps two queries' vectors joined
 * in one call of the query worker while a burst leaves the event loop free for other
 * requests between searches (bench/burst.ts, docs/PERFORMANCE.md).
 */
const FIND_LANES = 2;
/** find_tools requests that may wait for a lane; one more is answered "busy, retry". 256 is five times the 50-session burst of bench/burst.ts. */
const FIND_QUEUE = 256;

/** Start-up phases, each in ms from the start of Gateway.start (the first two run in parallel). */
export interface StartupTimings {
  /** Every upstream ready or failed. */
  upstreamsMs: number;
  embedderMs: number;
  /** Catalog built and indexed (embeddings cache read, missing vectors computed). */
  indexedMs: number;
}

/**
 * How far the index of the current catalog is: `building` (nothing answers find_tools
 * yet), `searchable` (BM25 answers; the dense index is still being built), `ready`.
 * A rebuild after a catalog change keeps the state it had: the previous index answers meanwhile.
 */
export type IndexState = 'building' | 'searchable' | 'ready';

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
  /** Writes audit rows redacted and bounded (guards/audit.ts). */
  readonly audit: AuditWriter;
  readonly approvals: ApprovalsPart;
  /** How this gateway checks a person's decision before a parked call runs (guards/approver.ts); the approvals page shows voided approvals by it. */
  readonly approver: ApproverCheck;
  /** Which upstreams are configured, and why one that is not ready is not (upstreamView.ts). */
  readonly upstreams: UpstreamView;
  /** Resources, templates, prompts and completion of the upstreams (src/relay/relay.ts). */
  readonly relay: Relay;
  /** Progress, log messages, questions and cancellation between hosts and upstreams during a call (src/relay/calls.ts). */
  readonly calls: CallRelay;
  /** Learning from use (learning.ts); undefined unless `curator.learning.enabled`. */
  readonly learning: Learning | undefined;
  /** Created at once, with the embedder still loading; it answers from BM25 until the dense index is ready. */
  curator!: ToolCurator;
  /**
   * Resolves when the first catalog is built (not yet indexed): with every upstream, or
   * with those ready within `timeouts.list_wait_ms` — a slow or hung upstream joins later.
   * The first tools/list, find_tools and tools/call of a host wait for it.
   */
  readonly catalogReady: Promise<void>;
  /** Resolves once every upstream is ready or has failed and the catalog holding them is built. */
  readonly catalogComplete: Promise<void>;
  /** Resolves when `catalogComplete`'s catalog is fully indexed (dense included); never rejects for upstream or embedder failures. */
  readonly ready: Promise<void>;
  startup: StartupTimings = { upstreamsMs: 0, embedderMs: 0, indexedMs: 0 };
  /** When the upstreams started connecting (epoch ms): `timeouts.list_wait_ms` and their start-up timeouts count from here. */
  startedAt = Date.now();
  /** URL of the approvals page once serveHttp serves one (http.approvals_token); parked calls point to it. */
  approvalsPage: string | undefined;
  /** Where browsers reach the per-user consent page once serveHttp serves it (`per_user.public_url` or the face's address). */
  consentBase: string | undefined;
  /** One connection per (upstream, user) for per-user upstreams; undefined when there are none. */
  readonly users: UserConnections | undefined;
  /** Persona patterns matching no tool of a connected upstream and pinned names of no tool, as of the latest catalog (logged as warnings; `--strict` refuses them). */
  patternIssues: PatternIssue[] = [];
  /** Exposed names that could not be kept since this gateway started (logged; for `doctor`). */
  readonly renamed: NameChange[] = [];
  /** The index's state, for /readyz and the metrics (ops.ts, metrics.ts). */
  indexState: IndexState = 'building';
  /** The exposed names last read from the store, for a rebuild while the store is unavailable. */
  private remembered = new Map<string, string>();
  private embedderLoad: Promise<Embedder | null> = Promise.resolve(null);
  private readonly allowedCache = new Map<string, ToolRecord[]>();
  /** Override issues already logged (each is logged once while it lasts). */
  private overrideWarnings = new Set<string>();
  /** Which tools are actions: the operator's rules, MCP's defaults, and no loosening by an upstream (policy/actions.ts). */
  private readonly actionRules: ActionRules;
  /** Which upstream each remembered exposed name belonged to, for the name guard ("upstream a is unavailable"). */
  private formerOwners = new Map<string, string>();
  /** Pinned tool definitions: first seen pinned, changes held back or warned (guards/pins.ts). */
  readonly pins: DefinitionPins;
  /** Tools whose upstream definition differs from the pinned one, as of the latest catalog (for `doctor` and the approvals page). */
  changedDefinitions: ChangedDefinition[] = [];
  /** Held-back changes by the exposed name the tool keeps (empty under `definitions.on_change: warn`). */
  private held = new Map<string, ChangedDefinition>();
  /** One rebuild for a burst of catalog changes (upstreams arriving together, a list_changed flood). */
  private readonly rebuilds = new Coalescer(() => this.rebuild(), REBUILD_COALESCE_MS, (err) => log.error({ err: (err as Error).stack }, 'rebuilding the catalog failed'));
  /** Changes before the first catalog are part of it: no rebuild until it is built. */
  private firstCatalog = false;
  /** The index build of the latest catalog. */
  private indexed: Promise<void> = Promise.resolve();
  /** Exposed names of the catalog at `version` (hasTool). */
  private exposedNames: { version: number; names: Set<string> } | undefined;
  /** Bounded admission of find_tools searches (FIND_LANES, FIND_QUEUE). */
  readonly finds = new Admission(FIND_LANES, FIND_QUEUE);
  /** Resolves DENSE_GRACE_MS after the first catalog is built, or `list_wait_ms` after start if that is sooner (findTools). */
  private denseGrace: Promise<void> = Promise.resolve();

  private constructor(
    readonly loaded: LoadedConfig,
    readonly store: Store,
    readonly pool: UpstreamPool,
    opts: GatewayOptions,
    /** The credentials the gateway holds and their redaction on the way to hosts and the audit (guards/secrets). */
    readonly secrets: GatewaySecrets,
  ) {
    super();
    this.setMaxListeners(0);
    this.policy = new Policy(loaded.personas);
    this.audit = new AuditWriter(store.audit, loaded.config.audit.redact, loaded.config.audit.max_value_bytes, secrets.redactor);
    this.approvals = store.approvals;
    const keyPath = approverKeyPath(loaded.config, loaded.baseDir);
    this.pins = new DefinitionPins(
      store.definitions,
      loaded.config.definitions.on_change,
      this.audit,
      (p) => definitionProofValid(p, keyPath, loaded.config.http.approvals_token),
      (p) => acceptanceVoided(p, approverPolicy(loaded.config)),
    );
    // The annotations a person accepted (or first seen) decide; an upstream's new ones never loosen confirmation.
    this.actionRules = new ActionRules(loaded.config.confirmation, this.pins.acceptedAnnotations);
    const { relay, timeouts, per_user, upstreams } = loaded.config;
    this.calls = new CallRelay({
      mayUse: (persona, upstream) => this.allowedFor(persona).some((t) => t.server === upstream),
      requestMs: timeouts.call_max_ms,
      maxLogPerSecond: relay.max_log_per_second,
      // Read at request time: this.relay is made below.
      mayReceive: (persona, server) => this.relay.mayReceive(persona, server),
    });
    pool.on('connected', (name: string, client: Client) => this.calls.attach(name, client));
    const perUserUpstreams = Object.fromEntries(Object.entries(upstreams).filter(([, cfg]) => isPerUser(cfg))) as Record<string, RemoteUpstreamConfig>;
    this.users =
      Object.keys(perUserUpstreams).length > 0
        ? new UserConnections({
            baseDir: loaded.baseDir,
            startupMs: timeouts.startup_ms,
            callMs: timeouts.call_ms,
            callMaxMs: timeouts.call_max_ms,
            maxResultBytes: relay.max_result_bytes,
            maxItems: relay.max_items,
            capabilities: UPSTREAM_CAPABILITIES,
            store,
            maxConnections: per_user.max_connections,
            idleMs: per_user.idle_minutes * 60_000,
            onConnected: (key, client, server) => this.calls.attach(key, client, false, server),
            tokensSeen: secrets.tokensSeen,
          })
        : undefined;
    const perUser =
      this.users &&
      new PerUserCalls({ config: loaded.config, store, users: this.users, relay: this.calls, consentBase: () => this.consentBase, connected: (_server, user) => this.relay.userConnected(user) });
    const relayPerUser = perUser && new PerUserRelay({ users: this.users!, upstreams: perUserUpstreams, offer: (who, server, why, again) => perUser.offer(who.host, server, who.userId, why, again) });
    const relayBounds = { pageSize: relay.page_size, maxReadBytes: relay.max_read_bytes, callMs: timeouts.call_ms };
    this.relay = new Relay(pool, this.policy, relayBounds, Object.keys(upstreams), new StoredRelayNames(store), relayPerUser, this.calls);
    this.approver = approverCheck(keyPath, () => loaded.config.http.approvals_token, () => approverPolicy(loaded.config));
    this.upstreams = upstreamView(pool, {
      configured: Object.keys(upstreams),
      formerOwner: (name) => this.formerOwners.get(name),
      remembered: () => this.formerOwners,
      startedAt: () => this.startedAt,
      startupMs: (server) => upstreams[server]?.startup_timeout_ms ?? timeouts.startup_ms,
      remote: (server) => upstreams[server] !== undefined && 'url' in upstreams[server],
    });
    this.callPath = createCallPath({
      tools: () => this.catalog,
      policy: this.policy,
      config: loaded.config,
      audit: this.audit,
      approvals: this.approvals,
      approver: this.approver,
      forward: forwardTo(pool, this.calls, (persona, server) => this.relay.mayReceive(persona, server), perUser, sealerFor(store.sealing)),
      // Beside the approver key: outside the store, so rewriting its rows cannot make a restarted gateway forget a use.
      usedLedger: fileLedger(join(dirname(keyPath), 'approvals-used')),
      approvalsPage: () => this.approvalsPage,
      upstreams: this.upstreams,
      held: (name) => this.held.get(name),
      secrets: secrets.redactor,
    });
    const learning = loaded.config.curator.learning;
    if (learning.enabled) {
      this.learning = new Learning({
        store: store.learned,
        settings: learning,
        learn: (learned) => this.curator.learn(learned),
        allowed: (persona) => (this.policy.open || persona in this.loaded.personas ? new Set(this.allowedFor(persona || undefined).map((t) => t.name)) : undefined),
        ignored: () => new Set(this.loaded.config.exposure.pinned),
        failed: (operation, err) => this.storeFailed(operation, err),
      });
    }
    let catalogBuilt!: () => void;
    let catalogComplete!: () => void;
    this.catalogReady = new Promise((resolve) => (catalogBuilt = resolve));
    this.catalogComplete = new Promise((resolve) => (catalogComplete = resolve));
    this.ready = this.init(opts, catalogBuilt, catalogComplete);
    this.ready.catch((err: Error) => log.error({ err: err.stack }, 'gateway start-up failed; find_tools will report it'));
    pool.on('change', () => {
      if (this.firstCatalog) this.rebuilds.request();
    });
  }

  /**
   * Opens the store and starts the gateway in the background: connects the upstreams and
   * loads the embedder in parallel, then builds the catalog and its index. A host can
   * connect at once — `initialize` never waits for embeddings; tools/list waits for
   * `catalogReady`, find_tools for the index. A failing upstream or embedder is logged
   * and skipped.
   * @throws only for a store that cannot be opened: ConfigError naming `store` for a corrupt
   *   or foreign file or a malformed URL, StoreUnavailableError for a database that cannot be reached.
   */
  static async create(loaded: LoadedConfig, opts: GatewayOptions = {}): Promise<Gateway> {
    const { config, baseDir } = loaded;
    const store = await openConfiguredStore(loaded);
    // Before any upstream connects: what an upstream is given is held before it can echo it.
    const secrets = await startSecrets(config, store);
    const pool = new UpstreamPool(config.upstreams, {
      baseDir,
      startupMs: config.timeouts.startup_ms,
      callMs: config.timeouts.call_ms,
      maxItems: config.relay.max_items,
      callMaxMs: config.timeouts.call_max_ms,
      auth: upstreamAuth(store, secrets.tokensSeen),
      memory: store,
      capabilities: UPSTREAM_CAPABILITIES,
      maxResultBytes: config.relay.max_result_bytes,
      // A read (relay.max_read_bytes) travels the same connection as a tool result.
      maxMessageBytes: Math.max(config.relay.max_result_bytes, config.relay.max_read_bytes),
    });
    return new Gateway(loaded, store, pool, opts, secrets);
  }

  /** `create`, then wait until the first catalog is indexed. */
  static async start(loaded: LoadedConfig, opts: GatewayOptions = {}): Promise<Gateway> {
    const gateway = await Gateway.create(loaded, opts);
    await gateway.ready;
    return gateway;
  }

  private async init(opts: GatewayOptions, catalogBuilt: () => void, catalogComplete: () => void): Promise<void> {
    const { config } = this.loaded;
    const t0 = performance.now();
    this.startedAt = Date.now();
    const since = () => Math.round(performance.now() - t0);
    log.info({ upstreams: Object.keys(config.upstreams).length, list_wait_ms: config.timeouts.list_wait_ms }, 'starting the upstreams');
    // Counted from here: spawning the upstreams and loading the embedder hold the event loop for seconds on a loaded machine.
    const listWait = sleep(config.timeouts.list_wait_ms, undefined, { ref: false });
    const upstreams = this.pool.start().then(() => void (this.startup.upstreamsMs = since()));
    // The curator takes the embedder while it loads: BM25 answers find_tools meanwhile.
    const { curator, embedder } = startCurator(this.loaded, this.store.embeddings, { noEmbedder: opts.noEmbedder, onProgress: (p) => this.emit('progress', p) });
    this.curator = curator;
    // close() closes the embedder even while it is still loading (lifecycle.ts).
    this.embedderLoad = embedder.finally(() => void (this.startup.embedderMs = since()));
    // The first catalog: every upstream, or those ready within list_wait_ms (a hung one
    // never holds the others back); later arrivals rebuild it, coalesced.
    await Promise.race([upstreams, listWait]);
    await this.relay.start();
    this.firstCatalog = true;
    this.rebuilds.request();
    await this.rebuilds.settled();
    // A person accepted a changed definition (CLI, page, any replica): it joins the catalog.
    // Subscribed once the first catalog is built: listening earlier changed which upstream
    // got a shared name first in test/guards/nameOwners.test.ts (cause not yet found).
    this.store.events.on('definition', () => this.rebuilds.request());
    // Never past list_wait_ms from start: a first catalog that waited for a hung upstream gives the dense index no more time.
    const grace = Math.min(DENSE_GRACE_MS, Math.max(0, config.timeouts.list_wait_ms - since()));
    this.denseGrace = new Promise((resolve) => setTimeout(resolve, grace).unref());
    catalogBuilt();
    await upstreams;
    await this.rebuilds.settled();
    catalogComplete();
    await Promise.all([this.indexed, this.embedderLoad]);
    this.startup.indexedMs = since();
    this.learning?.start();
    log.info(this.startup, 'gateway ready');
  }

  get extraContext(): ExtraContext {
    return extraContext(this.loaded);
  }

  /**
   * The catalog of the upstreams' current tools, with exposed names kept stable through the
   * store (catalog/names.ts) and the operator's overrides applied (catalog/overrides.ts).
   * Names are decided under the store's `names` lock, from what every replica saved before:
   * replicas starting together assign the same names, the first holder keeping the plain
   * one. While the store is unavailable, the names last read are used. The store remembers
   * the assigned names, not an override's, so removing an override gives the tool its old
   * name back. Each definition is first bounded by `definitions` (catalog/bounds.ts), then
   * compared with its pin (guards/pins.ts): a changed one is held back or warned.
   */
  private async buildCatalog(): Promise<ToolRecord[]> {
    const { definitions } = this.loaded.config;
    const bounded = boundTools(this.pool.toolsByServer(), { descriptionBytes: definitions.max_description_bytes, titleChars: definitions.max_title_chars, schemaBytes: definitions.max_schema_bytes });
    for (const r of bounded.refused) log.warn(r, `tool ${r.tool} of upstream "${r.server}" left out of the catalog: ${r.reason}`);
    for (const c of bounded.clipped) log.info(c, `tool ${c.tool} of upstream "${c.server}": ${c.fields.join(', ')} clipped (definitions.max_description_bytes, max_title_chars)`);
    const byServer = bounded.byServer;
    const pinned = await this.pins.review(byServer);
    const assign = (remembered: ReadonlyMap<string, string>) => {
      this.formerOwners = new Map([...remembered].map(([key, name]) => [name, key.slice(0, key.indexOf('\0'))]));
      const { names, changed } = assignNames(byServer, remembered, Object.keys(this.loaded.config.upstreams));
      if (changed.length > 0) {
        this.renamed.push(...changed);
        log.warn({ changed }, 'exposed tool names changed: hosts, pins and approvals that used the old names must use the new ones');
      }
      return names;
    };
    let names: Map<string, string>;
    try {
      names = await this.store.lock('names', async () => {
        const remembered = await this.store.names.load();
        const assigned = assign(remembered);
        const fresh = [...assigned].filter(([key, name]) => remembered.get(key) !== name);
        await this.store.names.save(fresh.map(([key, name]) => {
          const [server, upstreamName] = key.split('\0') as [string, string];
          return { server, upstreamName, name };
        }));
        this.remembered = new Map([...remembered, ...fresh]);
        return assigned;
      });
    } catch (err) {
      log.error({ err: (err as Error).message }, 'exposed names could not be read or saved; using the names last read');
      names = assign(this.remembered);
    }
    const { config } = this.loaded;
    // Held-back tools keep their exposed names (assigned above) but stay out of the catalog.
    this.changedDefinitions = pinned.changed;
    this.held = new Map(
      config.definitions.on_change === 'hold' ? pinned.changed.flatMap((c) => {
        const name = names.get(toolKey(c.server, c.upstreamName));
        return name === undefined ? [] : [[name, c] as const];
      }) : [],
    );
    const { catalog, refused } = buildCatalogWith(pinned.byServer, { isAction: this.actionRules.classify, names, overrides: config.overrides, servers: this.pool.serverInfo() });
    this.checkPatterns(catalog);
    this.checkOverrides(byServer, refused);
    // A complete catalog lets `select` and `eval` rank without starting the upstreams.
    if (this.pool.status().every((s) => s.state === 'ready')) writeSnapshot(this.loaded, catalog);
    return catalog;
  }

  /** Warns once per override that cannot be applied (overrides.ts overrideIssues). */
  private checkOverrides(byServer: Map<string, Tool[]>, refused: Map<string, string>): void {
    const connected = new Set(this.pool.status().filter((s) => s.state === 'ready').map((s) => s.name));
    const issues = overrideIssues(this.loaded.config.overrides, byServer, connected, refused);
    for (const issue of issues) if (!this.overrideWarnings.has(issue)) log.warn({ file: this.loaded.file }, `${this.loaded.file}: ${issue}`);
    this.overrideWarnings = new Set(issues);
  }

  /**
   * Warns once per pattern that matches no tool of a connected upstream (a typo silently
   * changes access otherwise) and per pinned name that is no tool's (a typo is silently never shown).
   */
  private checkPatterns(catalog: ToolRecord[]): void {
    const status = this.pool.status();
    const connected = new Set(status.filter((s) => s.state === 'ready').map((s) => s.name));
    const before = new Set(this.patternIssues.map((i) => `${i.file}:${i.key}`));
    // A pattern without a server, or a pinned name, is judged only once every upstream is
    // connected: a tool of one still starting (or failed) may be the one it matches.
    const all = connected.size === status.length;
    this.patternIssues = [
      ...unmatchedPatterns(this.loaded.personas, catalog, connected).filter((i) => all || /^[^*.][^.]*\./.test(i.pattern)),
      ...(all ? unmatchedPinned(this.loaded.config.exposure.pinned, catalog, new Set(this.held.keys())) : []),
    ];
    for (const issue of this.patternIssues) {
      const file = issue.file === 'config' ? this.loaded.file : this.loaded.config.policy.personas;
      if (!before.has(`${issue.file}:${issue.key}`)) log.warn({ file, key: issue.key }, `${file}: ${issue.key}: ${issue.message}`);
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
    void this.curator.whenSearchable().then(() => {
      if (this.indexState === 'building') this.indexState = 'searchable';
      setImmediate(() => void nameIndexOf(catalog).prepare());
    });
    await built;
    // The learned exemplars of tools the new catalog (or a persona's new rules) no longer allows go.
    await this.learning?.refresh();
    this.indexState = 'ready';
    log.info({ tools: this.catalog.length, ms: Math.round(performance.now() - started), mode: this.curator.mode }, 'catalog indexed');
  }

  /**
   * Live configuration (liveConfig.ts): re-reads gateway.config.yaml and the files it names
   * and puts in force what can change under a running gateway — personas, dependencies,
   * synonyms, exemplars, tool overrides (the catalog and index are rebuilt; hosts get
   * list_changed) and the approvers rules (`confirmation.approvers`,
   * `approvers_may_approve_own_calls`, while approvers stay configured: the page and the
   * check of each approval before its call runs read them from here).
   * @returns what was applied, the gateway.config.yaml keys that changed but need a
   *   restart, and every way the new personas widen access (policy/widening.ts).
   * @throws ConfigError (file, key, reason) for an edit that does not load, that removes
   *   `policy.personas`, or whose changed approvers rules `serve --http` would refuse
   *   (host/auth/config.ts checkApprovers); nothing changes then.
   */
  async reload(): Promise<{ applied: string[]; restart: string[]; widened: string[] }> {
    const fresh = loadConfig(this.loaded.file);
    if (this.loaded.config.policy.personas && !fresh.config.policy.personas) {
      throw new ConfigError(this.loaded.file, 'policy.personas', 'removed under a running gateway, which would let every session use every tool; restart the gateway to run without personas');
    }
    if (this.loaded.overrides?.exposure) fresh.config.exposure.mode = this.loaded.overrides.exposure;
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    const live = ['personas', 'dependencies', 'synonyms', 'exemplars'] as const;
    /** gateway.config.yaml keys applied live: `policy` names the files above, `overrides` is read at each catalog build. */
    const liveKeys: readonly (keyof GatewayConfig)[] = ['policy', 'overrides'];
    const applied: string[] = live.filter((k) => !same(this.loaded[k], fresh[k]));
    if (!same(this.loaded.config.overrides, fresh.config.overrides)) applied.push('overrides');
    const { approvers: wereApprovers, approvers_may_approve_own_calls: wereOwn, ...confirmationWas } = this.loaded.config.confirmation;
    const { approvers, approvers_may_approve_own_calls, ...confirmationNow } = fresh.config.confirmation;
    const approversChanged = !same([wereApprovers, wereOwn], [approvers, approvers_may_approve_own_calls]);
    // Turning approvers on or off changes how the page signs people in: that needs a restart.
    const approversLive = approversChanged && wereApprovers !== undefined && approvers !== undefined;
    const restart = (Object.keys(fresh.config) as (keyof GatewayConfig)[]).filter(
      (k) => !liveKeys.includes(k) && !same(this.loaded.config[k], fresh.config[k]) && (k !== 'confirmation' || !same(confirmationWas, confirmationNow) || !approversLive),
    );
    if (approversLive) {
      checkApprovers(fresh);
      Object.assign(this.loaded.config.confirmation, { approvers, approvers_may_approve_own_calls });
    }
    if (applied.length === 0) {
      // The acceptances of changed definitions are checked against the approvers rules now in force (guards/pins.ts).
      if (approversLive && this.firstCatalog) this.rebuilds.request();
      await this.rebuilds.settled();
      return { applied: approversLive ? ['confirmation.approvers'] : [], restart, widened: [] };
    }
    const widened = applied.includes('personas') ? widenings(this.loaded.personas, fresh.personas, this.catalog) : [];
    Object.assign(this.loaded, { personas: fresh.personas, dependencies: fresh.dependencies, synonyms: fresh.synonyms, exemplars: fresh.exemplars });
    this.loaded.config.overrides = fresh.config.overrides;
    this.policy.replace(fresh.personas);
    if (this.firstCatalog) this.rebuilds.request();
    await this.rebuilds.settled();
    await this.indexed;
    return { applied: approversLive ? [...applied, 'confirmation.approvers'] : applied, restart, widened };
  }

  /**
   * The upstreams' tools changed: a new catalog at once, the sessions told, the index built
   * after (a later rebuild supersedes a build still running; the old index answers meanwhile).
   */
  private async rebuild(): Promise<void> {
    this.setCatalog(await this.buildCatalog());
    // Sessions need no word of the first catalog: their first tools/list waits for it.
    if (this.version > 1) this.emit('catalog');
    this.indexed = this.index().catch((err: Error) => log.error({ err: err.stack }, 'indexing the catalog failed'));
  }

  /**
   * Resolves when a call of `name` can be decided: with the first catalog, and when the
   * catalog does not hold `name`, once the catalog changes under way are built in (an
   * upstream that has just arrived). Never waits for an upstream still starting: the
   * name guard answers at once for those (guards/nameGuard.ts).
   */
  async callable(name: string): Promise<void> {
    await this.catalogReady;
    if (!this.hasTool(name)) await this.rebuilds.settled();
  }

  /** Whether the catalog holds a tool exposed as `name`. */
  hasTool(name: string): boolean {
    if (this.exposedNames?.version !== this.version) this.exposedNames = { version: this.version, names: new Set(this.catalog.map((t) => t.name)) };
    return this.exposedNames.names.has(name);
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
   * always shown). Waits for the catalog and its BM25 index, and for the dense index of the
   * current catalog only during DENSE_GRACE_MS after the first catalog is built and never
   * past `timeouts.list_wait_ms` from start: with cached vectors (curator.vectors, the
   * store) the dense index follows within about a second, so a host that starts the
   * gateway for one query gets both retrievers; a cold build is not waited for, nor an
   * upstream still starting, and the answer comes from BM25 (`Selection.mode` 'bm25')
   * until it is done.
   * `learnedScope`: whose learned exemplars count (learning.ts scopeOf); none without learning.
   * At most FIND_LANES searches run at once, FIND_QUEUE wait (gateway/admission.ts).
   * @throws BusyError, at once, when FIND_QUEUE searches are already waiting.
   */
  async findTools(query: string, persona: string | undefined, topK?: number, learnedScope?: string): Promise<Selection> {
    await this.catalogReady;
    // The BM25 index of the current catalog, always (or its build failed: select() then says
    // so). A build that a newer catalog superseded (an upstream arriving meanwhile) publishes
    // nothing, yet its `indexed` — and `ready`, which waited for it — resolve all the same.
    await this.curator.whenSearchable();
    await Promise.race([this.ready, this.indexed, this.denseGrace]);
    const scope = this.learning && learnedScope !== undefined ? { learnedScope } : {};
    return this.finds.run(() => this.curator.select(query, this.allowedFor(persona), { topK: topK ?? this.loaded.config.curator.top_k, ...scope }));
  }

  /**
   * The upstreams the persona may reach that are not ready now and whose tools the catalog
   * does not hold, with why: their tools are in no find_tools result meanwhile. An upstream
   * that lost its connection keeps its tools in the catalog (a call says it is unavailable),
   * so a result that ranks them is not missing them.
   */
  unavailableFor(persona: string | undefined): { upstream: string; why: string }[] {
    const held = new Set(this.catalog.map((t) => t.server));
    return this.upstreams
      .names()
      .filter((server) => !held.has(server) && this.policy.mayReach(persona, server))
      .flatMap((upstream) => {
        const why = this.upstreams.unavailable(upstream);
        return why === undefined ? [] : [{ upstream, why }];
      });
  }

  /**
   * Whether the store answers (for /readyz): `store.ping()` — a query on either backend,
   * which also notices a SQLite file deleted under the gateway. A failure is reported
   * through `storeFailed`. Never throws.
   */
  async storeHealthy(): Promise<boolean> {
    try {
      await this.store.ping();
      return true;
    } catch (err) {
      this.storeFailed('ping', err);
      return false;
    }
  }

  /**
   * Reports a failed store operation: logged, and emitted as `store-error` (operation,
   * error) for the metrics (`tool_curator_store_errors_total`). Call it wherever a store
   * operation fails and the gateway carries on.
   */
  storeFailed(operation: string, err: unknown): void {
    log.error({ operation, err: (err as Error)?.message ?? String(err) }, `store: ${operation} failed`);
    this.emit('store-error', operation, err);
  }

  /**
   * Closes upstreams, embedder and store. During start-up it does not wait for the index
   * build: closing the embedder (and its worker pool) first makes the build end early.
   */
  async close(): Promise<void> {
    // The audit rows of calls already answered first: closing the upstreams may outlast the process's exit deadline (lifecycle.ts).
    await this.store.audit.flush();
    this.learning?.close();
    this.rebuilds.stop();
    await this.pool.close();
    await this.users?.closeAll();
    await this.embedderLoad.then((e) => e?.close()).catch(() => undefined);
    await this.ready.catch(() => undefined);
    this.secrets.stop();
    await this.store.close();
  }
}
