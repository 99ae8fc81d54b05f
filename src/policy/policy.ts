/**
 * Persona → allowed tools, identity fields and confirmation policy. Patterns are
 * `<server>.<glob>` or a bare `<glob>` over the upstream tool name; `*` matches any run
 * of characters. Allowed iff some allow pattern matches and no deny pattern does.
 * Without a persona file every tool is allowed, nothing is injected and action tools
 * are confirmed. The policy answers questions; the guards act on the answers.
 *
 * Resources and prompts (`resources:` / `prompts:` beside allow/deny) use the same
 * pattern syntax over resource URIs, template URIs and prompt names; a persona without
 * those keys is allowed none (see docs/PROTOCOL-LISTS.md for why).
 */
import type { ToolRecord } from '../catalog/types.js';
import type { Persona, Personas } from '../config/schema.js';

function globToRegExp(glob: string): RegExp {
  const body = glob.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${body}$`);
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

/**
 * A resource or prompt pattern. URIs hold dots of their own (`file:///a.txt`), so the part
 * before the first dot is a server only when it reads as an upstream name (or `*`).
 */
function compileRelay(pattern: string): CompiledPattern {
  const dot = pattern.indexOf('.');
  const server = dot > 0 ? pattern.slice(0, dot) : '';
  if (/^(\*|[A-Za-z0-9_-]+)$/.test(server)) return { server, name: globToRegExp(pattern.slice(dot + 1)) };
  return { name: globToRegExp(pattern) };
}

function matchesAny(p: CompiledPattern, server: string, names: string[]): boolean {
  if (p.server !== undefined && p.server !== '*' && p.server !== server) return false;
  return names.some((n) => p.name.test(n));
}

/** What relayed patterns cover: resources (URIs and template URIs) or prompts (names). */
export type RelayKind = 'resources' | 'prompts';

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
  private readonly relayCompiled = new Map<string, Record<RelayKind, { allow: CompiledPattern[]; deny: CompiledPattern[] }>>();

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
      const relay = (k: RelayKind) => ({ allow: (p[k]?.allow ?? []).map(compileRelay), deny: (p[k]?.deny ?? []).map(compileRelay) });
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

  isAllowed(persona: string | undefined, tool: ToolRecord): boolean {
    if (this.open) return true;
    const c = persona === undefined ? undefined : this.compiled.get(persona);
    if (!c) return false;
    return c.allow.some((p) => matchesPattern(p, tool)) && !c.deny.some((p) => matchesPattern(p, tool));
  }

  /**
   * May the persona use this resource or prompt of `server`?
   *
   * ### Usage
   * ```ts
   * // persona: { resources: { allow: ['docs.file:///*'], deny: ['docs.file:///secret/*'] } }
   * policy.isRelayAllowed('student', 'resources', 'docs', ['file:///a.txt']); // true
   * policy.isRelayAllowed('student', 'resources', 'docs', ['file:///x'], ['file:///{path}']); // true if the template is allowed
   * ```
   * @param names the item's names: upstream name/URI and the exposed one; a deny pattern on any of them refuses.
   * @param via names that may grant without being refused by them: the template a concrete URI expands.
   * @returns true for an open policy; false for an unknown persona.
   */
  isRelayAllowed(persona: string | undefined, kind: RelayKind, server: string, names: string[], via: string[] = []): boolean {
    if (this.open) return true;
    const c = persona === undefined ? undefined : this.relayCompiled.get(persona)?.[kind];
    if (!c) return false;
    const granted = c.allow.some((p) => matchesAny(p, server, names) || matchesAny(p, server, via));
    return granted && !c.deny.some((p) => matchesAny(p, server, names));
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
