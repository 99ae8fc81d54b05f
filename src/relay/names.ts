/**
 * The names the host sees for relayed resources, templates and prompts, and the way back
 * to the upstream that owns each. Like tools (catalog/catalog.ts): a name held by one
 * upstream is shown as is; a name held by several is shown prefixed for every holder.
 * Prompts take `<server>__<name>`; resource URIs and template URIs take
 * `tool-curator://<server>/<upstream URI>` — the upstream URI kept verbatim after the
 * prefix, so a template's `{variables}` still expand, and stripping the prefix gives the
 * upstream's URI back.
 */
import type { Prompt, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { SERVER_SEPARATOR } from '../catalog/catalog.js';
import type { RelayedUpstream } from '../upstream/types.js';

export const URI_PREFIX = 'tool-curator://';

/** One relayed item: who owns it, its upstream name or URI, and what the host sees. */
export interface RelayEntry<T> {
  server: string;
  /** The upstream's own name (prompts), URI (resources) or URI template (templates). */
  upstream: string;
  /** What the host sees: equal to `upstream` unless another upstream holds the same. */
  exposed: string;
  /** The item as the host sees it (name or URI replaced by `exposed`, everything else as sent). */
  item: T;
}

export interface RelayCatalog {
  resources: RelayEntry<Resource>[];
  /** `matcher` matches concrete URIs against the upstream's template; absent for a template it cannot parse. */
  templates: (RelayEntry<ResourceTemplate> & { matcher?: UriTemplate })[];
  prompts: RelayEntry<Prompt>[];
}

/** `tool-curator://<server>/<uri>` */
export function prefixUri(server: string, uri: string): string {
  return `${URI_PREFIX}${server}/${uri}`;
}

/** The server and upstream URI of a prefixed URI, or undefined when `uri` is not one for a known server. */
export function unprefixUri(uri: string, servers: ReadonlySet<string>): { server: string; uri: string } | undefined {
  if (!uri.startsWith(URI_PREFIX)) return undefined;
  const rest = uri.slice(URI_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash <= 0 || !servers.has(rest.slice(0, slash))) return undefined;
  return { server: rest.slice(0, slash), uri: rest.slice(slash + 1) };
}

function expose<T>(byServer: [string, T[]][], key: (t: T) => string, prefix: (server: string, name: string) => string, rename: (t: T, exposed: string) => T): RelayEntry<T>[] {
  const holders = new Map<string, number>();
  for (const [, items] of byServer) for (const k of new Set(items.map(key))) holders.set(k, (holders.get(k) ?? 0) + 1);
  const out: RelayEntry<T>[] = [];
  for (const [server, items] of byServer) {
    const seen = new Set<string>();
    for (const t of items) {
      const upstream = key(t);
      // An upstream listing one name twice: the first wins, as a host could not tell them apart.
      if (seen.has(upstream)) continue;
      seen.add(upstream);
      const exposed = (holders.get(upstream) ?? 0) > 1 ? prefix(server, upstream) : upstream;
      out.push({ server, upstream, exposed, item: exposed === upstream ? t : rename(t, exposed) });
    }
  }
  return out;
}

/** Builds the relayed catalog from the upstreams in config order, collisions prefixed. */
export function buildRelayCatalog(upstreams: RelayedUpstream[]): RelayCatalog {
  const of = <K extends keyof RelayedUpstream['lists']>(k: K) => upstreams.map((u): [string, RelayedUpstream['lists'][K]] => [u.name, u.lists[k]]);
  const templates = expose(of('templates'), (t) => t.uriTemplate, prefixUri, (t, uriTemplate) => ({ ...t, uriTemplate }));
  return {
    resources: expose(of('resources'), (r) => r.uri, prefixUri, (r, uri) => ({ ...r, uri })),
    templates: templates.map((e) => ({ ...e, matcher: compileTemplate(e.upstream) })),
    prompts: expose(of('prompts'), (p) => p.name, (s, n) => `${s}${SERVER_SEPARATOR}${n}`, (p, name) => ({ ...p, name })),
  };
}

function compileTemplate(template: string): UriTemplate | undefined {
  try {
    return new UriTemplate(template);
  } catch {
    return undefined;
  }
}
