/**
 * Resources, resource templates, prompts and completion through the gateway: one
 * aggregate over the connected upstreams (names from names.ts), filtered by the
 * persona, paginated by the gateway (cursor.ts), and every request routed back to the
 * upstream that owns the item under the upstream's own name or URI. Content passes
 * through unchanged but for resources the persona may not receive (withheld.ts); sizes
 * are bounded. Emits `list-changed` (kind) when an
 * upstream's resources or prompts change.
 */
import { EventEmitter } from 'node:events';
import {
  ErrorCode,
  McpError,
  type CompleteRequest,
  type CompleteResult,
  type GetPromptResult,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type { Policy } from '../policy/policy.js';
import { RelayError } from './errors.js';
import type { UpstreamPool } from '../upstream/pool.js';
import { paginate } from './cursor.js';
import type { ListKind } from '../upstream/lists.js';
import { canonicalUri } from '../policy/uri.js';
import { buildRelayCatalog, inGatewayScheme, MemoryRelayNames, prefixUri, unprefixUri, type RelayCatalog, type RelayEntry, type RelayNameMemory } from './names.js';
import { expansion, keepValues } from './completion.js';
import { Subscriptions } from './subscriptions.js';
import type { MayReceive } from '../policy/contents.js';
import { readableContents, withholdMessages } from './withheld.js';

/** JSON-RPC error code for an unknown resource (MCP spec, resources). */
export const RESOURCE_NOT_FOUND = -32002;

export interface RelayBounds {
  /** Items per page of the gateway's own lists. */
  pageSize: number;
  /** Largest read or prompt result passed on, in bytes of JSON. */
  maxReadBytes: number;
  /** Time an upstream gets to answer a read, get or complete. */
  callMs: number;
}

/** Where a host's request goes: the owning upstream and its own URI. */
export interface UriTarget {
  server: string;
  /** The canonical upstream URI: what the policy decided on and what is forwarded. */
  uri: string;
  /** The canonical URI as the host names it: `uri`, or prefixed when the host used the prefix. */
  exposed: string;
}

/**
 * Passes an upstream's own MCP error on with its code and message (without the SDK's
 * "MCP error N:" prefix, which the host's SDK adds again); anything else (a lost
 * connection) becomes an internal error naming what failed.
 */
async function fromUpstream<T>(what: string, p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof McpError) throw RelayError.from(err);
    throw new RelayError(ErrorCode.InternalError, `${what} failed: ${(err as Error).message}`);
  }
}

type View = {
  key: string;
  catalog: RelayCatalog;
  /** By exposed URI: canonical, or prefixed with a canonical upstream URI. */
  resources: Map<string, RelayEntry<Resource>>;
  templates: Map<string, RelayCatalog['templates'][number]>;
  prompts: Map<string, RelayEntry<Prompt>>;
};

export class Relay extends EventEmitter {
  readonly subscriptions: Subscriptions;
  private changes = 0;
  private started = false;
  private cached?: View;
  private readonly servers: ReadonlySet<string>;

  /**
   * @param servers every configured upstream, in config order.
   * @param names where exposed names are remembered (names.ts); default: for this process's life.
   */
  constructor(
    private readonly pool: UpstreamPool,
    private readonly policy: Policy,
    private readonly bounds: RelayBounds,
    servers: Iterable<string>,
    private readonly names: RelayNameMemory = new MemoryRelayNames(),
  ) {
    super();
    this.setMaxListeners(0);
    this.servers = new Set(servers);
    this.subscriptions = new Subscriptions(pool);
    pool.on('relay-change', (_server: string, kind: ListKind) => {
      this.changes++;
      if (this.started) this.view();
      this.emit('list-changed', kind);
    });
    pool.on('connected', () => void (this.started && this.view()));
  }

  /**
   * Names the items of the upstreams connected at start, in config order; from then on
   * each change is named as it arrives, so the first holder of a name keeps it. Call once
   * the pool's start has ended.
   */
  start(): void {
    this.started = true;
    this.view();
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

  /** The aggregate, rebuilt when an upstream's lists change or an upstream comes or goes. */
  private view(): View {
    const upstreams = this.pool.relayed();
    const key = `${this.changes}:${upstreams.map((u) => u.name).join(',')}`;
    if (this.cached?.key !== key) {
      const catalog = buildRelayCatalog(upstreams, this.names, [...this.servers]);
      const byExposed = <T extends { exposed: string }>(xs: T[]) => new Map(xs.map((e) => [e.exposed, e]));
      this.cached = { key, catalog, resources: byExposed(catalog.resources), templates: byExposed(catalog.templates), prompts: byExposed(catalog.prompts) };
    }
    return this.cached;
  }

  private allows(persona: string | undefined, kind: 'resources' | 'prompts', e: { server: string; upstream: string; exposed: string }): boolean {
    return this.policy.isRelayAllowed(persona, kind, e.server, [e.upstream, e.exposed]);
  }

  /** Whether a reading of a URI of `server` expands one of its templates the persona may use. */
  private viaTemplate(persona: string | undefined, server: string): (reading: string) => boolean {
    const templates = this.view().catalog.templates.filter((e) => e.server === server && e.matcher);
    return (reading) => templates.some((e) => e.matcher!.match(reading) !== null && this.allows(persona, 'resources', e));
  }

  private resourceAllowed(persona: string | undefined, server: string, uri: string, exposed: string): boolean {
    return this.policy.isResourceAllowed(persona, server, uri, { exposed, viaTemplate: this.viaTemplate(persona, server) });
  }

  /** One page of the persona's resources (`cursor` from the previous page). */
  listResources(persona: string | undefined, cursor?: string): { resources: Resource[]; nextCursor?: string } {
    const v = this.view();
    // A resource pattern must name a listed resource: an allowed template lets the persona read what it expands to, not list it.
    const all = v.catalog.resources.filter((e) => this.policy.isResourceAllowed(persona, e.server, e.upstream, { exposed: e.exposed })).map((e) => e.item);
    const { items, nextCursor } = paginate(all, this.bounds.pageSize, 'resources', v.key, cursor);
    return { resources: items, ...(nextCursor && { nextCursor }) };
  }

  listTemplates(persona: string | undefined, cursor?: string): { resourceTemplates: ResourceTemplate[]; nextCursor?: string } {
    const v = this.view();
    const all = v.catalog.templates.filter((e) => this.allows(persona, 'resources', e)).map((e) => e.item);
    const { items, nextCursor } = paginate(all, this.bounds.pageSize, 'templates', v.key, cursor);
    return { resourceTemplates: items, ...(nextCursor && { nextCursor }) };
  }

  listPrompts(persona: string | undefined, cursor?: string): { prompts: Prompt[]; nextCursor?: string } {
    const v = this.view();
    const all = v.catalog.prompts.filter((e) => this.allows(persona, 'prompts', e)).map((e) => e.item);
    const { items, nextCursor } = paginate(all, this.bounds.pageSize, 'prompts', v.key, cursor);
    return { prompts: items, ...(nextCursor && { nextCursor }) };
  }

  /**
   * The upstream and canonical upstream URI behind `uri`, whatever the persona: a prefixed
   * URI names its server (a URI in the gateway's scheme naming no configured upstream is
   * refused); otherwise a listed resource, then an unprefixed template that matches
   * (config order), then the only upstream that offers resources, if only one does
   * (servers may serve and accept subscriptions for URIs they do not list). The URI is
   * canonicalised first (policy/uri.ts): what does not parse is refused.
   * @returns undefined when refused or unknown.
   */
  locate(uri: string): UriTarget | undefined {
    const v = this.view();
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
    const owners = this.pool.relayed().filter((u) => u.caps.resources);
    return owners.length === 1 ? { server: owners[0]!.name, uri: c.uri, exposed: c.uri } : undefined;
  }

  /**
   * `locate`, if the persona may read the URI: allowed by a resource pattern over it, or by
   * one over an allowed template it expands, in every reading, and denied in none
   * (Policy.isResourceAllowed). The target's `uri` is the one string both decided on and
   * forwarded.
   * @returns undefined when refused, unknown or not allowed: the three look the same to the host.
   */
  resolveUri(persona: string | undefined, uri: string): UriTarget | undefined {
    const target = this.locate(uri);
    return target && this.resourceAllowed(persona, target.server, target.uri, target.exposed) ? target : undefined;
  }

  /**
   * How a resource URI that upstream `server` puts in an answer (an embedded resource, a
   * resource link, a read's contents) is decided for the persona: as a read of it would be
   * (a URI in the gateway's scheme for the upstream it names). Undefined for an open
   * policy, whose answers pass unlooked-at.
   */
  mayReceive(persona: string | undefined, server: string): MayReceive | undefined {
    if (this.policy.open) return undefined;
    return (uri) => {
      const prefixed = unprefixUri(uri, this.servers);
      if (prefixed) return this.resourceAllowed(persona, prefixed.server, prefixed.uri, uri);
      return !inGatewayScheme(uri) && this.resourceAllowed(persona, server, uri, uri);
    };
  }

  private client(server: string) {
    const client = this.pool.client(server);
    if (!client) throw new RelayError(ErrorCode.InternalError, `upstream "${server}" is unavailable; try again later`);
    return client;
  }

  private bounded<T>(result: T, what: string): T {
    const bytes = Buffer.byteLength(JSON.stringify(result));
    if (bytes > this.bounds.maxReadBytes) {
      throw new RelayError(ErrorCode.InternalError, `${what} is ${bytes} bytes, over the gateway's limit of ${this.bounds.maxReadBytes} (relay.max_read_bytes)`);
    }
    return result;
  }

  /**
   * resources/read through the owning upstream; contents as sent but for entries of URIs the
   * persona may not receive (removed; none left reads as not found), URIs re-prefixed when
   * the host used a prefixed one.
   */
  async read(persona: string | undefined, uri: string): Promise<ReadResourceResult> {
    const notFound = () => new RelayError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
    const target = this.resolveUri(persona, uri);
    if (!target) throw notFound();
    const answer = await fromUpstream(`reading ${uri}`, this.client(target.server).readResource({ uri: target.uri }, { timeout: this.bounds.callMs }));
    this.bounded(answer, `resource ${uri}`);
    const mayReceive = this.mayReceive(persona, target.server);
    const contents = mayReceive ? readableContents(answer.contents, target.uri, mayReceive) : answer.contents;
    if (contents.length === 0 && answer.contents.length > 0) throw notFound();
    const result = contents === answer.contents ? answer : { ...answer, contents };
    if (target.exposed === target.uri) return result;
    return { ...result, contents: result.contents.map((c) => ({ ...c, uri: prefixUri(target.server, c.uri) })) };
  }

  /** prompts/get with the host's arguments, under the upstream's own prompt name. */
  async getPrompt(persona: string | undefined, name: string, args: Record<string, string> | undefined): Promise<GetPromptResult> {
    const e = this.view().prompts.get(name);
    if (!e || !this.allows(persona, 'prompts', e)) throw new RelayError(ErrorCode.InvalidParams, `unknown prompt ${name}; prompts/list shows the prompts you may use`);
    const result = await fromUpstream(`prompt ${name}`, this.client(e.server).getPrompt({ name: e.upstream, ...(args && { arguments: args }) }, { timeout: this.bounds.callMs }));
    this.bounded(result, `prompt ${name}`);
    const mayReceive = this.mayReceive(persona, e.server);
    return mayReceive ? withholdMessages(result, mayReceive) : result;
  }

  /**
   * completion/complete, routed by its ref: a prompt name, or a resource template (or
   * resource) URI. Values that would lead to a resource the persona may not read are left
   * out (completion.ts).
   */
  async complete(persona: string | undefined, params: CompleteRequest['params']): Promise<CompleteResult> {
    const v = this.view();
    const { ref } = params;
    let server: string | undefined;
    let upstreamRef: CompleteRequest['params']['ref'] | undefined;
    let template: RelayCatalog['templates'][number] | undefined;
    if (ref.type === 'ref/prompt') {
      const e = v.prompts.get(ref.name);
      if (e && this.allows(persona, 'prompts', e)) [server, upstreamRef] = [e.server, { ...ref, name: e.upstream }];
    } else {
      template = v.templates.get(ref.uri);
      const listed = template ? undefined : this.resolveUri(persona, ref.uri);
      if (template && this.allows(persona, 'resources', template)) [server, upstreamRef] = [template.server, { ...ref, uri: template.upstream }];
      else if (listed && v.resources.has(listed.exposed)) [server, upstreamRef] = [listed.server, { ...ref, uri: listed.uri }];
    }
    if (!server || !upstreamRef) {
      const what = ref.type === 'ref/prompt' ? `prompt ${ref.name}` : `resource template ${ref.uri}`;
      throw new RelayError(ErrorCode.InvalidParams, `unknown ${what}; nothing to complete`);
    }
    const caps = this.pool.relayed().find((u) => u.name === server)?.caps;
    // The owner offers no completions: no suggestions, which is what the spec lets a server answer.
    if (!caps?.completions) return { completion: { values: [], hasMore: false } };
    const result = await fromUpstream('completion', this.client(server).complete({ ...params, ref: upstreamRef }, { timeout: this.bounds.callMs }));
    const owner = server;
    const matcher = template?.matcher;
    return keepValues(result, (value) => {
      if (this.policy.isResourceDenied(persona, owner, value)) return false;
      if (!matcher) return template === undefined;
      const uri = expansion(matcher, params, value);
      return uri !== undefined && this.resourceAllowed(persona, owner, uri, uri);
    });
  }
}
