/**
 * Resource URIs in one canonical form, so that the persona policy decides on the same
 * string the upstream reads. MCP servers built with the SDK parse a URI with the WHATWG
 * URL parser (`new URL(uri).toString()`) before they look it up, so a policy matching the
 * raw string is passed by any other spelling of a denied URI (`file:///public/../secret`,
 * `%2e%2e`, `\..\`, a tab inside a word, `SECRET://`, a leading space).
 *
 * `canonicalUri` is WHATWG's reading plus RFC 3986's safe normalisations: dot segments
 * resolved, tabs and newlines removed, leading and trailing spaces trimmed, backslashes as
 * slashes (special schemes), scheme and special hosts lower-cased, IDN hosts in ASCII,
 * default ports dropped, percent-encoded unreserved characters decoded (`%73` → `s`,
 * `%2E` → `.`, then dot segments again), other escapes in upper case, a trailing dot of a
 * domain host dropped. The gateway decides on it and forwards it. What does not parse, or
 * carries user info (`user:pass@`), is refused.
 *
 * `readings` are the other strings an upstream might make of the canonical one: decoded
 * once or more (`%252e%252e` → `%2e%2e` → `..`, `..%2f`; overlong `%C0%AE` and IIS's
 * `%u002e` as `.`), decoded and put in Unicode
 * compatibility form (NFKC, as a normalising reader or Windows' best-fit mapping reads
 * them: fullwidth `．．／` is `../`, `ｓｅｃｒｅｔ` and `ſecret` are `secret`), backslashes
 * as slashes, repeated slashes collapsed (a file server reads `file:////secret` as
 * `/secret`), each path segment without its `;` parameters (Tomcat and Jetty read
 * `/public/..;/secret` as `/secret`, `/secret;v=1/k` as `/secret/k`). A URI
 * percent-encoded more times over than the readings decode is refused. A URI
 * is allowed only if every reading is allowed and none is denied, so deny rules fail
 * closed on any spelling that some reader takes for the denied resource. Deny rules are
 * also matched against what a resolver keeps of each reading (`denyReadings`: no query,
 * fragment or trailing slash, an IPv4-mapped IPv6 host as IPv4, a non-special URI's host alone).
 */

/** Longest resource URI looked at, in UTF-16 units; longer is refused (the SDK's own cap is 1,000,000). */
export const MAX_URI_LENGTH = 16_384;
/** Rounds of decoding and re-reading; four take `%2525252e` down to `.`. A URI percent-encoded more times over is refused. */
const READING_ROUNDS = 4;

export type CanonicalUri = { ok: true; uri: string } | { ok: false; reason: string };

/** RFC 3986 unreserved characters: their percent-encoding means the same as the character. */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/** Decodes percent-encoded unreserved characters and upper-cases the hex of the rest (RFC 3986 6.2.2). */
function decodeUnreserved(s: string): string {
  return s.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => {
    const c = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(c) ? c : `%${hex.toUpperCase()}`;
  });
}

/**
 * Every percent-encoded byte decoded, runs as UTF-8 (invalid sequences become U+FFFD), read
 * as lenient decoders read them: an overlong two-byte form of an ASCII character (`%C0%AE`
 * is `.`, `%C0%AF` is `/`) as that character, and IIS's `%u002e` as U+002E.
 */
function decodeAll(s: string): string {
  return s
    .replace(/%u([0-9A-Fa-f]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/%([Cc][01])%([89ABab][0-9A-Fa-f])/g, (_, a: string, b: string) => String.fromCharCode(((parseInt(a, 16) & 0x1f) << 6) | (parseInt(b, 16) & 0x3f)))
    .replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'));
}

function parse(s: string): URL | undefined {
  try {
    return new URL(s);
  } catch {
    return undefined;
  }
}

const ESCAPE = /%[0-9A-Fa-f]{2}/;

/**
 * Whether `s` still holds an escape after READING_ROUNDS rounds of decoding: a reader that
 * decodes until the string stops changing would read further than `readings` looks
 * (`%25252525252e` is `.` to it), so such a URI is refused rather than decided on.
 */
function encodedBeyondReadings(s: string): boolean {
  let d = s;
  for (let round = 0; round < READING_ROUNDS && ESCAPE.test(d); round++) d = decodeAll(d);
  return ESCAPE.test(d);
}

/** Whether `s`, decoded up to READING_ROUNDS times, holds U+0000. */
function holdsNul(s: string): boolean {
  let d = s;
  for (let round = 0; round <= READING_ROUNDS; round++) {
    if (d.includes('\u0000')) return true;
    if (!ESCAPE.test(d)) return false;
    d = decodeAll(d);
  }
  return d.includes('\u0000');
}

/** Special schemes (WHATWG): their hosts are domains or IPs, their backslashes slashes. */
const SPECIAL = new Set(['http:', 'https:', 'ws:', 'wss:', 'ftp:', 'file:']);

/**
 * The canonical form of a resource URI (rules in the module comment).
 *
 * ### Usage
 * ```ts
 * canonicalUri('FILE:///public/%2e%2E/secret/keys.txt'); // { ok: true, uri: 'file:///secret/keys.txt' }
 * canonicalUri(' SECRET://keys');                         // { ok: true, uri: 'secret://keys' }
 * canonicalUri('../secret');                              // { ok: false, reason: 'not an absolute URI' }
 * ```
 */
export function canonicalUri(raw: string): CanonicalUri {
  if (raw.length > MAX_URI_LENGTH) return { ok: false, reason: `longer than ${MAX_URI_LENGTH} characters` };
  const first = parse(raw);
  if (!first) return { ok: false, reason: 'not an absolute URI' };
  if (first.username || first.password) return { ok: false, reason: 'carries user info' };
  const url = parse(decodeUnreserved(first.href));
  if (!url) return { ok: false, reason: 'not an absolute URI once its escapes are decoded' };
  if (encodedBeyondReadings(url.href)) return { ok: false, reason: `percent-encoded more than ${READING_ROUNDS} times over` };
  if (holdsNul(url.href)) return { ok: false, reason: 'holds a NUL character (a C reader ends the path there)' };
  if (SPECIAL.has(url.protocol) && url.hostname.length > 1 && url.hostname.endsWith('.')) url.hostname = url.hostname.slice(0, -1);
  return { ok: true, uri: url.href };
}

/** `s` with backslashes as slashes and runs of slashes in its path as one, as a file server reads it. */
function slashesAsPaths(s: string): string {
  const url = parse(s.replace(/\\/g, '/'));
  if (!url) return s.replace(/\\/g, '/');
  const authority = url.href.startsWith(`${url.protocol}//`);
  const path = url.pathname.replace(/\/{2,}/g, '/');
  return `${url.protocol}${authority ? `//${url.host}` : ''}${path}${url.search}${url.hash}`;
}

/** `s` with each path segment's `;` parameters dropped and dot segments resolved again, as a servlet container reads it; `s` when it has none. */
function withoutParams(s: string): string {
  const url = parse(s);
  if (!url || !url.pathname.includes(';')) return s;
  // The pathname setter parses the path again, so `..` left bare by a dropped `;` is resolved.
  url.pathname = url.pathname.split('/').map((segment) => segment.replace(/;.*$/s, '')).join('/');
  return url.href;
}

/** `[::ffff:7f00:1]`, an IPv4-mapped IPv6 host as WHATWG writes it, as the IPv4 address a connection to it reaches; else undefined. */
function mappedIpv4(host: string): string | undefined {
  const m = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(host);
  if (!m) return undefined;
  const [hi, lo] = [parseInt(m[1]!, 16), parseInt(m[2]!, 16)];
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/**
 * What a resolver keeps of `reading`: without its query and fragment and without trailing
 * slashes (Node's `fileURLToPath` + `path.resolve`, a key lookup), an IPv4-mapped IPv6 host
 * as its IPv4 address (where a fetcher connects); for a non-special scheme with a host,
 * also the host alone (`kv://secret:80/x?y` is `kv://secret` to a reader keyed by
 * `hostname`). Deny rules are matched against them too (a deny of `file:///secret/keys.txt`
 * holds for `…/keys.txt?x`); allow rules are not, so they can refuse a URI, never admit one.
 */
function resolvedForms(reading: string): string[] {
  const url = parse(reading);
  if (!url) return [];
  url.search = '';
  url.hash = '';
  const ipv4 = mappedIpv4(url.hostname);
  if (ipv4 !== undefined) url.hostname = ipv4;
  url.pathname = url.pathname.replace(/(?<=.)\/+$/, '');
  const forms = [url.href];
  if (!SPECIAL.has(url.protocol) && url.hostname !== '') forms.push(`${url.protocol}//${url.hostname}`);
  return forms;
}

/** Re-read as WHATWG does (dot segments resolved), or as it is when it no longer parses. */
function reread(s: string): string {
  return parse(s)?.href ?? s;
}

/**
 * The canonical URI and every other string an upstream might read it as (module comment),
 * canonical first, each once.
 */
export function readings(canonical: string): string[] {
  const seen = new Set([canonical]);
  let frontier = [canonical];
  for (let round = 0; round < READING_ROUNDS && frontier.length > 0; round++) {
    const next: string[] = [];
    for (const v of frontier) {
      const decoded = decodeAll(v);
      const asRead = [reread(slashesAsPaths(decoded)), reread(slashesAsPaths(decoded.normalize('NFKC'))), reread(slashesAsPaths(v))];
      for (const r of [...asRead, ...asRead.map(withoutParams)]) {
        if (!seen.has(r)) {
          seen.add(r);
          next.push(r);
        }
      }
    }
    frontier = next;
  }
  return [...seen];
}

/** Characters a best-fit code page mapping (Windows' "WorstFit") or a lenient reader takes for a slash or a backslash; NFKC keeps them. */
const SLASH_LOOKALIKES = /[\u2044\u2215\u2571\u29F8\u2216\u29F5\u29F9]/gu;
/** Characters a reader may strip, and a person does not see: soft hyphen, zero-width space and joiners, word joiner, BOM. */
const INVISIBLE = /[\u00AD\u200B-\u200D\u2060\uFEFF]/gu;
/** A Windows drive letter segment (`C:`), the one segment where a colon belongs. */
const DRIVE = /^[A-Za-z]:$/;

/**
 * What a Windows path reader makes of one path segment: it drops an NTFS stream
 * (`keys.txt::$DATA`, `secret:s`) and trailing dots and spaces (`secret.` and `secret%20`
 * are `secret`). A segment of dots only is left alone (it is a dot segment, resolved by the
 * URL parser). Servlet containers' `;params` are dropped by the readings already
 * (withoutParams), and lenientForms reads every reading.
 */
function lenientSegment(segment: string, index: number): string {
  let s = segment;
  if (!(index === 1 && DRIVE.test(s))) s = s.replace(/:.*$/su, '');
  return /^\.+$/u.test(s) ? s : s.replace(/(?:\.|%20| )+$/u, '');
}

/**
 * `reading` as the lenient readers of lenientSegment read it, with lookalike slashes as
 * slashes and invisible characters stripped, then dot segments resolved again; for a
 * non-special scheme also with no host folded into one (`kv:///admin` and `kv:admin` are
 * `kv://admin` to a reader that takes what follows the scheme), a trailing dot of the
 * host and the port dropped. Each reading also in lower
 * case after decoding (a deny rule ignores case, and `%C3%89` is `É`, `%C3%A9` is `é`).
 */
function lenientForms(reading: string): string[] {
  const forms: string[] = [];
  const url = parse(decodeAll(reading).normalize('NFKC').replace(INVISIBLE, '').replace(SLASH_LOOKALIKES, '/').replace(/\\/g, '/'));
  if (url) {
    url.pathname = url.pathname.split('/').map(lenientSegment).join('/');
    if (!SPECIAL.has(url.protocol)) {
      if (url.host === '') {
        // `kv:///admin/x` and the opaque `kv:admin/x` are `kv://admin/x` to a reader that takes what follows the scheme.
        const folded = parse(`${url.protocol}//${url.pathname.replace(/^\/+/u, '')}${url.search}`);
        if (folded) forms.push(folded.href);
      }
      if (url.hostname.endsWith('.')) url.hostname = url.hostname.replace(/\.+$/u, '');
      url.port = '';
    }
    forms.push(reread(url.href));
  }
  for (const f of [reading, ...forms]) forms.push(reread(decodeAll(f).toLowerCase()));
  return forms;
}

/**
 * `readings(canonical)`, what a lenient reader makes of each (lenientForms) and what a
 * resolver keeps of those (resolvedForms): the strings a deny rule is matched against,
 * each once.
 */
export function denyReadings(canonical: string): string[] {
  const all = new Set<string>();
  for (const r of readings(canonical)) {
    for (const l of [r, ...lenientForms(r)]) {
      all.add(l);
      for (const f of resolvedForms(l)) all.add(f);
    }
  }
  return [...all];
}

/** A Windows 8.3 short name (`SECRE~1`, `PROGRA~2.TXT`) as a path segment: it names a long name the gateway cannot know. */
const SHORT_NAME = /\/[^/~]{1,6}~\d{1,6}(?:\.[^/.]{0,3})?(?=[/?#]|$)/u;

/**
 * Whether a reading of the URI holds a Windows 8.3 short name: a deny rule written for
 * `file:///secret/*` cannot be matched against `file:///SECRE~1/x`, so where deny rules
 * apply such a URI is refused (policy.ts).
 */
export function holdsShortName(readingsOf: readonly string[]): boolean {
  return readingsOf.some((r) => SHORT_NAME.test(decodeAll(r)));
}
