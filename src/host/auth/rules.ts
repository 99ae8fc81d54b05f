/**
 * Claims → persona and user: the ordered rules of `http.oauth.personas` read a signed-in
 * host's validated claims; the first rule whose conditions all hold names the persona,
 * and `http.oauth.user_claim` names the user id. Pure functions over claims: the token
 * was checked before anything here runs.
 */
import type { ApproverRule, ClaimCondition, GatewayConfig, PersonaRule } from '../../config/schema.js';
import type { ApproverPolicy } from '../../guards/approver.js';

export type Claims = Record<string, unknown>;

/** The persona a token maps to, and the rule that chose it (for the audit). */
export interface PersonaMatch {
  rule: PersonaRule;
  /** `http.oauth.personas.<i> (<conditions>)`, as the audit records it. */
  label: string;
}

/**
 * A claim by path: the whole path as a top-level name first (namespaced claims such as
 * `https://example.com/roles` hold dots), else the dotted path into nested objects.
 * Returns `undefined` when absent.
 *
 * ### Usage
 * ```ts
 * claimAt({ realm_access: { roles: ['staff'] } }, 'realm_access.roles'); // ['staff']
 * ```
 */
export function claimAt(claims: Claims, path: string): unknown {
  if (Object.hasOwn(claims, path)) return claims[path];
  let at: unknown = claims;
  for (const part of path.split('.')) {
    if (!at || typeof at !== 'object' || Array.isArray(at) || !Object.hasOwn(at, part)) return undefined;
    at = (at as Claims)[part];
  }
  return at;
}

/** The values a claim holds: a list's scalar items, a string's space-separated words (OAuth `scope`), a scalar's text. */
function heldValues(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v) => ['string', 'number', 'boolean'].includes(typeof v)).map(String);
  if (typeof value === 'string') return value.split(/\s+/).filter(Boolean);
  if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  return [];
}

function holds(claims: Claims, c: ClaimCondition): boolean {
  const value = claimAt(claims, c.claim);
  if (c.includes) return heldValues(value).some((v) => c.includes!.includes(v));
  if (c.equals) return ['string', 'number', 'boolean'].includes(typeof value) && c.equals.includes(String(value));
  if (typeof value !== 'string') return false;
  const at = value.lastIndexOf('@');
  const domain = value.slice(at + 1).toLowerCase();
  return at > 0 && c.domain!.some((d) => d.toLowerCase() === domain);
}

function describe(c: ClaimCondition): string {
  const [verb, values] = c.includes ? ['includes', c.includes] : c.equals ? ['equals', c.equals] : ['domain', c.domain!];
  return `${c.claim} ${verb} ${values.join(' | ')}`;
}

/**
 * The first rule all of whose conditions hold for these claims, or `undefined`.
 *
 * ### Usage
 * ```ts
 * matchPersona(rules, { groups: ['faculty'] });
 * // { rule: { persona: 'faculty', ... }, label: 'http.oauth.personas.0 (groups includes faculty)' }
 * ```
 */
export function matchPersona(rules: PersonaRule[], claims: Claims): PersonaMatch | undefined {
  const i = rules.findIndex((r) => (r.when ?? []).every((c) => holds(claims, c)));
  if (i < 0) return undefined;
  const rule = rules[i]!;
  return { rule, label: `http.oauth.personas.${i} (${rule.when ? rule.when.map(describe).join(' and ') : 'any signed-in user'})` };
}

/**
 * The first `confirmation.approvers` rule all of whose conditions hold for these claims
 * and which covers calls of `persona` (any persona, when `persona` is undefined), with its
 * label for the log; `undefined` when none does.
 *
 * ### Usage
 * ```ts
 * matchApprover([{ when: [{ claim: 'groups', includes: ['payments-approvers'] }] }], { groups: ['payments-approvers'] }, 'student');
 * // 'confirmation.approvers.0 (groups includes payments-approvers)'
 * ```
 */
export function matchApprover(rules: ApproverRule[], claims: Claims, persona?: string | null): string | undefined {
  const i = rules.findIndex(
    (r) => r.when.every((c) => holds(claims, c)) && (persona === undefined || !r.personas || (persona !== null && r.personas.includes(persona))),
  );
  return i < 0 ? undefined : `confirmation.approvers.${i} (${rules[i]!.when.map(describe).join(' and ')})`;
}

/**
 * The claims of an approver's sign-in that `rules` read, by path (absent ones left out):
 * what a page decision records and signs, so that the gateway checks, when the call is to
 * run, that the rules then in force still cover the approver (`matchApprover` reads a
 * claim kept under its whole path). A rule reading a claim the decision did not record
 * finds it absent.
 *
 * ### Usage
 * ```ts
 * approverClaims([{ when: [{ claim: 'groups', includes: ['payments-approvers'] }] }], { sub: 'x1', groups: ['staff'] });
 * // { groups: ['staff'] }
 * ```
 */
export function approverClaims(rules: { when?: ClaimCondition[] | undefined }[], claims: Claims): Claims {
  const paths = new Set(rules.flatMap((r) => (r.when ?? []).map((c) => c.claim)));
  return Object.fromEntries([...paths].flatMap((p) => (claimAt(claims, p) === undefined ? [] : [[p, claimAt(claims, p)]])));
}

/**
 * What the gateway's check of a decision (guards/approver.ts) asks of page decisions
 * under `config` as it is when the call is to run: where `confirmation.approvers` is set,
 * a signed-in approver, not the caller, whom a rule covers for the call's persona by the
 * claims their decision recorded.
 */
export function approverPolicy(config: Pick<GatewayConfig, 'confirmation' | 'http'>): ApproverPolicy {
  const { approvers, approvers_may_approve_own_calls } = config.confirmation;
  return {
    required: approvers !== undefined,
    mayApproveOwn: approvers_may_approve_own_calls,
    ...(config.http.oauth && { issuer: config.http.oauth.issuer }),
    ...(approvers && { covers: (claims: Claims, persona?: string | null) => matchApprover(approvers, claims, persona) !== undefined }),
  };
}

/** A claim value as it may be shown back to its own holder: bounded, never the token. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * What a refused host is told: the claims the rules read, as the token had them, so the
 * person can see which group or domain is missing. At most 20 claims.
 */
export function seenClaims(rules: { when?: ClaimCondition[] | undefined }[], claims: Claims): string {
  const paths = [...new Set(rules.flatMap((r) => (r.when ?? []).map((c) => c.claim)))].slice(0, 20);
  return paths.map((p) => `${p}=${claimAt(claims, p) === undefined ? '(absent)' : shown(claimAt(claims, p))}`).join(', ');
}

/** The user id from `user_claim`: a non-empty string or number claim, else `undefined`. */
export function userIdFrom(claims: Claims, userClaim: string): string | undefined {
  const value = claimAt(claims, userClaim);
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value !== '' ? value : undefined;
}
