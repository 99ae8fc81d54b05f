/**
 * The one redaction step: a JSON value (a message to the host, an audit row) with every
 * held secret replaced by a marker naming what was removed, and, unless `guards.secrets`
 * is `off`, every well-known secret format too (patterns.ts).
 */
import { MIN_SECRET_CHARS } from './forms.js';
import type { HeldSecrets } from './held.js';
import type { Found } from './matcher.js';
import { findPatternSecrets } from './patterns.js';
import { mapStrings, type WalkBounds } from './walk.js';

/** `guards.secrets`: what happens to well-known secret formats. Held secrets are always redacted. */
export type PatternMode = 'block' | 'redact' | 'off';

/**
 * Default bounds of one walk: 64 Mi characters (past the largest result, 10 MiB by
 * default, and a resource read, as JSON), 4 Mi parts, 256 levels (MCP content is a few
 * levels deep; JSON.stringify of the message recurses too).
 */
export const DEFAULT_WALK_BOUNDS: WalkBounds = { maxChars: 64 * 1024 * 1024, maxNodes: 4 * 1024 * 1024, maxDepth: 256 };

/** The text that replaces a removed secret: what it was, never any of it. */
export function marker(labels: Iterable<string>): string {
  return `[secret removed: ${[...new Set(labels)].join('; ')}]`;
}

/** Keys whose string is base64 content (`blob` of a resource, `data` of an image or audio block beside its `mimeType`). */
function isBase64(key: string | undefined, parent: Record<string, unknown> | undefined): boolean {
  return key === 'blob' || (key === 'data' && typeof parent?.mimeType === 'string');
}

/** Overlapping and touching occurrences merged, by start. */
function merge(found: Found[]): { start: number; end: number; labels: string[] }[] {
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: { start: number; end: number; labels: string[] }[] = [];
  for (const f of found) {
    const last = out.at(-1);
    if (last && f.start <= last.end) {
      last.end = Math.max(last.end, f.end);
      last.labels.push(f.label);
    } else out.push({ start: f.start, end: f.end, labels: [f.label] });
  }
  return out;
}

export class SecretRedactor {
  /**
   * @param held the secrets the gateway holds (held.ts).
   * @param mode `guards.secrets`; default `redact`.
   * @param bounds of one walk; default DEFAULT_WALK_BOUNDS.
   */
  constructor(
    readonly held: HeldSecrets,
    readonly mode: PatternMode = 'redact',
    private readonly bounds: WalkBounds = DEFAULT_WALK_BOUNDS,
  ) {}

  /** What is to be removed from `text`: held secrets, and pattern secrets unless the mode is `off`. */
  private find(text: string): Found[] {
    // No held spelling and no pattern is shorter (keys such as `content`, `type`, short values).
    if (text.length < MIN_SECRET_CHARS) return [];
    const found = this.held.current().find(text);
    return this.mode === 'off' ? found : found.concat(findPatternSecrets(text));
  }

  /**
   * `text` with its secrets replaced by markers.
   *
   * ### Usage
   * ```ts
   * held.set('config', [{ value: 'tok-4f9a2c17e3', label: 'header Authorization of upstream crm' }]);
   * new SecretRedactor(held).redactText('rejected Bearer tok-4f9a2c17e3');
   * // 'rejected Bearer [secret removed: header Authorization of upstream crm]'
   * ```
   */
  redactText(text: string): string {
    const found = this.find(text);
    if (found.length === 0) return text;
    let out = '';
    let at = 0;
    for (const { start, end, labels } of merge(found)) {
      out += text.slice(at, start) + marker(labels);
      at = end;
    }
    return out + text.slice(at);
  }

  /**
   * A copy of `value` (the input is never changed; unchanged parts are shared) with every
   * secret in its strings and keys replaced; base64 content carrying one becomes the base64
   * of the marker, since a marker spliced into it would not decode.
   * @throws WalkLimitError past the walk's bounds.
   */
  redact<T>(value: T): T {
    return mapStrings(
      value,
      (text, key, parent) => {
        if (!isBase64(key, parent)) return this.redactText(text);
        const found = this.find(text);
        return found.length === 0 ? text : Buffer.from(marker(found.map((f) => f.label))).toString('base64');
      },
      this.bounds,
    );
  }

  /** The well-known secret formats in `value`'s strings (for `block`, and for telling the model what was removed), whatever the mode. */
  patternKinds(value: unknown): string[] {
    const kinds = new Set<string>();
    mapStrings(
      value,
      (text) => {
        for (const f of findPatternSecrets(text)) kinds.add(f.label);
        return text;
      },
      this.bounds,
    );
    return [...kinds];
  }
}
