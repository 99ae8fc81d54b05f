/**
 * The spellings of a held secret that a careless upstream may echo: the value as it is, the
 * credential inside a header value (`Bearer <v>`, `Basic <base64 of user:pass>` and the
 * password in it), the password of a URL (`postgres://u:<pw>@h`), the body lines of a PEM
 * key, and for each of these the URL-encoded, JSON-escaped and base64 spellings (base64 in
 * all three byte alignments, so the secret is found inside a longer base64 text too).
 */

/**
 * Shortest spelling searched for, in UTF-16 code units. A shorter value (a PIN, `admin`,
 * a 6-digit port) would be found in ordinary words and numbers of every answer, and
 * replacing those would garble results while protecting little: a value that short is
 * guessed faster than it leaks. The gateway's own tokens need 16 characters (config).
 */
export const MIN_SECRET_CHARS = 8;

/** Longest value whose spellings are derived; past it only the value itself is searched (a PEM key is ~3 KB, a JWT ~1-2 KB). */
const MAX_DERIVED_CHARS = 16_384;

/** `Scheme credential` in an HTTP header value (RFC 9110 auth-scheme: a token). */
const SCHEMED = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)\s+(\S[\s\S]*)$/;
const PEM = /^-----BEGIN [^-]+-----\s*([\s\S]+?)\s*-----END [^-]+-----\s*$/;

/**
 * The values that stand for `raw` on their own: `raw` (or, after an auth scheme, the
 * credential alone: what is removed reads `Bearer [secret removed: …]`), the pieces of a
 * Basic credential, a URL's password, a PEM body's lines.
 *
 * ### Usage
 * ```ts
 * credentialValues('Basic dXNlcjpodW50ZXIyaHVudGVy');
 * // ['dXNlcjpodW50ZXIyaHVudGVy', 'user:hunter2hunter', 'hunter2hunter']
 * ```
 */
export function credentialValues(raw: string): string[] {
  if (raw.length > MAX_DERIVED_CHARS) return [raw];
  const schemed = SCHEMED.exec(raw);
  const out = schemed ? [] : [raw];
  if (schemed) {
    const credential = schemed[2]!.trim();
    out.push(credential);
    if (schemed[1]!.toLowerCase() === 'basic' && /^[A-Za-z0-9+/]+={0,2}$/.test(credential)) {
      const pair = Buffer.from(credential, 'base64').toString('utf8');
      const colon = pair.indexOf(':');
      if (colon > 0) out.push(pair, pair.slice(colon + 1));
    }
  }
  const password = urlPassword(raw);
  if (password) out.push(password);
  const pem = PEM.exec(raw);
  if (pem) out.push(...pem[1]!.split(/\s+/));
  return [...new Set(out)];
}

/** The password of a URL with user info (`postgres://u:<pw>@h/db`), percent-decoded. */
export function urlPassword(raw: string): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/]*:[^/]*@/i.test(raw)) return undefined;
  try {
    const password = new URL(raw).password;
    return password ? decodeURIComponent(password) : undefined;
  } catch {
    return undefined;
  }
}

/** JSON string escapes with every non-ASCII character as `\uXXXX` (Python's json.dumps default). */
function asciiJson(value: string): string {
  return JSON.stringify(value)
    .slice(1, -1)
    .replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The base64 characters that depend only on `bytes`, when they sit `shift` bytes past a
 * 3-byte boundary inside a longer base64 text: the characters mixing in the neighbours'
 * bits are cut off both ends.
 */
function base64Core(bytes: Buffer, shift: 0 | 1 | 2, url: boolean): string {
  const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString(url ? 'base64url' : 'base64');
  const total = shift + bytes.length;
  const rest = total % 3;
  const end = Math.floor(total / 3) * 4 + (rest === 0 ? 0 : rest === 1 ? 1 : 2);
  return encoded.slice([0, 2, 3][shift], end);
}

/**
 * Every spelling of `value` worth searching for (each at least MIN_SECRET_CHARS long):
 * the value, URL-encoded (percent and form), JSON-escaped (plain and ASCII-only), and
 * base64 and base64url of its UTF-8 bytes in each alignment.
 */
export function spellingsOf(value: string): string[] {
  const out = new Set([value]);
  if (value.length <= MAX_DERIVED_CHARS) {
    out.add(encodeURIComponent(value));
    out.add(new URLSearchParams({ v: value }).toString().slice(2));
    out.add(JSON.stringify(value).slice(1, -1));
    out.add(asciiJson(value));
    const bytes = Buffer.from(value, 'utf8');
    for (const shift of [0, 1, 2] as const) {
      out.add(base64Core(bytes, shift, false));
      out.add(base64Core(bytes, shift, true));
    }
  }
  return [...out].filter((s) => s.length >= MIN_SECRET_CHARS);
}
