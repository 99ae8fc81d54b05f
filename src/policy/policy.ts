/**
 * Persona → allowed tools, identity fields and confirmation policy. Patterns are
 * `<server>.<glob>` or a bare `<glob>` over the upstream tool name; `*` matches any run
 * of characters. Allowed iff some allow pattern matches and no deny pattern does.
 * Without a persona file every tool is allowed, nothing is injected and action tools
 * are confirmed. The policy answers questions; the guards act on the answers.
 *
 * Resources and prompts (`resources:` / `prompts:` beside allow/deny) use the same
 * pattern syntax over resource URIs, template URIs and prompt names; a persona without
 * those keys is allowed none (see docs/PROTOCOL-LISTS.md for why). Resource URIs are
 * decided in their canonical form, over every reading of it (uri.ts, docs/SAFETY.md).
 */
import type { ToolRecord } from '../catalog/types.js';
import type { Persona, Personas } from '../config/schema.js';
import { canonicalUri, denyReadings, holdsShortName, readings } from './uri.js';

const globBody = (glob: string): string => glob.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');

/** A RegExp matching a whole string that any of `globs` matches. */
function globToRegExp(glob: string | string[], ignoreCase = false): RegExp {
  const bodies = (Array.isArray(glob) ? glob : [glob]).map(globBody);
  return new RegExp(`^(?:${bodies.join('|')})$`, ignoreCase ? 'si' : 's');
}

/**
 * A resource deny glob as written and, when its literal start reads as a URI of another
 * spelling, in canonical form too (uri.ts): `https://bücher.example/*` also as
 * `https://xn--bcher-kva.example/*`, `file:///secret dir/*` as `file:///secret%20dir/*`;
 * and so in each Unicode normalisation form (NFC, NFKC) of that start: a URI's readings
 * are composed (NFKC), so `file:///cafe\u0301/*` as written (NFD, as a macOS listing
 * spells it) would match no reading of `file:///café/x`.
 * URIs are decided in canonical form, so a deny pattern written otherwise would match
 * none. Only deny patterns: the canonical form of a glob's start can match more than the
 * operator wrote (trailing spaces trimmed, dot segments resolved), which denies more but
 * must never allow more.
 */
function resourceGlobs(glob: string): string[] {
  const star = glob.indexOf('*');
  const head = star < 0 ? glob : glob.slice(0, star);
  const globs = new Set([glob]);
  for (const form of [head, head.normalize('NFC'), head.normalize('NFKC')]) {
    const c = canonicalUri(form);
    if (!c.ok) continue;
    // WHATWG gives `https://host` a path `/`; the pattern's next character may be anything.
    const canonical = !form.endsWith('/') && c.uri.endsWith('/') ? c.uri.slice(0, -1) : c.uri;
    globs.add(`${canonical}${star < 0 ? '' : glob.slice(star)}`);
  }
  return [...globs];
}

export interface CompiledPattern {
  server?: string;
  name: RegExp;
}

/** `<server>.<glob>` (the first dot separates) or a bare `<glob>`. */
export function parsePattern(pattern: string): CompiledPattern {
  const dot = pattern.indexOf('.');
  if (dot > 0) return { server: pattern.slice(0, dot), name: globToRegExp(pattern.slice(dot + 1)) };
  return { name: globToRegExp(pattern) };
}

const compile = parsePattern;

/** What the glob `*` compiles to: every name. */
const ALL = globToRegExp('*');

/**
 * A resource or prompt pattern. URIs hold dots of their own (`file:///a.txt`), so the part
 * before the first dot is a server only when it reads as an upstream name (or `*`).
 * `deny` patterns of resources ignore case: on a case-insensitive file system, and for
 * every scheme and host, `FILE:///SECRET/x` is the denied resource. A resource allow
 * pattern's scheme is read in lower case, as URIs are canonicalised (uri.ts); a deny
 * pattern is read in canonical form as well as written (resourceGlobs).
 */
function compileRelay(pattern: string, kind: RelayKind, list: 'allow' | 'deny'): CompiledPattern {
  const dot = pattern.indexOf('.');
  const head = dot > 0 ? pattern.slice(0, dot) : '';
  const server = /^(\*|[A-Za-z0-9_-]+)$/.test(head) ? head : undefined;
  let glob = server === undefined ? pattern : pattern.slice(dot + 1);
  if (kind !== 'resources') return { server, name: globToRegExp(glob) };
  glob = glob.replace(/^[A-Za-z][A-Za-z0-9+.-]*:/, (scheme) => scheme.toLowerCase());
  return list === 'deny' ? { server, name: globToRegExp(resourceGlobs(glob), true) } : { server, name: globToRegExp(glob) };
}

/** Whether pattern `p` applies to `server`'s names at all. */
const deniesOn = (p: CompiledPattern, server: string): boolean => p.server === undefined || p.server === '*' || p.server === server;

function matchesAny(p: CompiledPattern, server: string, names: readonly string[]): boolean {
  if (p.server !== undefined && p.server !== '*' && p.server !== server) return false;
  return names.some((n) => p.name.test(n));
}

/** What relayed patterns cover: resources (URIs and template URIs) or prompts (names). */
export type RelayKind = 'resources' | 'prompts';

interface RelayPatterns {
  allow: CompiledPattern[];
  deny: CompiledPattern[];
}

/** Whether a parsed pattern matches a tool (by upstream or exposed name). */
export function matchesPattern(p: CompiledPattern, tool: ToolRecord): boolean {
  if (p.server !== undefined && p.server !== '*' && p.server !== tool.server) return false;
  return p.name.test(tool.upstreamName) || p.name.test(tool.name);
}

export class UnknownPersonaError extends Error {
  constructor(persona: string, known: string[]) {
    super(`unknown persona "${persona}"; personas.yaml defines: ${known.join(', ') || '(none)'}`);
  }
}

/** Thrown when a persona's identity template needs a session value the session lacks. */
export class MissingIdentityError extends Error {
  constructor(persona: string, field: string, variable: string) {
    super(
      `persona "${persona}" injects ${field} from \${${variable}}, but this session has no ${variable}; ` +
        'start the gateway with `serve --user-id U` (stdio) or map the bearer token to a user_id (HTTP)',
    );
  }
}

export type ConfirmPolicy = Persona['confirm'];

export class Policy {
  private current: Personas = {};
  private readonly compiled = new Map<string, { allow: CompiledPattern[]; deny: CompiledPattern[] }>();
  private readonly relayCompiled = new Map<string, Record<RelayKind, RelayPatterns>>();

  constructor(personas: Personas) {
    this.current = personas;
    this.compileAll();
  }

  /** The personas in force (personas.yaml as last loaded). */
  get personas(): Personas {
    return this.current;
  }

  /**
   * Puts new personas in force (a live configuration reload): every holder of this Policy
   * — the call path, the relay, the sessions — answers by them from the next question on.
   */
  replace(personas: Personas): void {
    this.current = personas;
    this.compiled.clear();
    this.relayCompiled.clear();
    this.compileAll();
  }

  private compileAll(): void {
    for (const [name, p] of Object.entries(this.current)) {
      this.compiled.set(name, { allow: p.allow.map(compile), deny: p.deny.map(compile) });
      const relay = (k: RelayKind): RelayPatterns => ({
        allow: (p[k]?.allow ?? []).map((x) => compileRelay(x, k, 'allow')),
        deny: (p[k]?.deny ?? []).map((x) => compileRelay(x, k, 'deny')),
      });
      this.relayCompiled.set(name, { resources: relay('resources'), prompts: relay('prompts') });
    }
  }

  /** True when no persona file is configured: every tool is allowed, nothing is injected. */
  get open(): boolean {
    return this.compiled.size === 0;
  }

  /** @throws UnknownPersonaError when personas are configured and `name` is not one. */
  persona(name: string | undefined): Persona | undefined {
    if (this.open) return undefined;
    const p = name === undefined ? undefined : this.personas[name];
    if (!p) throw new UnknownPersonaError(String(name), Object.keys(this.personas));
    return p;
  }

  /**
   * Whether any tool of `server` could be allowed to the persona, before its tools are
   * known (an upstream still starting): an allow pattern over that server, any server, or
   * no server, and no deny of all its tools (`<server>.*`).
   * @returns true for an open policy; false for an unknown persona.
   */
  mayReach(persona: string | undefined, server: string): boolean {
    if (this.open) return true;
    const c = persona === undefined ? undefined : this.compiled.get(persona);
    if (!c) return false;
    const over = (p: CompiledPattern) => p.server === undefined || p.server === '*' || p.server === server;
    return c.allow.some(over) && !c.deny.some((p) => over(p) && p.name.source === ALL.source);
  }

  isAllowed(persona: string | undefined, tool: ToolRecord): boolean {
    if (this.open) return true;
    const c = persona === undefined ? undefined : this.compiled.get(persona);
    if (!c) return false;
    return c.allow.some((p) => matchesPattern(p, tool)) && !c.deny.some((p) => matchesPattern(p, tool));
  }

  private relayPatterns(persona: string | undefined, kind: RelayKind): RelayPatterns | undefined {
    return persona === undefined ? undefined : this.relayCompiled.get(persona)?.[kind];
  }

  /**
   * May the persona see this prompt, or this resource template, of `server`?
   *
   * ### Usage
   * ```ts
   * // persona: { prompts: { allow: ['docs.*'], deny: ['docs.admin_*'] } }
   * policy.isRelayAllowed('student', 'prompts', 'docs', ['summarize']); // true
   * policy.isRelayAllowed('student', 'prompts', 'docs', ['admin_reset']); // false
   * ```
   * @param names the upstream name (or template URI) and the exposed one: an allow pattern
   *   over either grants, a deny pattern over either refuses.
   * @returns true for an open policy; false for an unknown persona.
   */
  isRelayAllowed(persona: string | undefined, kind: RelayKind, server: string, names: readonly string[]): boolean {
    if (this.open) return true;
    const c = this.relayPatterns(persona, kind);
    if (!c) return false;
    return c.allow.some((p) => matchesAny(p, server, names)) && !c.deny.some((p) => matchesAny(p, server, names));
  }

  /**
   * May the persona read, or subscribe to, resource `uri` of `server`? The URI is
   * canonicalised first (uri.ts) and refused if it does not parse; then every reading of it
   * must be granted — by a resource pattern, or as the expansion of an allowed template —
   * and no deny pattern may match any reading, what a resolver keeps of one (uri.ts
   * denyReadings), nor the exposed URI.
   *
   * ### Usage
   * ```ts
   * // persona: { resources: { allow: ['docs.file:///*'], deny: ['docs.file:///secret/*'] } }
   * policy.isResourceAllowed('student', 'docs', 'file:///public/a.txt'); // true
   * policy.isResourceAllowed('student', 'docs', 'file:///public/%2e%2e/secret/k'); // false
   * policy.isResourceAllowed('student', 'docs', 'file:///public/..%2fsecret%2fk'); // false: a decoding reader reads /secret/k
   * ```
   * @param opts.exposed the URI as the host sees it (prefixed), also checked against deny patterns.
   * @param opts.viaTemplate whether a reading expands a template the persona may use.
   * @returns false for a URI that does not parse, whatever the policy; true otherwise for an open policy.
   */
  isResourceAllowed(persona: string | undefined, server: string, uri: string, opts: { exposed?: string; viaTemplate?: (reading: string) => boolean } = {}): boolean {
    const canonical = canonicalUri(uri);
    if (!canonical.ok) return false;
    if (this.open) return true;
    const c = this.relayPatterns(persona, 'resources');
    if (!c) return false;
    const all = readings(canonical.uri);
    const granted = (r: string) => c.allow.some((p) => matchesAny(p, server, [r])) || opts.viaTemplate?.(r) === true;
    const named = denyReadings(canonical.uri);
    if (opts.exposed !== undefined) named.push(opts.exposed);
    if (c.deny.some((p) => deniesOn(p, server)) && holdsShortName(all)) return false;
    return all.every(granted) && !c.deny.some((p) => matchesAny(p, server, named));
  }

  /**
   * Whether a deny pattern of the persona names resource `uri` of `server` in any of its
   * readings (for values that merely look like URIs, such as a prompt argument's completions).
   * @returns false for a string that is not an absolute URI, an open policy, or an unknown persona.
   */
  isResourceDenied(persona: string | undefined, server: string, uri: string): boolean {
    const canonical = canonicalUri(uri);
    const c = this.relayPatterns(persona, 'resources');
    if (!canonical.ok || this.open || !c) return false;
    if (c.deny.some((p) => deniesOn(p, server)) && holdsShortName(readings(canonical.uri))) return true;
    return c.deny.some((p) => matchesAny(p, server, denyReadings(canonical.uri)));
  }

  /** The persona's allowed tools, in catalog order. */
  allowed(persona: string | undefined, tools: ToolRecord[]): ToolRecord[] {
    return tools.filter((t) => this.isAllowed(persona, t));
  }

  /** Names of the fields the persona injects (`student_id`, ...); empty for an open policy. */
  identityFields(persona: string | undefined): string[] {
    return Object.keys(this.persona(persona)?.identity ?? {});
  }

  /**
   * The persona's identity values for one session: each template in `identity` with
   * `${user_id}` (and `${persona}`) replaced by the session's own values.
   *
   * ### Usage
   * ```ts
   * policy.identityValues('student', 'S0001'); // { student_id: 'S0001' }
   * ```
   * @throws MissingIdentityError when a template names a variable the session lacks:
   *   forwarding the model's value instead would let it choose whose data it reads.
   */
  identityValues(persona: string | undefined, userId: string | undefined): Record<string, string> {
    const p = this.persona(persona);
    if (!p) return {};
    const vars: Record<string, string | undefined> = { user_id: userId, persona };
    return Object.fromEntries(
      Object.entries(p.identity).map(([field, template]) => [
        field,
        template.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
          const v = vars[name];
          if (v === undefined || v === '') throw new MissingIdentityError(String(persona), field, name);
          return v;
        }),
      ]),
    );
  }

  /** Which calls need a person's approval: `actions` (default, also for an open policy), `all` or `none`. */
  confirmation(persona: string | undefined): ConfirmPolicy {
    return this.persona(persona)?.confirm ?? 'actions';
  }
}

/** Whether `pattern`, as written in personas.yaml, matches `tool` (for diagnostics such as `doctor`). */
export function patternMatches(pattern: string, tool: ToolRecord): boolean {
  return matchesPattern(parsePattern(pattern), tool);
}
