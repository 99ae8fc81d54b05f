/**
 * Bounds on what the gateway keeps and echoes from outside: argument values stored in the
 * audit log and the approvals store, and names written back into messages and logs. A
 * bounded value says it was cut and by how much, so a reader never mistakes it for whole.
 */

/** What replaces a part of a value nested too deep to keep (here past 32 levels; redact.ts past 256). */
export const DEEP_MARKER = '…[truncated: nested too deep]';

/** Default of `audit.max_value_bytes`: 4 KiB per stored argument value. */
export const DEFAULT_MAX_VALUE_BYTES = 4096;

/** Longest name echoed in a message or stored in a name column (a tool name is at most 128, see nameGuard). */
export const ECHO_NAME_MAX = 128;

/** `name`, or its first `max` characters with a marker saying how long it was. */
export function clipName(name: string, max = ECHO_NAME_MAX): string {
  return name.length <= max ? name : `${name.slice(0, max)}…[${name.length} chars]`;
}

function clipString(s: string, maxBytes: number): string {
  const bytes = Buffer.byteLength(s, 'utf8');
  if (bytes <= maxBytes) return s;
  // Cut on a character boundary: decoding a byte prefix may leave half a character, dropped here.
  const head = Buffer.from(s, 'utf8').subarray(0, maxBytes).toString('utf8').replace(/\uFFFD$/, '');
  return `${head}…[truncated ${bytes - Buffer.byteLength(head, 'utf8')} bytes]`;
}

/**
 * A copy of `value` fit for storage: every string longer than `maxBytes` (UTF-8) is cut
 * with a `…[truncated N bytes]` marker, keys too; arrays and objects keep their first
 * `maxBytes / 16` entries (at least 16) and note how many were left out. The whole
 * stays within about 64 × `maxBytes` whatever came in.
 *
 * ### Usage
 * ```ts
 * boundValue({ note: 'x'.repeat(10_000) }, 4096).note; // 'xxx…[truncated 5904 bytes]'
 * ```
 */
export function boundValue<T>(value: T, maxBytes: number = DEFAULT_MAX_VALUE_BYTES): T {
  const maxEntries = Math.max(16, Math.floor(maxBytes / 16));
  let budget = 64 * maxBytes;
  const walk = (v: unknown, depth: number): unknown => {
    if (budget <= 0) return '…[truncated]';
    if (typeof v === 'string') {
      const s = clipString(v, Math.min(maxBytes, budget));
      budget -= s.length;
      return s;
    }
    if (v === null || typeof v !== 'object') {
      budget -= 8;
      return v;
    }
    if (depth > 32) return DEEP_MARKER;
    if (Array.isArray(v)) {
      const out = v.slice(0, maxEntries).map((x) => walk(x, depth + 1));
      if (v.length > maxEntries) out.push(`…[${v.length - maxEntries} more items]`);
      return out;
    }
    const entries = Object.entries(v);
    // Built from entries, so a `__proto__` key stays a key as JSON has it (assigning it would set the prototype and hide it from the person shown the call).
    const out = Object.fromEntries(entries.slice(0, maxEntries).map(([k, x]) => [clipString(k, 256), walk(x, depth + 1)]));
    if (entries.length > maxEntries) out['…'] = `[${entries.length - maxEntries} more keys]`;
    return out;
  };
  return walk(value, 0) as T;
}
