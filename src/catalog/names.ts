/**
 * Exposed tool names: what hosts call a tool. Every name is at most 64 characters of
 * `[A-Za-z0-9_.-]` (what Anthropic, OpenAI and Bedrock accept), unique across the whole
 * catalog including every upstream's literal names, and stable:
 *
 * 1. a name remembered from before (the store's `tool_names`) is kept while its tool exists;
 * 2. otherwise the first owner of a name (in config order) gets the plain name;
 * 3. a later holder of the same name gets `<server>__<name>`, and so does a name that
 *    reads as another upstream's (`srvA__search` listed by srvB is `srvB__srvA__search`);
 * 4. a name too long, or still taken, gets a short stable hash of (server, tool) instead of
 *    its tail, so it is the same on every start.
 *
 * A remembered name that cannot be kept (its tool's name became invalid, or two remembered
 * names clash) is reassigned and reported, so the gateway can log which names changed.
 */
import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/server';

/** Longest exposed name: the limit of the model APIs hosts forward tools to. */
export const MAX_EXPOSED_LENGTH = 64;
/** Separator of server-qualified names; double underscore survives hosts' name rules (`^[a-zA-Z0-9_-]{1,64}$`). */
export const SERVER_SEPARATOR = '__';
const VALID = /^[A-Za-z0-9_.-]{1,64}$/;

/** Key of a tool in a name memory: server and upstream name. */
export const toolKey = (server: string, upstreamName: string): string => `${server}\0${upstreamName}`;

function hash8(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

/**
 * `raw` made into a valid exposed name: characters outside `[A-Za-z0-9_.-]` become `_`,
 * and a name over 64 characters (or any name when `forceHash`) keeps its head and ends
 * with `_` and 8 hex digits of the hash of `salt`.
 *
 * ### Usage
 * ```ts
 * validName('search', 'github\0search'); // 'search'
 * validName('x'.repeat(80), 's\0x…').length; // 64
 * ```
 */
export function validName(raw: string, salt: string, forceHash = false): string {
  const clean = raw.replace(/[^A-Za-z0-9_.-]/g, '_') || '_';
  if (!forceHash && clean.length <= MAX_EXPOSED_LENGTH) return clean;
  const suffix = `_${hash8(salt)}`;
  return `${clean.slice(0, MAX_EXPOSED_LENGTH - suffix.length)}${suffix}`;
}

export interface NameChange {
  server: string;
  upstreamName: string;
  /** The name hosts knew. */
  from: string;
  to: string;
}

export interface NameAssignment {
  /** Exposed name per toolKey(server, upstreamName). */
  names: Map<string, string>;
  /** Remembered names that could not be kept. */
  changed: NameChange[];
}

/**
 * Whether `name` reads as the name of another upstream's item: it starts with
 * `<upstream>__` (any case) for a configured upstream other than `server`. Such a name is
 * never shown as it is (an upstream's literal `srvA__search` is not srvA's).
 */
export function readsAsOthers(name: string, server: string, upstreams: Iterable<string>): boolean {
  const lower = name.toLowerCase();
  for (const u of upstreams) if (u !== server && lower.startsWith(`${u.toLowerCase()}${SERVER_SEPARATOR}`)) return true;
  return false;
}

/** How one kind of item (tools, prompts, resource URIs) is named for hosts. */
export interface NamingScheme {
  /** The plain exposed form of an upstream's `name`, or undefined when it may not be shown plain. */
  plain(server: string, name: string): string | undefined;
  /** The server-qualified form; `attempt` counts up from 0 while the previous one is taken. */
  qualified(server: string, name: string, attempt: number): string;
  /** Whether a remembered exposed name may still stand for (server, name). */
  keeps(exposed: string, server: string, name: string): boolean;
}

/** Attempts at a qualified name before an item is given up (never reached by the schemes here). */
const MAX_ATTEMPTS = 16;

/**
 * Assigns every (server, name) its exposed name by the rules of the module comment, for
 * any kind of item: tools (`toolNaming`), prompts and resource URIs (relay/names.ts).
 * @param byServer names per upstream, in config order (the order decides first owners).
 * @param remembered exposed names by toolKey from earlier; empty on a first start.
 */
export function assignExposed(byServer: Map<string, readonly string[]>, remembered: ReadonlyMap<string, string>, scheme: NamingScheme): NameAssignment {
  const items: { server: string; name: string; key: string }[] = [];
  for (const [server, list] of byServer) {
    for (const name of new Set(list)) items.push({ server, name, key: toolKey(server, name) });
  }
  const names = new Map<string, string>();
  const taken = new Set<string>();
  const give = (key: string, name: string) => {
    names.set(key, name);
    taken.add(name);
  };
  // 1. Names hosts already know.
  for (const t of items) {
    const old = remembered.get(t.key);
    if (old !== undefined && !taken.has(old) && scheme.keeps(old, t.server, t.name)) give(t.key, old);
  }
  // 2. First owners keep the plain name; a literal name of another item (github__search) is
  //    reserved for its owner before any qualified name is made.
  const plain = new Map(items.map((t) => [t.key, scheme.plain(t.server, t.name)]));
  const reserved = new Set<string>(taken);
  for (const t of items) {
    const p = plain.get(t.key);
    if (names.has(t.key) || p === undefined || reserved.has(p)) continue;
    reserved.add(p);
    give(t.key, p);
  }
  for (const t of items) {
    const p = plain.get(t.key);
    if (!names.has(t.key) && p !== undefined) reserved.add(p);
  }
  // 3 and 4. Later holders: server-qualified, made unique when still taken.
  for (const t of items) {
    if (names.has(t.key)) continue;
    let attempt = 0;
    let candidate = scheme.qualified(t.server, t.name, attempt);
    while ((taken.has(candidate) || (attempt === 0 && reserved.has(candidate))) && attempt < MAX_ATTEMPTS) candidate = scheme.qualified(t.server, t.name, ++attempt);
    if (taken.has(candidate)) throw new Error(`no free exposed name for ${t.server}.${t.name} after ${MAX_ATTEMPTS} attempts`);
    give(t.key, candidate);
  }
  const changed: NameChange[] = [];
  for (const t of items) {
    const old = remembered.get(t.key);
    if (old !== undefined && old !== names.get(t.key)) changed.push({ server: t.server, upstreamName: t.name, from: old, to: names.get(t.key)! });
  }
  return { names, changed };
}

/**
 * Tool names: at most 64 characters of `[A-Za-z0-9_.-]`; a name that reads as another
 * upstream's (`readsAsOthers`) is always qualified; a qualified name still taken, or too
 * long, ends in a hash of (server, tool).
 */
export function toolNaming(upstreams: Iterable<string>): NamingScheme {
  const servers = [...upstreams];
  return {
    plain: (server, name) => (readsAsOthers(name, server, servers) ? undefined : validName(name, toolKey(server, name))),
    qualified: (server, name, attempt) => {
      const key = toolKey(server, name);
      return validName(`${server}${SERVER_SEPARATOR}${name}`, attempt < 2 ? key : `${key}\0${attempt}`, attempt > 0);
    },
    keeps: (exposed, server) => VALID.test(exposed) && !readsAsOthers(exposed, server, servers),
  };
}

/**
 * Assigns every listed tool its exposed name (rules in the module comment).
 * @param byServer tools per upstream, in config order (the order decides first owners).
 * @param remembered exposed names by toolKey from earlier runs; empty on a first start.
 * @param upstreams every configured upstream, connected or not (a name reading as one of
 *   theirs is qualified); default the servers of `byServer`.
 */
export function assignNames(byServer: Map<string, Tool[]>, remembered: ReadonlyMap<string, string> = new Map(), upstreams: Iterable<string> = byServer.keys()): NameAssignment {
  const names = new Map([...byServer].map(([server, tools]) => [server, tools.map((t) => t.name)]));
  return assignExposed(names, remembered, toolNaming(upstreams));
}
