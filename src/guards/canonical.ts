/**
 * One text for one value: what approvals and pinned definitions hash. Two calls with the
 * same arguments in another key order, or two listings of the same definition, give the
 * same text and so the same digest.
 */
import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every depth, so equal values give equal text; `undefined` members are dropped, as JSON does. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** `sha256:<64 hex digits>` of `text` (UTF-8). */
export function sha256(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/** The digest of a value's canonical JSON. */
export const digestOf = (value: unknown): string => sha256(canonicalJson(value));
