/**
 * The names the host sees for relayed resources, templates and prompts, and the way back
 * to the upstream that owns each. As for tools (catalog/names.ts), names are stable: the
 * first holder of a name keeps it as is, a later holder's is qualified — prompts
 * `<server>__<name>`, resource URIs and template URIs `tool-curator://<server>/<upstream
 * URI>` (the upstream URI kept verbatim after the prefix, so a template's `{variables}`
 * still expand, and stripping the prefix gives the upstream's URI back). A prompt named
 * like another upstream's (`alpha__x` from beta) and an upstream URI in the gateway's own
 * `tool-curator:` scheme are always qualified.
 *
 * Resource URIs are compared, and looked up, in their canonical form (policy/uri.ts); an
 * upstream's resource whose URI does not parse is left out.
 */
import { UriTemplate, type Prompt, type Resource, type ResourceTemplateType } from '@modelcontextprotocol/server';
import { assignExposed, readsAsOthers, SERVER_SEPARATOR, toolKey, type NamingScheme } from '../catalog/names.js';
import { log } from '../log.js';
import { canonicalUri } from '../policy/uri.js';
import type { RelayNameKind } from '../store/types.js';
import type { RelayedUpstream } from '../upstream/types.js';

export const URI_PREFIX = 'tool-curator://';

/** One relayed item: who owns it, its upstream name or URI, and what the host sees. */
export interface RelayEntry<T> {
  server: string;
  /** The upstream's own name (prompts), canonical URI (resources) or URI template (templates). */
  upstream: string;
  /** What the host sees: equal to `upstream` unless another upstream held it first. */
  exposed: string;
  /** The item as the host sees it (name or URI replaced by `exposed`, everything else as sent). */
  item: T;
}

export interface RelayCatalog {
  resources: RelayEntry<Resource>[];
  /** `matcher` matches concrete URIs against the upstream's template; absent for a template it cannot parse. */
  templates: (RelayEntry<ResourceTemplateType> & { matcher?: UriTemplate })[];
  prompts: RelayEntry<Prompt>[];
}

/** The kinds of relayed names, each remembered apart. */
export type { RelayNameKind } from '../store/types.js';

/**
 * Where the exposed names of relayed items are remembered, by kind and toolKey(server,
 * upstream name or URI): `MemoryRelayNames` keeps them for the process's life,
 * `StoredRelayNames` (storedNames.ts) in the store, across restarts and replicas.
 */
export interface RelayNameMemory {
  load(kind: RelayNameKind): ReadonlyMap<string, string>;
  save(kind: RelayNameKind, names: ReadonlyMap<string, string>): void;
  /**
   * Runs `build` (which loads and saves names) with the names every replica saved,
   * under the store's lock, and keeps what it assigned there: so replicas agree. Absent
   * for a memory of one process.
   */
  under?<T>(build: () => T): Promise<T>;
}

/** Names remembered per kind, at most; the oldest unused ones are forgotten first. */
export const MAX_REMEMBERED_NAMES = 100_000;

export class MemoryRelayNames implements RelayNameMemory {
  private readonly kinds = new Map<RelayNameKind, Map<string, string>>();

  load(kind: RelayNameKind): ReadonlyMap<string, string> {
    return this.kinds.get(kind) ?? new Map();
  }

  /** Merges `names` in as the most recent; names of items gone stay (an upstream that comes back gets its names back). */
  save(kind: RelayNameKind, names: ReadonlyMap<string, string>): void {
    const kept = this.kinds.get(kind) ?? new Map<string, string>();
    for (const [key, name] of names) {
      kept.delete(key);
      kept.set(key, name);
    }
    for (const key of kept.keys()) {
      if (kept.size <= MAX_REMEMBERED_NAMES) break;
      kept.delete(key);
    }
    this.kinds.set(kind, kept);
  }
}

/** `tool-curator://<server>/<uri>` */
export function prefixUri(server: string, uri: string): string {
  return `${URI_PREFIX}${server}/${uri}`;
}

/** `uri` as a URL parser starts reading it: tabs and newlines dropped, leading spaces and control characters trimmed. */
function asParsed(uri: string): string {
  return uri.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+/, '');
}

/** Whether `uri` is in the gateway's own scheme, in any case. */
export function inGatewayScheme(uri: string): boolean {
  return /^tool-curator:/i.test(asParsed(uri));
}

/**
 * The server and upstream URI of a prefixed URI, or undefined when `uri` is not
 * `tool-curator://<server>/…` for a configured server. Read as a URL parser reads it (the
 * scheme in any case, leading spaces, tabs and newlines dropped); the upstream URI is
 * returned for the caller to canonicalise.
 */
export function unprefixUri(uri: string, servers: ReadonlySet<string>): { server: string; uri: string } | undefined {
  const s = asParsed(uri);
  if (!/^tool-curator:\/\//i.test(s)) return undefined;
  const rest = s.slice(URI_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash <= 0 || !servers.has(rest.slice(0, slash))) return undefined;
  return { server: rest.slice(0, slash), uri: rest.slice(slash + 1) };
}

const promptNaming = (upstreams: string[]): NamingScheme => ({
  plain: (server, name) => (readsAsOthers(name, server, upstreams) ? undefined : name),
  qualified: (server, name, attempt) => `${server}${SERVER_SEPARATOR}${name}${attempt > 0 ? `_${attempt}` : ''}`,
  keeps: (exposed, server) => !readsAsOthers(exposed, server, upstreams),
});

/** URIs route by their text, so the only exposed forms of a URI are itself and its prefixed form. */
const uriNaming: NamingScheme = {
  plain: (_server, uri) => (inGatewayScheme(uri) ? undefined : uri),
  qualified: (server, uri) => prefixUri(server, uri),
  keeps: (exposed, server, uri) => exposed === prefixUri(server, uri) || (exposed === uri && !inGatewayScheme(uri)),
};

function expose<T>(
  kind: RelayNameKind,
  byServer: [string, T[]][],
  key: (t: T) => string,
  scheme: NamingScheme,
  memory: RelayNameMemory,
  rename: (t: T, exposed: string) => T,
): RelayEntry<T>[] {
  const { names } = assignExposed(new Map(byServer.map(([server, items]) => [server, items.map(key)])), memory.load(kind), scheme);
  memory.save(kind, names);
  const out: RelayEntry<T>[] = [];
  for (const [server, items] of byServer) {
    const seen = new Set<string>();
    for (const t of items) {
      const upstream = key(t);
      // An upstream listing one name twice: the first wins, as a host could not tell them apart.
      if (seen.has(upstream)) continue;
      seen.add(upstream);
      const exposed = names.get(toolKey(server, upstream))!;
      out.push({ server, upstream, exposed, item: exposed === upstream ? t : rename(t, exposed) });
    }
  }
  return out;
}

/** An upstream's resources with their URIs canonical; one whose URI does not parse is left out and logged. */
function canonicalResources(server: string, resources: Resource[]): Resource[] {
  const out: Resource[] = [];
  for (const r of resources) {
    const c = canonicalUri(r.uri);
    if (c.ok) out.push(c.uri === r.uri ? r : { ...r, uri: c.uri });
    else log.warn({ upstream: server, uri: r.uri.slice(0, 200), reason: c.reason }, 'resource left out of the aggregate: its URI cannot be read');
  }
  return out;
}

/**
 * Builds the relayed catalog from the upstreams in config order, later holders of a name
 * qualified (module comment).
 * @param memory exposed names from earlier builds; updated with this build's.
 * @param upstreams every configured upstream (a prompt named like one of theirs is qualified).
 */
export function buildRelayCatalog(connected: RelayedUpstream[], memory: RelayNameMemory = new MemoryRelayNames(), upstreams: string[] = connected.map((u) => u.name)): RelayCatalog {
  const of = <K extends keyof RelayedUpstream['lists']>(k: K) => connected.map((u): [string, RelayedUpstream['lists'][K]] => [u.name, u.lists[k]]);
  const resources = connected.map((u): [string, Resource[]] => [u.name, canonicalResources(u.name, u.lists.resources)]);
  const templates = expose('templates', of('templates'), (t) => t.uriTemplate, uriNaming, memory, (t, uriTemplate) => ({ ...t, uriTemplate }));
  return {
    resources: expose('resources', resources, (r) => r.uri, uriNaming, memory, (r, uri) => ({ ...r, uri })),
    templates: templates.map((e) => ({ ...e, matcher: compileTemplate(e.upstream) })),
    prompts: expose('prompts', of('prompts'), (p) => p.name, promptNaming(upstreams), memory, (p, name) => ({ ...p, name })),
  };
}

function compileTemplate(template: string): UriTemplate | undefined {
  try {
    return new UriTemplate(template);
  } catch {
    return undefined;
  }
}
