/**
 * Redaction of argument values by field name, for the audit log and the approvals
 * shown to people. A key is redacted when the words of a configured name occur, in order,
 * among the words of the key, whatever its case: with `password`, `password`, `new_password` and
 * `adminPassword` are; with `api_key`, `stripe_api_key` is; with `authorization`, a nested
 * `headers.Authorization` is. Erring toward hiding (`token_count` is hidden too) is the
 * point: a secret in the audit log outlives the call.
 *
 * Text (an upstream's error, an exception message) is redacted too (redactText): the
 * values redacted from the call's arguments wherever they are echoed, `name: value` /
 * `name=value` / `"name": "value"` pairs of a matching name, and `Bearer`/`Basic` credentials.
 */
import { DEEP_MARKER } from './bound.js';

/** The placeholder written instead of a redacted value. */
export const REDACTED = '[redacted]';

function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function containsRun(haystack: string[], needle: string[]): boolean {
  for (let i = 0; i + needle.length <= haystack.length; i++) {
    if (needle.every((w, j) => haystack[i + j] === w)) return true;
  }
  return false;
}

/** Field names whose verdict a predicate remembers: argument names repeat from call to call, and come from outside, so the memory is bounded. */
const REMEMBERED_KEYS = 1024;

/** A predicate telling whether a field name is to be redacted under `names`. */
export function redactsField(names: string[]): (key: string) => boolean {
  const needles = names.map(words).filter((n) => n.length > 0);
  const verdicts = new Map<string, boolean>();
  return (key) => {
    let hidden = verdicts.get(key);
    if (hidden === undefined) {
      const w = words(key);
      hidden = needles.some((n) => containsRun(w, n));
      if (verdicts.size < REMEMBERED_KEYS) verdicts.set(key, hidden);
    }
    return hidden;
  };
}

/** The predicate of each list of names seen (keyed by its content, so a list edited in place is never judged by its old rules), built once rather than per call; a few lists are kept (the configured one, and its reloads). */
const predicates = new Map<string, (key: string) => boolean>();
const REMEMBERED_LISTS = 16;

function predicateOf(names: string[]): (key: string) => boolean {
  const id = names.join('\0');
  let hides = predicates.get(id);
  if (!hides) {
    hides = redactsField(names);
    if (predicates.size < REMEMBERED_LISTS) predicates.set(id, hides);
  }
  return hides;
}

/**
 * Depth past which `redact` replaces a part by DEEP_MARKER rather than recursing into it: a
 * value from a host may be nested thousands of levels deep (JSON.parse takes it), deeper
 * than the stack lets a recursion walk. Everything redacted is stored or shown bounded
 * to 32 levels anyway (bound.ts), so nothing kept is lost.
 */
export const REDACT_MAX_DEPTH = 256;

/**
 * A copy of `value` with the values of matching keys, at any depth, replaced by REDACTED;
 * a part nested deeper than REDACT_MAX_DEPTH is replaced by DEEP_MARKER.
 *
 * ### Usage
 * ```ts
 * redact({ user: 'ana', auth: { password: 'x' } }, ['password']);
 * // { user: 'ana', auth: { password: '[redacted]' } }
 * ```
 */
export function redact<T>(value: T, names: string[]): T {
  const hides = predicateOf(names);
  const walk = (v: unknown, depth: number): unknown => {
    if (!v || typeof v !== 'object') return v;
    if (depth >= REDACT_MAX_DEPTH) return DEEP_MARKER;
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, hides(k) ? REDACTED : walk(x, depth + 1)]));
  };
  return walk(value, 0) as T;
}

/** Secret values shorter than this are not searched for in text (they would hide common words). */
const MIN_ECHOED = 4;

/**
 * The string values `redact` hides in `value`: what an upstream may echo back in its error
 * text. Walked with a list rather than a recursion, so a value nested however deep is
 * searched whole (its secrets are found past REDACT_MAX_DEPTH too) and never overflows the stack.
 */
export function redactedValues(value: unknown, names: string[]): string[] {
  const hides = predicateOf(names);
  const found: string[] = [];
  // Children are pushed last first, so the values come in the order they are written.
  const pending: [unknown, boolean][] = [[value, false]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [v, hidden] = next;
    if (Array.isArray(v)) for (let i = v.length - 1; i >= 0; i--) pending.push([v[i], hidden]);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v).reverse()) pending.push([x, hidden || hides(k)]);
    else if (hidden && (typeof v === 'string' || typeof v === 'number') && String(v).length >= MIN_ECHOED) found.push(String(v));
  }
  return found;
}

/**
 * `text` with secrets replaced by REDACTED: every value of `echoed` (redactedValues of
 * the call's arguments), the value of each `name: value`, `name=value` or JSON
 * `"name": "value"` pair whose name matches `names` (as redactsField matches keys), and
 * the credential after `Bearer` or `Basic`.
 *
 * ### Usage
 * ```ts
 * redactText('401: token tok_live_9 rejected (Authorization: Bearer abc.def)', ['token', 'authorization'], ['tok_live_9']);
 * // '401: token [redacted] rejected (Authorization: [redacted])'
 * ```
 */
export function redactText(text: string, names: string[], echoed: readonly string[] = []): string {
  let out = text;
  for (const secret of [...new Set(echoed)].sort((a, b) => b.length - a.length)) out = out.split(secret).join(REDACTED);
  const hides = predicateOf(names);
  // name, separator (quote, colon or equals), then a quoted value or a run up to a delimiter.
  out = out.replace(/([A-Za-z][\w.-]*)(["']?\s*[:=]\s*)("(?:[^"\\]|\\.)*"|'[^']*'|[^\s,;&(){}[\]]+(?:\s+(?![A-Za-z][\w.-]*["']?\s*[:=]\s*[^\s=,;&(){}[\]])[^\s,;&(){}[\]]+)?)/g, (all, name: string, sep: string, value: string) => {
    if (!hides(name)) return all;
    const quote = value[0] === '"' || value[0] === "'" ? value[0] : '';
    return `${name}${sep}${quote}${REDACTED}${quote}`;
  });
  return out.replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{4,}/gi, `$1 ${REDACTED}`);
}
