/**
 * Redaction of argument values by field name, for the audit log and the approvals
 * shown to people. A key is redacted when the words of a configured name occur, in order,
 * among the words of the key: with `password`, `password`, `new_password` and
 * `adminPassword` are; with `api_key`, `stripe_api_key` is. Erring toward hiding
 * (`token_count` is hidden too) is the point: a secret in the audit log outlives the call.
 */

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

/** A predicate telling whether a field name is to be redacted under `names`. */
export function redactsField(names: string[]): (key: string) => boolean {
  const needles = names.map(words).filter((n) => n.length > 0);
  return (key) => {
    const w = words(key);
    return needles.some((n) => containsRun(w, n));
  };
}

/**
 * A copy of `value` with the values of matching keys, at any depth, replaced by REDACTED.
 *
 * ### Usage
 * ```ts
 * redact({ user: 'ana', auth: { password: 'x' } }, ['password']);
 * // { user: 'ana', auth: { password: '[redacted]' } }
 * ```
 */
export function redact<T>(value: T, names: string[]): T {
  const hides = redactsField(names);
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, hides(k) ? REDACTED : walk(x)]));
    }
    return v;
  };
  return walk(value) as T;
}
