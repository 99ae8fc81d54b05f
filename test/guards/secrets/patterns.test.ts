import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { findPatternSecrets } from '../../../src/guards/secrets/patterns.js';

const kinds = (text: string) => findPatternSecrets(text).map((f) => [f.label, text.slice(f.start, f.end)]);

describe('well-known secret formats', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

  test.each([
    ['AWS access key id', 'AKIAIOSFODNN7EXAMPLE'],
    ['GitHub token', 'ghp_4mZ1cTq8Xr2VbN7kLw0PdY3sHj6fUe9AoGi5'],
    ['GitHub token', `github_pat_11ABCDEFG0${'aB3dE5gH7j'.repeat(8)}xy`],
    ['GitLab token', 'glpat-x9Yk2LmQ7rT4vW8zB1nC'],
    ['Slack token', 'xoxb-263594206564-2343594206574-FGqddMF8t08v8N7Oq4i57vs1'],
    ['Slack webhook URL', 'https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx'],
    ['Google API key', 'AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY'],
    ['Stripe secret key', 'sk_live_51H8f2KLmNoPqRsTuVwXyZ0123'],
    ['JWT', 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'],
  ])('%s: %s', (kind, secret) => {
    expect(kinds(`found ${secret} in the log`)).toEqual([[kind, secret]]);
  });

  test('an AWS secret access key next to its name: the value only', () => {
    expect(kinds('aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n')).toEqual([['AWS secret access key', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY']]);
    expect(kinds('{"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}')).toEqual([['AWS secret access key', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY']]);
  });

  test('PEM private keys (RSA, PKCS#8), whole, JSON-escaped, or cut off before END', () => {
    expect(kinds(`key:\n${rsa}done`)).toEqual([['private key', rsa.trimEnd()]]);
    expect(kinds(ec)).toEqual([['private key', ec.trimEnd()]]);
    const escaped = JSON.stringify({ key: ec });
    const found = findPatternSecrets(escaped);
    expect(found).toHaveLength(1);
    expect(escaped.slice(found[0]!.end)).toBe('\\n"}');
    const cut = rsa.slice(0, 400);
    expect(findPatternSecrets(cut)[0]).toMatchObject({ start: 0, end: 400, label: 'private key' });
  });

  test('not secrets: publishable keys, UUIDs, hashes, prose, short look-alikes', () => {
    for (const text of [
      'pk_live_51H8f2KLmNoPqRsTuVwXyZ0123',
      '3f2b6c1e-9a4d-4e2b-8c7f-1d2e3f4a5b6c',
      'commit 9fceb02d0ae598e95dc970b74767f19372d61af8',
      'akiaiosfodnn7example',
      'ghp_short',
      'the eyJ of the storm. eyJ.eyJ.x',
      '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----',
    ]) {
      expect(findPatternSecrets(text), text).toEqual([]);
    }
  });
});
