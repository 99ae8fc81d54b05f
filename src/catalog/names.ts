/**
 * Exposed tool names: what hosts call a tool. Every name is at most 64 characters of
 * `[A-Za-z0-9_.-]` (what Anthropic, OpenAI and Bedrock accept), unique across the whole
 * catalog including every upstream's literal names, and stable:
 *
 * 1. a name remembered from before (the store's `tool_names`) is kept while its tool exists;
 * 2. otherwise the first owner of a name (in config order) gets the plain name;
 * 3. a later holder of the same name gets `<server>__<name>`;
 * 4. a name too long, or still taken, gets a short stable hash of (server, tool) instead of
 *    its tail, so it is the same on every start.
 *
 * A remembered name that cannot be kept (its tool's name became invalid, or two remembered
 * names clash) is reassigned and reported, so the gateway can log which names changed.
 */
import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

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
 * Assigns every listed tool its exposed name (rules in the module comment).
 * @param byServer tools per upstream, in config order (the order decides first owners).
 * @param remembered exposed names by toolKey from earlier runs; empty on a first start.
 */
export function assignNames(byServer: Map<string, Tool[]>, remembered: ReadonlyMap<string, string> = new Map()): NameAssignment {
  const tools: { server: string; name: string; key: string }[] = [];
  for (const [server, list] of byServer) {
    for (const name of new Set(list.map((t) => t.name))) tools.push({ server, name, key: toolKey(server, name) });
  }
  const names = new Map<string, string>();
  const taken = new Set<string>();
  const give = (key: string, name: string) => {
    names.set(key, name);
    taken.add(name);
  };
  // 1. Names hosts already know.
  for (const t of tools) {
    const old = remembered.get(t.key);
    if (old !== undefined && VALID.test(old) && !taken.has(old)) give(t.key, old);
  }
  // 2. First owners keep the plain name; a literal name of another tool (github__search) is
  //    reserved for its owner before any prefixed name is made.
  const plain = new Map(tools.map((t) => [t.key, validName(t.name, t.key)]));
  const reserved = new Set<string>(taken);
  for (const t of tools) {
    if (names.has(t.key)) continue;
    const p = plain.get(t.key)!;
    if (!reserved.has(p)) {
      reserved.add(p);
      give(t.key, p);
    }
  }
  for (const t of tools) if (!names.has(t.key)) reserved.add(plain.get(t.key)!);
  // 3 and 4. Later holders: server-prefixed, hashed when too long or still taken.
  for (const t of tools) {
    if (names.has(t.key)) continue;
    let candidate = validName(`${t.server}${SERVER_SEPARATOR}${t.name}`, t.key);
    if (taken.has(candidate) || reserved.has(candidate)) candidate = validName(`${t.server}${SERVER_SEPARATOR}${t.name}`, t.key, true);
    for (let n = 2; taken.has(candidate); n++) candidate = validName(`${t.server}${SERVER_SEPARATOR}${t.name}`, `${t.key}\0${n}`, true);
    give(t.key, candidate);
  }
  const changed: NameChange[] = [];
  for (const t of tools) {
    const old = remembered.get(t.key);
    if (old !== undefined && old !== names.get(t.key)) changed.push({ server: t.server, upstreamName: t.name, from: old, to: names.get(t.key)! });
  }
  return { names, changed };
}
