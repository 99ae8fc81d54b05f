/**
 * The store's one interface: everything the gateway keeps between calls and shares across
 * a fleet of replicas, in parts (audit log, approvals, exposed names, OAuth state,
 * embeddings, pinned tool definitions, learned query→tool evidence, events), each async,
 * with two backends behind it: SQLite (one file, the default) and PostgreSQL (a fleet).
 *
 * The store keeps rows and their clocks; it decides nothing. What goes in is the
 * callers' business: the audit guard redacts and bounds values before they reach
 * `audit`, the confirmation guard decides what a call's key and statement are, the
 * safety engineer's code what counts as a changed definition, the retrieval's what
 * evidence is enough. See docs/STORE.md.
 */

/** Which backend holds the store. */
export type StoreKind = 'sqlite' | 'postgres';

/** The decision audited for a call (guards/types.ts re-exports it). */
export type Decision = 'allowed' | 'corrected' | 'refused' | 'awaiting_approval' | 'approved' | 'denied';

/**
 * What happened to a call: `running` while it is forwarded (the row is committed before
 * the upstream is called, so a crash leaves it visible as such), then it ran and
 * succeeded, ran and failed (tool error or upstream failure), or never ran.
 */
export type Outcome = 'running' | 'ok' | 'error' | 'not_run';

export interface AuditEntry {
  /** Epoch ms when the call arrived. */
  time: number;
  sessionId: string;
  /** Absent when no personas are configured. */
  persona?: string;
  userId?: string;
  /** Resolved tool name, or the requested one when it resolved to nothing. */
  tool: string;
  /** Name as the host sent it (differs from `tool` after a correction). */
  requestedName: string;
  /** Arguments as forwarded, already redacted and bounded by the writer (guards/audit.ts). */
  args: Record<string, unknown>;
  /** The final decision (for a running call, the latest so far). */
  decision: Decision;
  /** Every decision taken on the way, in order (`corrected`, `approved`). */
  decisions: Decision[];
  notes: string[];
  /** Upstream latency in ms; absent when the call was not forwarded (or is still running). */
  upstreamMs?: number;
  outcome: Outcome;
  /** Error text of a failed call, or the refusal the host got; bounded by the writer. */
  detail?: string;
}

export interface AuditRecord extends AuditEntry {
  /** Increasing in the order rows were begun or recorded, across every replica. */
  id: number;
}

/** What `audit.complete` sets on a row begun with `audit.begin`. */
export interface AuditCompletion {
  outcome: Exclude<Outcome, 'running'>;
  decision: Decision;
  decisions: Decision[];
  notes: string[];
  upstreamMs?: number;
  detail?: string;
}

export interface AuditPart {
  /** Commits a row with outcome `running` and returns its id; `complete` finishes it. */
  begin(entry: Omit<AuditEntry, 'outcome'>): Promise<number>;
  /**
   * Finishes a row begun with `begin`, written behind the caller: in the transaction of the
   * next `begin`, or on its own after a short wait (store/audit.ts, COMPLETION_LINGER_MS),
   * or at `tail`, `flush` or the store's `close` if sooner.
   * @returns once written: false when no running row has this id.
   */
  complete(id: number, completion: AuditCompletion): Promise<boolean>;
  /** One finished row at once, for calls that never ran (and searches). Returns its id. */
  record(entry: AuditEntry): Promise<number>;
  /** The last `n` rows, oldest first; rows still `running` included (completions waiting are written first). */
  tail(n: number): Promise<AuditRecord[]>;
  /** Writes the completions waiting now; resolves once written (a failure is told to their `complete` callers). */
  flush(): Promise<void>;
}

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'used' | 'expired';

export interface Approval {
  /** Short random id a person types: `tool-curator approvals approve <id>`. */
  id: string;
  /** Opaque key of the call (the confirmation guard derives it). */
  key: string;
  sessionId: string;
  persona?: string;
  userId?: string;
  /** Exposed tool name. */
  tool: string;
  /** The name the model asked for, when the name guard corrected it to `tool`. */
  requestedName?: string;
  /** Arguments as shown to the person deciding (already redacted by the caller). */
  args: Record<string, unknown>;
  /** Canonical text of the call that the person's signature covers (set by the caller at request time). */
  statement?: string;
  /** `used` once `consume` succeeded: the single-use record (approval_uses) decides, not this row's status column. */
  status: ApprovalStatus;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms after which the request (or the approval, or the denial) no longer counts. */
  expiresAt: number;
  decidedAt?: number;
  /** Who decided: `cli`, `web`, ... */
  decidedBy?: string;
  /** The decider's signature (guards/approver.ts); the gateway honours only approvals whose signature verifies. */
  proof?: string;
  usedAt?: number;
}

export interface NewApproval extends Pick<Approval, 'key' | 'sessionId' | 'persona' | 'userId' | 'tool' | 'requestedName' | 'args' | 'statement'> {
  /** The request's id, when its maker chooses it; else 8 random characters. */
  id?: string;
  /** How long the request, and later the approval, stays valid, in ms. */
  ttlMs: number;
}

/**
 * Pending approvals. States: pending → approved → used, pending → denied,
 * pending|approved → expired. A pending request expires `ttlMs` after it is made; an
 * approval can be used once, within `ttlMs` after it was given; a denial blocks the same
 * call for `ttlMs` after it was given.
 */
export interface ApprovalsPart {
  /** Records a new pending request; emits `approval`. */
  request(input: NewApproval): Promise<Approval>;
  /** The request with this id, or `undefined` if there is none. */
  get(id: string): Promise<Approval | undefined>;
  /**
   * The newest request for `key` that still counts: pending, approved but unused, or
   * denied, and not past its time; `undefined` when a new request is due.
   */
  live(key: string): Promise<Approval | undefined>;
  /**
   * A person's decision on a pending request; the approval is valid for the request's
   * TTL from now. Emits `approval` so a call parked on any replica wakes.
   * @throws ApprovalError when the id is unknown, already decided, or expired.
   */
  decide(id: string, decision: 'approved' | 'denied', by: string, proof?: string): Promise<Approval>;
  /**
   * Uses an approval: true exactly once per approved, unexpired request, whichever
   * replica asks. The use is its own row (`approval_uses`, inserted or not, then read
   * back), so a row whose status is set back to `approved` is not usable again, and a
   * use row the store does not keep makes it false.
   */
  consume(id: string): Promise<boolean>;
  /**
   * Calls `listener` with the id of each approval used from now on, by any replica on this
   * store (this one included), as the store's events carry it; returns the unsubscribe.
   * Best effort, like every event: a replica not listening at the time misses it.
   */
  onUse(listener: (id: string) => void): () => void;
  /** Pending requests, oldest first; or, with `all`, the newest `limit` (default 50) of any status, newest first. */
  list(options?: { all?: boolean; limit?: number }): Promise<Approval[]>;
  /**
   * Resolves with the request once it is no longer pending (decided, used or expired),
   * or with its state after `timeoutMs`, or `undefined` if it does not exist. Woken by
   * the `approval` event of any replica; re-reads at most every second as a fallback.
   */
  wait(id: string, timeoutMs: number, signal?: AbortSignal): Promise<Approval | undefined>;
  /** The current time of the store's clock, in epoch ms. */
  clock(): number;
}

export interface RememberedName {
  server: string;
  upstreamName: string;
  name: string;
}

/**
 * The exposed-name memory (catalog/names.ts decides the names). A fleet assigns names
 * under `store.lock('names', …)`: load, decide, save, so replicas agree.
 */
export interface NamesPart {
  /** Every remembered name, keyed by `${server}\0${upstreamName}` (catalog/names.ts toolKey). */
  load(): Promise<Map<string, string>>;
  /** Remembers these names (insert or replace); rows of tools not listed stay. Emits `names` when a row changed. */
  save(entries: RememberedName[]): Promise<void>;
}

/** The kinds of relayed items whose exposed names are remembered, each apart. */
export type RelayNameKind = 'resources' | 'templates' | 'prompts';

/**
 * The exposed names of relayed prompts, resources and templates (relay/names.ts decides
 * them), as NamesPart is for tools; assigned under `store.lock('relay-names', …)`.
 */
export interface RelayNamesPart {
  /** Every remembered name of `kind`, keyed by `${server}\0${upstream name or URI}`. */
  load(kind: RelayNameKind): Promise<Map<string, string>>;
  /**
   * Remembers these names of `kind` (insert or replace); rows not listed stay, up to
   * `max` per kind: past it, those assigned longest ago go.
   */
  save(kind: RelayNameKind, entries: RememberedName[], max: number): Promise<void>;
}

export type OAuthField = 'client_information' | 'tokens' | 'code_verifier' | 'discovery' | 'pending_scope';

/**
 * Whose OAuth state: an upstream, the user it acts for (`''`: the gateway's own
 * authorization), and the upstream URL the state is bound to (state saved for another
 * URL reads back as absent).
 */
export interface OAuthKey {
  upstream: string;
  /** Default `''`: the gateway's own authorization. */
  subject?: string;
  url: string;
}

/** OAuth client state per (upstream, subject): values as the SDK hands them over (JSON text). */
export interface OAuthPart {
  /** The stored value of `field`, or `undefined` when absent or saved for another URL. */
  get(key: OAuthKey, field: OAuthField): Promise<string | undefined>;
  /** Sets (or with `undefined` clears) one field. A row saved for another URL is replaced. Emits `oauth`. */
  set(key: OAuthKey, field: OAuthField, value: string | undefined): Promise<void>;
  /** Sets (or clears) several fields in one transaction: a reader sees all of them or none (a new client with its tokens). Emits `oauth` once. */
  setAll(key: OAuthKey, values: Partial<Record<OAuthField, string | undefined>>): Promise<void>;
  /**
   * Sets `field` to `value` only if it still holds `expected` (compare-and-set, one
   * statement), so a writer never overwrites or clears what another wrote meanwhile.
   * @returns whether it was set.
   */
  setIf(key: OAuthKey, field: OAuthField, expected: string | undefined, value: string | undefined): Promise<boolean>;
  /** A number that grows with every write to the (upstream, subject) row, a clear included; 0 when nothing was ever stored. */
  version(upstream: string, subject?: string): Promise<number>;
  /** Deletes every value stored for (upstream, subject). Returns whether there was any. */
  clear(upstream: string, subject?: string): Promise<boolean>;
  /**
   * Moves the tokens (with the client and the rest) of subject `from` to subject `to`,
   * unless `to` holds tokens already: how a signed-in user gets back what a store before
   * version 6 kept under their user id (store/people.ts legacySignedInKey). Emits `oauth`.
   * @returns whether anything moved.
   */
  adopt(upstream: string, from: string, to: string): Promise<boolean>;
  /**
   * The subjects of `upstream` that hold tokens, by subject (the gateway's own `''` among
   * them when it has some), at most `limit`; never the tokens themselves.
   */
  consented(upstream: string, limit?: number): Promise<{ subject: string; updatedAt: number }[]>;
  /**
   * Keeps one step of an OAuth flow in progress (a consent link, a sign-in, an
   * authorization waiting for its redirect) under `id` until `expiresAt` (epoch ms), for
   * whichever replica the browser comes back to. Expired flows are deleted here, and
   * with `keep`, all but the `keep` latest-expiring flows of (upstream, subject).
   */
  putFlow(id: string, flow: OAuthFlow, expiresAt: number, keep?: number): Promise<void>;
  /** Takes the flow `id`: the first caller gets it (and it is gone), later ones and expired flows `undefined`. */
  takeFlow(id: string): Promise<OAuthFlow | undefined>;
  /** Reads the flow `id` without taking it (a sign-in's session, read on each request until it expires or is taken); expired flows `undefined`. */
  readFlow(id: string): Promise<OAuthFlow | undefined>;
}

/** One step of an OAuth flow in progress: whose, and the step's own data (JSON text, the caller's). */
export interface OAuthFlow {
  upstream: string;
  subject: string;
  data: string;
}

/**
 * Vectors keyed by (embedder id, SHA-256 of the text), for the curator's embeddings and
 * anything else small and vector-shaped it caches (its catalog trust, under
 * `<embedderId>#trust`). The curator takes any object with this shape as its cache.
 */
export interface EmbeddingCache {
  /** Cached vectors for `texts` (same order); undefined where absent. */
  get(embedderId: string, texts: readonly string[]): Promise<(Float32Array | undefined)[]>;
  /** Stores vectors (insert or replace), releases their claims and emits `embeddings`. */
  put(embedderId: string, entries: readonly { text: string; vector: Float32Array }[]): Promise<void>;
  /**
   * Claims texts to embed, so replicas sharing the store embed each text once: of
   * `texts` that have no vector yet, returns those this store instance now holds a
   * claim on (none held by another, or theirs older than `ttlMs`). The caller embeds
   * and `put`s its claimed texts; for the others it waits for their vectors (the
   * `embeddings` event) and claims again those still missing when their claims lapse.
   */
  claim?(embedderId: string, texts: readonly string[], ttlMs: number): Promise<string[]>;
  /** Subscribes to `put`s of this cache's store, any replica; returns the unsubscribe. */
  onPut?(fn: (embedderId: string) => void): () => void;
}

export type DefinitionStatus = 'accepted' | 'changed';

/** A tool definition as pinned when first seen, and a changed one waiting for a person. */
export interface DefinitionPin {
  server: string;
  upstreamName: string;
  /** Digest of the accepted definition. */
  digest: string;
  /** The accepted definition, as JSON text. */
  definition: string;
  status: DefinitionStatus;
  pendingDigest?: string;
  pendingDefinition?: string;
  firstSeenAt: number;
  changedAt?: number;
  decidedAt?: number;
  decidedBy?: string;
  /** The signature of whoever accepted the current definition (the accepting side's business); absent for a definition pinned when first seen. */
  proof?: string;
  /** The definition the last acceptance replaced (digest and text): what `reopen` goes back to. */
  priorDigest?: string;
  priorDefinition?: string;
  /** Why the last acceptance stopped counting (`reopen`), until a person accepts again. */
  voided?: string;
}

/** Pinned tool definitions. The store keeps them; the guards decide what a change is. */
export interface DefinitionsPart {
  get(server: string, upstreamName: string): Promise<DefinitionPin | undefined>;
  /** Every pin, by server and name; with `status`, only those. */
  list(options?: { status?: DefinitionStatus; server?: string }): Promise<DefinitionPin[]>;
  /**
   * Pins a definition first seen, atomically: the row already there, if any, wins and
   * is returned with `created: false`.
   */
  pinIfAbsent(pin: { server: string; upstreamName: string; digest: string; definition: string }): Promise<{ pin: DefinitionPin; created: boolean }>;
  /**
   * pinIfAbsent for many definitions, a few hundred per transaction (a first catalog of
   * 100,000 tools is not 100,000 commits): the rows stored afterwards for them, whichever
   * wrote them.
   */
  pinAllIfAbsent(pins: readonly { server: string; upstreamName: string; digest: string; definition: string }[]): Promise<DefinitionPin[]>;
  /** Records a changed definition waiting for a person (status `changed`); `undefined` when there is no pin. */
  markChanged(server: string, upstreamName: string, pendingDigest: string, pendingDefinition: string): Promise<DefinitionPin | undefined>;
  /**
   * A person accepts the pending definition whose digest is `digest` (what they were
   * shown): it becomes the pinned one, with `proof` (their signature) kept beside it and
   * `at` (default now) as its time, and the one it replaces is kept as the prior. Emits `definition`.
   * @returns false when the pending digest is another (changed again meanwhile) or none.
   */
  accept(server: string, upstreamName: string, digest: string, by: string, proof?: string, at?: number): Promise<boolean>;
  /**
   * An acceptance stopped counting (`why`): the definition accepted with `digest` is
   * pending again (unless a later change is pending already) and the one it replaced is
   * pinned again (none known: an empty one, digest `none`), status `changed`. Does nothing
   * unless `digest` is the accepted one and a person accepted it; emits `definition` when it did something.
   * @returns the pin as it is afterwards; `undefined` when there is none.
   */
  reopen(server: string, upstreamName: string, digest: string, why: string): Promise<DefinitionPin | undefined>;
  /** Drops a pending change (the upstream went back to the pinned definition): status `accepted` again. */
  clearChange(server: string, upstreamName: string): Promise<void>;
}

export interface LearnedEvidence {
  persona: string;
  /** Default `''`. */
  tenant?: string;
  userId: string;
  query: string;
  /** Exposed tool name. */
  tool: string;
  /** Epoch ms; default now. */
  at?: number;
}

export interface LearnedPair {
  query: string;
  tool: string;
  /** Distinct users who gave this evidence. */
  users: number;
  count: number;
  lastAt: number;
}

/** Evidence that a query led to a tool; what is enough evidence is the retrieval's call. */
export interface LearnedPart {
  add(evidence: LearnedEvidence): Promise<void>;
  /** (query, tool) pairs of a persona (and tenant, default `''`) with at least `minUsers` distinct users, counted from `since` (epoch ms). */
  pairs(options: { persona: string; tenant?: string; minUsers: number; since?: number }): Promise<LearnedPair[]>;
  /** The (persona, tenant) pairs that have evidence, from `since` (epoch ms), sorted. */
  scopes(options?: { since?: number }): Promise<{ persona: string; tenant: string }[]>;
  /** Deletes the evidence matching every given field (`before`: older than this epoch ms); returns how many rows went. */
  forget(options: { persona?: string; tenant?: string; tool?: string; query?: string; before?: number }): Promise<number>;
}

/** Topics and their payloads. */
export interface StoreEvents {
  /** An approval request was made or decided. */
  approval: { id: string; status: ApprovalStatus };
  /** The OAuth state of (upstream, subject) changed. */
  oauth: { upstream: string; subject: string };
  /** A person accepted a changed definition, or an acceptance stopped counting (`reopen`). */
  definition: { server: string; upstreamName: string };
  /** Remembered exposed names changed. */
  names: Record<string, never>;
  /** Vectors of this embedder were stored. */
  embeddings: { embedder: string };
  /**
   * Events of other processes may have been missed (the listener connected or
   * reconnected; delivered in this process only): re-read whatever is waited for.
   */
  resync: Record<string, never>;
}

export type StoreTopic = keyof StoreEvents;

/**
 * Events across the fleet: PostgreSQL LISTEN/NOTIFY; SQLite: in-process, plus a table
 * read every second while someone listens, for other processes on the same file.
 * Delivery is best effort (a replica whose connection is down misses events): whoever
 * waits on one also re-reads the rows it cares about, at the latest on `resync`. The
 * first subscription starts listening to other processes, until the store is closed.
 */
export interface EventsPart {
  /** Subscribes; returns the unsubscribe. */
  on<T extends StoreTopic>(topic: T, fn: (payload: StoreEvents[T]) => void): () => void;
  emit<T extends StoreTopic>(topic: T, payload: StoreEvents[T]): Promise<void>;
}

/** One upstream connection's protocol era as last found (upstream/era.ts). */
export interface EraVerdictRow {
  era: 'modern' | 'legacy';
  /** The upstream's `server/discover` result as JSON (modern only). */
  discover?: string;
  /** Epoch ms of the probe that found it. */
  storedAt: number;
}

/** Era verdicts keyed by the connection's identity (upstream/era.ts verdictKey). */
export interface EraVerdictsPart {
  get(key: string): Promise<EraVerdictRow | undefined>;
  /** Stores (or replaces) the verdict, dated `now` (default: the clock). */
  put(key: string, verdict: Omit<EraVerdictRow, 'storedAt'>, now?: number): Promise<void>;
  drop(key: string): Promise<void>;
}

/** One cached upstream result, as the SDK's `CacheEntry`: the JSON text and its client-computed freshness. */
export interface CachedResponse {
  value: string;
  /** Store-made write counter, increasing. */
  stamp: number;
  /** Epoch ms after which the entry is stale. */
  expiresAt?: number;
  scope?: 'public' | 'private';
}

/**
 * The upstream clients' response cache (upstream/responseCache.ts adapts it to the SDK's
 * `ResponseCacheStore`), shared by every replica. `part` is the partition string the
 * caller builds (its own namespace first); `partPrefix` selects one namespace.
 */
export interface ResponseCachePart {
  get(method: string, params: string, part: string): Promise<CachedResponse | undefined>;
  /** Writes the entry and returns its stamp; past `maxRows` rows the oldest writes are dropped. */
  set(method: string, params: string, part: string, entry: Omit<CachedResponse, 'stamp'>, maxRows: number): Promise<number>;
  delete(method: string, params: string, part: string): Promise<void>;
  evict(method: string, partPrefix: string): Promise<void>;
  clear(partPrefix: string): Promise<void>;
}

/**
 * The sealing of `requestState` (guards/sealed.ts): one key for the fleet and single-use
 * nonces. Holds no business rule: what is sealed, and when a state counts, is the guard's.
 */
export interface SealingPart {
  /** The 32-byte sealing key: created by the first process that asks, the same for every replica after. */
  key(): Promise<Buffer>;
  /** Records `nonce` as spent until `expiresAt` (epoch ms): true the first time, false for every later spend, on any replica. */
  spend(nonce: string, expiresAt: number): Promise<boolean>;
}

export interface Store {
  readonly kind: StoreKind;
  /** The file path, or the URL with the password removed: safe to log. */
  readonly location: string;
  readonly audit: AuditPart;
  readonly approvals: ApprovalsPart;
  readonly names: NamesPart;
  readonly relayNames: RelayNamesPart;
  readonly oauth: OAuthPart;
  readonly embeddings: EmbeddingCache & Required<Pick<EmbeddingCache, 'claim' | 'onPut'>>;
  readonly definitions: DefinitionsPart;
  readonly learned: LearnedPart;
  readonly eras: EraVerdictsPart;
  readonly responseCache: ResponseCachePart;
  readonly sealing: SealingPart;
  readonly events: EventsPart;
  /**
   * Runs `fn` while holding the fleet-wide lock `name` (one holder at a time across
   * every process on this store): PostgreSQL session advisory lock; SQLite: a lease row
   * (renewed while held, lapsing if its holder dies). In-process callers queue first.
   * @throws StoreUnavailableError when the lock cannot be had within the lock timeout.
   */
  lock<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** Resolves when the store answers; throws StoreUnavailableError (down, or its file deleted) otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
