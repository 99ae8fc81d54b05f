/**
 * Resources, resource templates, prompts and completion through the gateway: one
 * aggregate over the connected upstreams (names from names.ts), filtered by the
 * persona, paginated by the gateway (cursor.ts), and every request routed back to the
 * upstream that owns the item under the upstream's own name or URI. Content passes
 * through unchanged but for resources the persona may not receive (withheld.ts); sizes are
 * bounded; an upstream's questions during a read or prompt reach the host as during a
 * tools/call (upstreamRequests.ts). Emits `list-changed` (kind, user?) when an
 * upstream's resources or prompts change (with a user: only that user's own lists did).
 *
 * A per-user upstream's items (perUser.ts) are a user's own: their lists through their
 * own connection join that user's aggregate, and their reads, gets, completions and
 * subscriptions go through it. For everyone else — users who have not connected that
 * account, sessions without a user id — the upstream's items, as the gateway's own
 * account lists them, are routing only: never listed, never read through; a request
 * naming one is offered the consent link. Persona patterns and resource deny rules apply
 * to them exactly as to any upstream's, before any consent is offered.
 */
import { EventEmitter } from 'node:events';
import {
  isInputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  type CompleteRequest,
  type CompleteResult,
  type GetPromptResult,
  type InputRequiredResult,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType,
  type ServerCapabilities,
} from '@modelcontextprotocol/client';
import type { Policy } from '../policy/policy.js';
import { RelayError } from './errors.js';
import type { UpstreamPool } from '../upstream/pool.js';
import { userKey } from '../upstream/users.js';
import { paginate } from './cursor.js';
import type { ListKind } from '../upstream/lists.js';
import { canonicalUri } from '../policy/uri.js';
import { inGatewayScheme, MemoryRelayNames, prefixUri, unprefixUri, type RelayCatalog, type RelayNameMemory } from './names.js';
import { expansion, keepValues } from './completion.js';
import type { PerUserRelay } from './perUser.js';
import { Subscriptions, type Channel, type Notify } from './subscriptions.js';
import type { MayReceive } from '../policy/contents.js';
import { readableContents, withholdMessages } from './withheld.js';
import type { RelayCaller } from './types.js';
import { RelayViews, type View } from './views.js';
import type { CallRelay } from './calls.js';
import { UpstreamRequests } from './upstreamRequests.js';

export interface RelayBounds {
  /** Items per page of the gateway's own lists. */
  pageSize: number;
  /** Largest read or prompt result passed on, in bytes of JSON. */
  maxReadBytes: number;
  /** Time an upstream gets to answer a read, get or complete. */
  callMs: number;
}

/**
 * The longest `ttlMs` a relayed resources/read carries to the host: the lists' (host/era.ts
 * LIST_TTL_MS). The answer depends on the persona, which a live personas edit changes; an
 * upstream's own hint (up to the SDK's 24 h) would let a host keep a withdrawn resource that long.
 */
export const READ_TTL_MAX_MS = 60_000;

/** Where a host's request goes: the owning upstream and its own URI. */
export interface UriTarget {
  server: string;
  /** The canonical upstream URI: what the policy decided on and what is forwarded. */
  uri: string;
  /** The canonical URI as the host names it: `uri`, or prefixed when the host used the prefix. */
  exposed: string;
}

export class Relay extends EventEmitter {
  readonly subscriptions: Subscriptions;
  private started = false;
  private readonly servers: ReadonlySet<string>;
  private readonly views: RelayViews;
  private readonly upstream: UpstreamRequests;

  /**
   * @param servers every configured upstream, in config order.
   * @param names where exposed names are remembered (names.ts); default: for this process's life.
   * @param perUser the per-user upstreams' side (perUser.ts); absent when none is configured.
   * @param calls the call relay (calls.ts): an upstream's questions during a read or prompt reach the host through it; absent: they are refused.
   */
  constructor(
    pool: UpstreamPool,
    private readonly policy: Policy,
    private readonly bounds: RelayBounds,
    servers: Iterable<string>,
    names: RelayNameMemory = new MemoryRelayNames(),
    private readonly perUser?: PerUserRelay,
    calls?: Pick<CallRelay, 'during'>,
  ) {
    super();
    this.setMaxListeners(0);
    this.servers = new Set(servers);
    this.views = new RelayViews(pool, this.servers, names, perUser);
    this.upstream = new UpstreamRequests(pool, bounds.callMs, perUser, calls);
    this.subscriptions = new Subscriptions(pool);
    perUser?.listen(
      (kind, user) => this.emit('list-changed', kind, user),
      (server, user, uri) => this.subscriptions.updated(userKey(server, user), uri),
      (server, user, uris) => this.subscriptions.ended(userKey(server, user), uris),
    );
    pool.on('relay-change', (_server: string, kind: ListKind) => {
      this.views.changed();
      if (this.started) void this.views.refresh();
      this.emit('list-changed', kind);
    });
    pool.on('connected', () => void (this.started && this.views.refresh()));
  }

  /**
   * Names the items of the upstreams connected at start, in config order (with a
   * store-backed memory, keeping the names every replica saved before); from then on each
   * change is named as it arrives, so the first holder of a name keeps it. Call once the
   * pool's start has ended; resolves once named.
   */
  start(): Promise<void> {
    this.started = true;
    return this.views.refresh();
  }

  /**
   * What the host-facing server advertises besides tools: everything the gateway
   * implements, whatever the upstreams offer (an empty aggregate when none does; a
   * subscription an upstream cannot take is refused with its error). Fixed, so a host's
   * `initialize` never waits for the upstreams to connect and the answer does not vary
   * with start-up order — as the 2026-07-28 revision's stateless servers need.
   */
  capabilities(): ServerCapabilities {
    return { resources: { listChanged: true, subscribe: true }, prompts: { listChanged: true }, completions: {} };
  }

  /** A user has just connected a per-user upstream's account: that user's sessions re-list. */
  userConnected(user: string): void {
    for (const kind of ['resources', 'prompts'] as const) this.emit('list-changed', kind, user);
  }

  private allows(persona: string | undefined, kind: 'resources' | 'prompts', e: { server: string; upstream: string; exposed: string }): boolean {
    return this.policy.isRelayAllowed(persona, kind, e.server, [e.upstream, e.exposed]);
  }

  /** Whether a reading of a URI of `server` expands one of its templates the persona may use. */
  private viaTemplate(v: View, persona: string | undefined, server: string): (reading: string) => boolean {
    const templates = v.catalog.templates.filter((e) => e.server === server && e.matcher);
    return (reading) => templates.some((e) => e.matcher!.match(reading) !== null && this.allows(persona, 'resources', e));
  }

  private resourceAllowed(v: View, persona: string | undefined, server: string, uri: string, exposed: string): boolean {
    return this.policy.isResourceAllowed(persona, server, uri, { exposed, viaTemplate: this.viaTemplate(v, persona, server) });
  }

  /** One page of the caller's resources (`cursor` from the previous page). */
  async listResources(who: RelayCaller, cursor?: string): Promise<{ resources: Resource[]; nextCursor?: string }> {
    const v = await this.views.for(who);
    // A resource pattern must name a listed resource: an allowed template lets the persona read what it expands to, not list it.
    const all = v.catalog.resources.filter((e) => !v.routingOnly.has(e.server) && this.policy.isResourceAllowed(who.persona, e.server, e.upstream, { exposed: e.exposed })).map((e) => e.item);
    const { items, nextCursor } = paginate(all, this.bounds.pageSize, 'resources', v.key, cursor);
    return { resources: items, ...(nextCursor && { nextCursor }) };
  }

  async listTemplates(who: RelayCaller, cursor?: string): Promise<{ resourceTemplates: ResourceTemplateType[]; nextCursor?: string }> {
    const v = await this.views.for(who);
    const all = v.catalog.templates.filter((e) => !v.routingOnly.has(e.server) && this.allows(who.persona, 'resources', e)).map((e) => e.item);
    const { items, nextCursor } = paginate(all, this.bounds.pageSize, 'templates', v.key, cursor);
    return { resourceTemplates: items, ...(nextCursor && { nextCursor }) };
  }

  async listPrompts(who: RelayCaller, cursor?: string): Promise<{ prompts: Prompt[]; nextCursor?: string }> {
    const v = await this.views.for(who);
    const all = v.catalog.prompts.filter((e) => !v.routingOnly.has(e.server) && this.allows(who.persona, 'prompts', e)).map((e) => e.item);
    const { items, nextCursor } = paginate(all, this.bounds.pageSize, 'prompts', v.key, cursor);
    return { prompts: items, ...(nextCursor && { nextCursor }) };
  }

  /**
   * The upstream and canonical upstream URI behind `uri` in `v`, whatever the persona: a
   * prefixed URI names its server (a URI in the gateway's scheme naming no configured
   * upstream is refused); otherwise a listed resource, then an unprefixed template that
   * matches (config order), then the only upstream that offers resources, if only one does
   * (servers may serve and accept subscriptions for URIs they do not list). The URI is
   * canonicalised first (policy/uri.ts): what does not parse is refused.
   * @returns undefined when refused or unknown.
   */
  private locate(v: View, uri: string): UriTarget | undefined {
    const prefixed = unprefixUri(uri, this.servers);
    if (prefixed) {
      const c = canonicalUri(prefixed.uri);
      return c.ok ? { server: prefixed.server, uri: c.uri, exposed: prefixUri(prefixed.server, c.uri) } : undefined;
    }
    if (inGatewayScheme(uri)) return undefined;
    const c = canonicalUri(uri);
    if (!c.ok) return undefined;
    const listed = v.resources.get(c.uri);
    if (listed) return { server: listed.server, uri: listed.upstream, exposed: c.uri };
    const t = v.catalog.templates.find((e) => e.exposed === e.upstream && e.matcher?.match(c.uri));
    if (t) return { server: t.server, uri: c.uri, exposed: c.uri };
    const owners = v.upstreams.filter((u) => u.caps.resources);
    return owners.length === 1 ? { server: owners[0]!.name, uri: c.uri, exposed: c.uri } : undefined;
  }

  /**
   * `locate`, if the persona may read the URI: allowed by a resource pattern over it, or by
   * one over an allowed template it expands, in every reading, and denied in none
   * (Policy.isResourceAllowed). The target's `uri` is the one string both decided on and
   * forwarded. A per-user upstream's URI is decided on the same way, before any consent.
   * @returns undefined when refused, unknown or not allowed: the three look the same to the host.
   */
  async resolveUri(who: RelayCaller, uri: string): Promise<UriTarget | undefined> {
    return this.resolveIn(await this.views.for(who), who.persona, uri);
  }

  private resolveIn(v: View, persona: string | undefined, uri: string): UriTarget | undefined {
    const target = this.locate(v, uri);
    return target && this.resourceAllowed(v, persona, target.server, target.uri, target.exposed) ? target : undefined;
  }

  /**
   * How a resource URI that upstream `server` puts in an answer (an embedded resource, a
   * resource link, a read's contents) is decided for the persona: as a read of it would be
   * (a URI in the gateway's scheme for the upstream it names), over the shared view's
   * templates. Undefined for an open policy, whose answers pass unlooked-at.
   */
  mayReceive(persona: string | undefined, server: string): MayReceive | undefined {
    if (this.policy.open) return undefined;
    const v = this.views.shared();
    return (uri) => {
      const prefixed = unprefixUri(uri, this.servers);
      if (prefixed) return this.resourceAllowed(v, persona, prefixed.server, prefixed.uri, uri);
      return !inGatewayScheme(uri) && this.resourceAllowed(v, persona, server, uri, uri);
    };
  }

  private bounded<T>(result: T, what: string): T {
    const bytes = Buffer.byteLength(JSON.stringify(result));
    if (bytes > this.bounds.maxReadBytes) {
      throw new RelayError(ProtocolErrorCode.InternalError, `${what} is ${bytes} bytes, over the gateway's limit of ${this.bounds.maxReadBytes} (relay.max_read_bytes)`);
    }
    return result;
  }

  /**
   * resources/read through the owning upstream; contents as sent, URIs re-prefixed when the
   * host used a prefixed one. An upstream's questions reach the host as during a tools/call (`asking`).
   */
  async read(who: RelayCaller, uri: string): Promise<ReadResourceResult | InputRequiredResult> {
    const notFound = () => new ResourceNotFoundError(uri);
    const target = await this.resolveUri(who, uri);
    if (!target) throw notFound();
    const answer = await this.upstream.asking(who, target.server, [`reading ${uri}`, `read ${uri}`], `resources/read ${target.exposed}`, undefined, (c, params, options) =>
      // A retry's answer is this user's: its result is neither served from nor kept in the response cache.
      c.readResource({ uri: target.uri, ...params }, { ...options, ...(params.inputResponses && { cacheMode: 'bypass' }) }),
    );
    if (isInputRequiredResult(answer)) return answer;
    this.bounded(answer, `resource ${uri}`);
    const mayReceive = this.mayReceive(who.persona, target.server);
    const contents = mayReceive ? readableContents(answer.contents, target.uri, mayReceive) : answer.contents;
    if (contents.length === 0 && answer.contents.length > 0) throw notFound();
    // What the gateway answers depends on the persona: `private` to the host whatever the upstream's hint says, and kept
    // no longer than the lists are (a personas edit reaches a caching host within READ_TTL_MAX_MS).
    const ttl = (answer as { ttlMs?: unknown }).ttlMs;
    const result = {
      ...answer,
      contents,
      ...('cacheScope' in answer && { cacheScope: 'private' as const }),
      ...(typeof ttl === 'number' && ttl > READ_TTL_MAX_MS && { ttlMs: READ_TTL_MAX_MS }),
    };
    if (target.exposed === target.uri) return result;
    return { ...result, contents: result.contents.map((c) => ({ ...c, uri: prefixUri(target.server, c.uri) })) };
  }

  /** prompts/get with the host's arguments, under the upstream's own prompt name; its questions as for `read`. */
  async getPrompt(who: RelayCaller, name: string, args: Record<string, string> | undefined): Promise<GetPromptResult | InputRequiredResult> {
    const e = (await this.views.for(who)).prompts.get(name);
    if (!e || !this.allows(who.persona, 'prompts', e)) throw new RelayError(ProtocolErrorCode.InvalidParams, `unknown prompt ${name}; prompts/list shows the prompts you may use`);
    const result = await this.upstream.asking(who, e.server, [`prompt ${name}`, `get the prompt ${name}`], `prompts/get ${name}`, args ?? {}, (c, params, options) =>
      c.getPrompt({ name: e.upstream, ...(args && { arguments: args }), ...params }, options),
    );
    if (isInputRequiredResult(result)) return result;
    this.bounded(result, `prompt ${name}`);
    const mayReceive = this.mayReceive(who.persona, e.server);
    return mayReceive ? withholdMessages(result, mayReceive) : result;
  }

  /**
   * completion/complete, routed by its ref: a prompt name, or a resource template (or
   * resource) URI. Values that would lead to a resource the persona may not read are left
   * out (completion.ts). A per-user upstream the caller has not connected suggests nothing
   * (no consent link for a keystroke).
   */
  async complete(who: RelayCaller, params: CompleteRequest['params']): Promise<CompleteResult> {
    const { persona } = who;
    const v = await this.views.for(who);
    const { ref } = params;
    let server: string | undefined;
    let upstreamRef: CompleteRequest['params']['ref'] | undefined;
    let template: RelayCatalog['templates'][number] | undefined;
    if (ref.type === 'ref/prompt') {
      const e = v.prompts.get(ref.name);
      if (e && this.allows(persona, 'prompts', e)) [server, upstreamRef] = [e.server, { ...ref, name: e.upstream }];
    } else {
      template = v.templates.get(ref.uri);
      const listed = template ? undefined : this.resolveIn(v, persona, ref.uri);
      if (template && this.allows(persona, 'resources', template)) [server, upstreamRef] = [template.server, { ...ref, uri: template.upstream }];
      else if (listed && v.resources.has(listed.exposed)) [server, upstreamRef] = [listed.server, { ...ref, uri: listed.uri }];
    }
    if (!server || !upstreamRef) {
      const what = ref.type === 'ref/prompt' ? `prompt ${ref.name}` : `resource template ${ref.uri}`;
      throw new RelayError(ProtocolErrorCode.InvalidParams, `unknown ${what}; nothing to complete`);
    }
    const caps = v.upstreams.find((u) => u.name === server)?.caps;
    // The owner offers no completions: no suggestions, which is what the spec lets a server answer.
    if (!caps?.completions || v.routingOnly.has(server)) return { completion: { values: [], hasMore: false } };
    const request = { ...params, ref: upstreamRef };
    const result = await this.upstream.through(who, server, 'completion', 'complete', (c) => c.complete(request, { timeout: this.bounds.callMs }));
    const owner = server;
    const matcher = template?.matcher;
    return keepValues(result, (value) => {
      if (this.policy.isResourceDenied(persona, owner, value)) return false;
      if (!matcher) return template === undefined;
      const uri = expansion(matcher, params, value);
      return uri !== undefined && this.resourceAllowed(v, persona, owner, uri, uri);
    });
  }

  /** The subscription channel of `server` for the caller: their own connection for a per-user upstream, else the shared one. */
  private channel(who: RelayCaller, server: string): Channel | undefined {
    const perUser = this.perUser;
    if (!perUser?.has(server)) return undefined;
    const user = who.userId ?? '';
    return { via: userKey(server, user), subscribe: (uri) => perUser.subscribe(who, server, uri), unsubscribe: (uri) => perUser.unsubscribe(server, user, uri) };
  }

  /**
   * resources/subscribe for one session, if the persona may read the URI.
   * @throws ResourceNotFoundError; RelayError with the upstream's refusal.
   */
  async subscribe(sessionId: string, who: RelayCaller, uri: string, notify: Notify): Promise<void> {
    const v = await this.views.for(who);
    const target = this.resolveIn(v, who.persona, uri);
    if (!target) throw new ResourceNotFoundError(uri);
    // Decided again at each update, so a reload that narrows access ends the subscription.
    const mayRead = () => {
      const now = this.resolveIn(v, who.persona, uri);
      return now?.server === target.server && now.uri === target.uri;
    };
    try {
      await this.subscriptions.subscribe(sessionId, target, { notify, mayRead }, this.channel(who, target.server));
    } catch (err) {
      const e = err instanceof ProtocolError ? err : new RelayError(ProtocolErrorCode.InternalError, (err as Error).message);
      throw new RelayError(e.code, `could not subscribe to ${uri}: ${e.message}`);
    }
  }

  /** resources/unsubscribe, whatever the persona may read now: a subscription held from before a reload can still be dropped. */
  async unsubscribe(sessionId: string, who: RelayCaller, uri: string): Promise<void> {
    const target = this.locate(await this.views.for(who), uri);
    if (target) await this.subscriptions.unsubscribe(sessionId, this.channel(who, target.server)?.via ?? target.server, target.uri);
  }
}
