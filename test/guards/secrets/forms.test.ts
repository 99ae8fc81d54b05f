import { describe, expect, test } from 'vitest';
import { credentialValues, MIN_SECRET_CHARS, spellingsOf } from '../../../src/guards/secrets/forms.js';

describe('credentialValues', () => {
  test('a Bearer header value yields the token alone (the scheme stays readable)', () => {
    expect(credentialValues('Bearer tc_live_7Qm2ZpX9rK4v')).toEqual(['tc_live_7Qm2ZpX9rK4v']);
  });

  test('a Basic credential yields its base64, the user:password pair and the password', () => {
    const basic = `Basic ${Buffer.from('svc-reports:Wq8!pLm#3vZr').toString('base64')}`;
    expect(credentialValues(basic)).toEqual(['c3ZjLXJlcG9ydHM6V3E4IXBMbSMzdlpy', 'svc-reports:Wq8!pLm#3vZr', 'Wq8!pLm#3vZr']);
  });

  test("a URL's password, percent-decoded", () => {
    expect(credentialValues('postgres://tc:p%40ss-w0rd-77@db.internal:5432/tc')).toContain('p@ss-w0rd-77');
  });

  test('the body lines of a PEM key', () => {
    const pem = '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgevZzL1gdAFr88hb2\nOF/2NxApJCzGCEDdfSp6VQO30hyhRANCAAQRWz+jn65BtOMvdyHKcvjBeBSDZH2r\n-----END PRIVATE KEY-----\n';
    const values = credentialValues(pem);
    expect(values[0]).toBe(pem);
    expect(values).toContain('MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgevZzL1gdAFr88hb2');
    expect(values).toContain('OF/2NxApJCzGCEDdfSp6VQO30hyhRANCAAQRWz+jn65BtOMvdyHKcvjBeBSDZH2r');
  });

  test('an opaque value is itself only', () => {
    expect(credentialValues('ghp_4mZ1cTq8Xr2VbN7kLw0PdY3sHj6fUe9AoGi5')).toEqual(['ghp_4mZ1cTq8Xr2VbN7kLw0PdY3sHj6fUe9AoGi5']);
  });
});

describe('spellingsOf', () => {
  const secret = 'pä$$ wörd/+"zé𝄞-2291';

  test('URL-encoded, form-encoded, JSON-escaped and ASCII-escaped JSON spellings', () => {
    const s = spellingsOf(secret);
    expect(s).toContain(secret);
    expect(s).toContain(encodeURIComponent(secret));
    expect(s).toContain(new URLSearchParams({ x: secret }).toString().slice(2));
    expect(s).toContain(JSON.stringify(secret).slice(1, -1));
    // What Python's json.dumps writes by default.
    expect(s).toContain('p\\u00e4$$ w\\u00f6rd/+\\"z\\u00e9\\ud834\\udd1e-2291');
  });

  test('a base64 spelling is inside the base64 of any text carrying the secret, at each of the three byte offsets', () => {
    const s = spellingsOf(secret);
    for (const prefix of ['', 'x', 'xy', 'xyz', 'Authorization: ']) {
      for (const encoding of ['base64', 'base64url'] as const) {
        const encoded = Buffer.from(`${prefix}${secret} and more`).toString(encoding);
        expect(s.some((spelling) => spelling.length >= 20 && encoded.includes(spelling)), `${encoding} after ${JSON.stringify(prefix)}`).toBe(true);
      }
    }
  });

  test(`every spelling has at least ${MIN_SECRET_CHARS} characters`, () => {
    expect(spellingsOf('abcdefgh').every((x) => x.length >= MIN_SECRET_CHARS)).toBe(true);
    expect(spellingsOf('short')).toEqual([]);
  });
});
