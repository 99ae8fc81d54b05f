/** Canonical resource URIs and their readings (issue 18, item 1): the rules, one case each. */
import { describe, expect, test } from 'vitest';
import { canonicalUri, denyReadings, MAX_URI_LENGTH, readings } from '../../src/policy/uri.js';

const canonical = (raw: string) => {
  const c = canonicalUri(raw);
  return c.ok ? c.uri : `refused: ${c.reason}`;
};

describe('canonicalUri', () => {
  test.each([
    ['file:///public/../secret/k', 'file:///secret/k'],
    ['file:///public/%2e%2E/secret/k', 'file:///secret/k'],
    ['file:///public\\..\\secret\\k', 'file:///secret/k'],
    ['file:///se\tcr\net/k', 'file:///secret/k'],
    ['  FILE:///secret/k \n', 'file:///secret/k'],
    ['file:///%73ecret/a%2Etxt', 'file:///secret/a.txt'],
    ['file:///public/..%2fsecret', 'file:///public/..%2Fsecret'],
    ['secret://ke%79s', 'secret://keys'],
    ['SECRET://KEYS', 'secret://KEYS'],
    ['HTTPS://Example.COM.:443/a/./b', 'https://example.com/a/b'],
    ['http://example.com:8080/a', 'http://example.com:8080/a'],
    ['https://ｅｘａｍｐｌｅ.com/', 'https://example.com/'],
    ['https://bücher.example/', 'https://xn--bcher-kva.example/'],
    ['http://0x7f.1/', 'http://127.0.0.1/'],
    ['notes://{topic}', 'notes://{topic}'],
  ])('%j → %j', (raw, expected) => expect(canonical(raw)).toBe(expected));

  test.each([
    ['../secret', 'refused: not an absolute URI'],
    ['secret', 'refused: not an absolute URI'],
    ['http://user:pw@example.com/', 'refused: carries user info'],
    ['http://user@example.com/', 'refused: carries user info'],
    [`file:///${'a'.repeat(MAX_URI_LENGTH)}`, `refused: longer than ${MAX_URI_LENGTH} characters`],
    // Five levels: past what the readings decode, so refused rather than decided on.
    ['file:///public/%252525252e%252525252e/secret/k', 'refused: percent-encoded more than 4 times over'],
  ])('%j is refused', (raw, expected) => expect(canonical(raw)).toBe(expected));

  test('is idempotent', () => {
    for (const raw of ['file:///public/%252e%252e/x', 'HTTPS://Example.COM./a', 'secret://ke%79s/%41']) {
      const once = canonical(raw);
      expect(canonical(once)).toBe(once);
    }
  });
});

describe('readings', () => {
  test('the canonical URI first, then what decoding, backslashes and repeated slashes make of it', () => {
    // Decoded once, `%2e%2e` is read as `..` at once.
    expect(readings('file:///public/%252e%252e/secret/k')).toEqual(['file:///public/%252e%252e/secret/k', 'file:///secret/k']);
    expect(readings('file:///public/%25252e%25252e/secret/k')).toEqual(['file:///public/%25252e%25252e/secret/k', 'file:///public/%252e%252e/secret/k', 'file:///secret/k']);
    expect(readings('file:///public/..%5Csecret')).toEqual(['file:///public/..%5Csecret', 'file:///secret']);
    expect(readings('file:////secret/k')).toEqual(['file:////secret/k', 'file:///secret/k']);
    expect(readings('file:///public/my%20file.txt')).toEqual(['file:///public/my%20file.txt']);
  });
});

describe('lenient decoders and resolvers (2026-12-02)', () => {
  test('an overlong UTF-8 dot or slash, and IIS\'s %u002e, are read as the character', () => {
    expect(readings('file:///public/%C0%AE%C0%AE/secret/k')).toContain('file:///secret/k');
    expect(readings('file:///public/..%C0%AFsecret/k')).toContain('file:///secret/k');
    expect(readings('file:///public/%u002e%u002e/secret/k')).toContain('file:///secret/k');
  });

  test('deny readings: no query, fragment or trailing slash; IPv4-mapped IPv6 as IPv4; a non-special URI\'s host alone', () => {
    expect(denyReadings('file:///secret/k?x#y')).toEqual(['file:///secret/k?x#y', 'file:///secret/k']);
    expect(denyReadings('file:///secret/k//')).toContain('file:///secret/k');
    expect(denyReadings('http://[::ffff:7f00:1]:8080/a')).toEqual(['http://[::ffff:7f00:1]:8080/a', 'http://127.0.0.1:8080/a']);
    expect(denyReadings('kv://secret:80/x?y')).toEqual(['kv://secret:80/x?y', 'kv://secret:80/x', 'kv://secret', 'kv://secret/x?y', 'kv://secret/x']);
    // A special URI's path is never dropped: https://host/ stays one page of the host.
    expect(denyReadings('https://example.com/a/')).toEqual(['https://example.com/a/', 'https://example.com/a']);
  });

  // Readers more lenient than a URL parser: each string below is file:///secret/k (or kv://admin/x) to one of them.
  test.each([
    ['file:///public/..;/secret/k', 'file:///secret/k', 'Tomcat and Jetty drop ;params: ..; is ..'],
    ['file:///secret;jsessionid=1/k', 'file:///secret/k', 'Tomcat drops ;params'],
    ['file:///secret./k', 'file:///secret/k', 'Windows drops trailing dots'],
    ['file:///secret%20%20/k', 'file:///secret/k', 'Windows drops trailing spaces'],
    ['file:///secret::$INDEX_ALLOCATION/k', 'file:///secret/k', 'an NTFS stream of the directory'],
    ['file:///public/..%E2%88%95secret/k', 'file:///secret/k', 'U+2215 DIVISION SLASH, a slash to a best-fit mapping'],
    ['file:///public/..%E2%A7%B8secret/k', 'file:///secret/k', 'U+29F8 BIG SOLIDUS'],
    ['file:///SECR%C3%89T/k', 'file:///secr%C3%A9t/k', 'a deny rule ignores case: É is é once decoded'],
    ['kv:///admin/x', 'kv://admin/x', 'slashes before a non-special host folded'],
    ['kv:admin/x', 'kv://admin/x', 'an opaque path read as a host'],
    ['file:///se%E2%80%8Bcret/k', 'file:///secret/k', 'a zero-width space stripped'],
    ['file:///se%C2%ADcret/k', 'file:///secret/k', 'a soft hyphen stripped'],
    ['kv://admin./x', 'kv://admin/x', "a non-special host's trailing dot"],
    ['kv://admin:8080/x', 'kv://admin/x', "a non-special host's port"],
  ])('%j is denied as %j (%s)', (canonicalForm, denied) => {
    const c = canonicalUri(canonicalForm);
    expect(c.ok).toBe(true);
    expect(denyReadings((c as { uri: string }).uri)).toContain(denied);
  });

  test('a drive letter keeps its colon; a dot segment is not trimmed', () => {
    expect(denyReadings('file:///C:/secret./k')).toContain('file:///C:/secret/k');
    expect(denyReadings('file:///a/.../k')).not.toContain('file:///a/k');
  });

  test('a NUL anywhere, encoded up to four times, is refused', () => {
    expect(canonical('file:///secret%00.txt')).toBe('refused: holds a NUL character (a C reader ends the path there)');
    expect(canonical('file:///secret%2500.txt')).toBe('refused: holds a NUL character (a C reader ends the path there)');
    expect(canonical('file:///public/a.txt')).toBe('file:///public/a.txt');
  });
});

describe('path parameters, Unicode forms and other spellings (2026-12-03)', () => {
  test('a reading drops each segment\'s `;` parameters and resolves the dots they hid', () => {
    expect(readings('file:///public/..;/secret/k')).toEqual(['file:///public/..;/secret/k', 'file:///secret/k']);
    expect(readings('file:///public/..%3B/secret/k')).toContain('file:///secret/k');
    expect(readings('file:///secret;v=1/k')).toEqual(['file:///secret;v=1/k', 'file:///secret/k']);
    // Without a `;`, no further reading.
    expect(readings('file:///public/readme.txt')).toEqual(['file:///public/readme.txt']);
  });

  test.each([
    ['https://[fe80::1%25eth0]/a', 'refused: not an absolute URI'],
    ['file://localhost./secret/k', 'file:///secret/k'],
    ['FILE://LOCALHOST/secret/k', 'file:///secret/k'],
    ['https://Example.COM:443//secret/k', 'https://example.com//secret/k'],
    ['https://[::1]:443/a', 'https://[::1]/a'],
    ['https://user@example.com:443/a', 'refused: carries user info'],
  ])('%j → %j', (raw, expected) => expect(canonical(raw)).toBe(expected));
});

