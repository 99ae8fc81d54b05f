/**
 * A copy of a JSON value with some of its strings replaced, for redaction on the way out:
 * object keys and string values at any depth, never changing the input, and sharing every
 * part that did not change (an answer with nothing to redact is returned as it came, with
 * no copy made). Bounded: a value past `maxChars` of strings or `maxNodes` nodes is not
 * walked at all (the caller refuses it), and a part nested deeper than `maxDepth` is
 * replaced by a note rather than walked by a recursion that could overflow the stack.
 */

export interface WalkBounds {
  /** Total UTF-16 code units of keys and strings walked. */
  maxChars: number;
  /** Objects, arrays and scalars walked. */
  maxNodes: number;
  /** Depth past which a part is replaced by `DEEP_NOTE`. */
  maxDepth: number;
}

/** What replaces a part nested deeper than `maxDepth`. */
export const DEEP_NOTE = '[tool-curator: a part nested too deep to check for secrets was removed]';

/** Sets an own property, `__proto__` included (JSON.parse makes it an own key; `=` would set the prototype). */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

export class WalkLimitError extends Error {
  constructor(readonly what: string) {
    super(`the value is too large to check for secrets (${what})`);
  }
}

/**
 * Replaces strings. `key` is the property the string is the value of (`undefined` for
 * array items and for keys themselves), `parent` its object, so a replacement can depend on
 * where the string sits (a base64 `blob`).
 */
export type StringMap = (text: string, key: string | undefined, parent: Record<string, unknown> | undefined) => string;

/**
 * ### Usage
 * ```ts
 * mapStrings({ a: ['x', 'secret!'] }, (s) => s.replace('secret!', '[removed]'), bounds);
 * // { a: ['x', '[removed]'] }   (the input is untouched)
 * ```
 * @throws WalkLimitError when `value` is past `maxChars` or `maxNodes`.
 */
export function mapStrings<T>(value: T, map: StringMap, bounds: WalkBounds): T {
  let chars = 0;
  let nodes = 0;
  const count = (n: number) => {
    chars += n;
    if (chars > bounds.maxChars) throw new WalkLimitError(`over ${bounds.maxChars} characters`);
  };
  const walk = (v: unknown, depth: number, key: string | undefined, parent: Record<string, unknown> | undefined): unknown => {
    if (++nodes > bounds.maxNodes) throw new WalkLimitError(`over ${bounds.maxNodes} parts`);
    if (typeof v === 'string') {
      count(v.length);
      return map(v, key, parent);
    }
    if (v === null || typeof v !== 'object') return v;
    if (depth >= bounds.maxDepth) return DEEP_NOTE;
    if (Array.isArray(v)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const x = walk(v[i], depth + 1, undefined, undefined);
        if (x !== v[i]) (copy ??= v.slice())[i] = x;
      }
      return copy ?? v;
    }
    const obj = v as Record<string, unknown>;
    let copy: Record<string, unknown> | undefined;
    const keys = Object.keys(obj);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      count(k.length);
      const k2 = map(k, undefined, undefined);
      const x = walk(obj[k], depth + 1, k, obj);
      if (copy === undefined && (k2 !== k || x !== obj[k])) {
        // Rebuilt from the first change on, in the original key order.
        copy = {};
        for (let j = 0; j < i; j++) put(copy, keys[j]!, obj[keys[j]!]);
      }
      if (copy !== undefined) put(copy, k2, x);
    }
    return copy ?? obj;
  };
  return walk(value, 0, undefined, undefined) as T;
}
