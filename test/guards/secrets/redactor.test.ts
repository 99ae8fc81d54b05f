import { randomBytes } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { HeldSecrets } from '../../../src/guards/secrets/held.js';
import { LiteralMatcher } from '../../../src/guards/secrets/matcher.js';
import { marker, SecretRedactor } from '../../../src/guards/secrets/redactor.js';
import { DEEP_NOTE, WalkLimitError } from '../../../src/guards/secrets/walk.js';

const ACCESS = 'ya29.a0AfB_byC3kLmN8pQ2rS5tU7vW9xY1zA4bD6eF';
const STATIC = 'Bearer tc-static-9f8e7d6c5b4a39281706';
const LABEL_ACCESS = 'OAuth access token of upstream tracker';
const LABEL_STATIC = 'header Authorization of upstream crm';

function redactor(mode: 'block' | 'redact' | 'off' = 'off', values = [
  { value: ACCESS, label: LABEL_ACCESS },
  { value: STATIC, label: LABEL_STATIC },
]) {
  const held = new HeldSecrets();
  held.set('test', values);
  return new SecretRedactor(held, mode);
}

describe('LiteralMatcher', () => {
  test('finds every occurrence, overlapping ones included', () => {
    const m = new LiteralMatcher([
      { spelling: 'abcdefgh12345678', label: 'A' },
      { spelling: '12345678zzzzzzzz', label: 'B' },
    ]);
    const found = m.find('..abcdefgh12345678zzzzzzzz..abcdefgh12345678');
    expect(found.sort((a, b) => a.start - b.start)).toEqual([
      { start: 2, end: 18, label: 'A' },
      { start: 10, end: 26, label: 'B' },
      { start: 28, end: 44, label: 'A' },
    ]);
  });

  test('spellings under 8 characters are not searched for', () => {
    const m = new LiteralMatcher([{ spelling: 'hunter2', label: 'short' }]);
    expect(m.size).toBe(0);
    expect(m.find('password hunter2')).toEqual([]);
  });

  test('10,000 spellings: each planted one found at its place, nothing else', () => {
    const spellings = Array.from({ length: 10_000 }, () => randomBytes(18).toString('base64url'));
    const m = new LiteralMatcher(spellings.map((spelling, i) => ({ spelling, label: `s${i}` })));
    const filler = 'lorem ipsum dolor sit amet, '.repeat(40);
    const text = `${filler}${spellings[17]}${filler}${spellings[9_999]}.`;
    expect(m.find(text).sort((a, b) => a.start - b.start)).toEqual([
      { start: filler.length, end: filler.length + 24, label: 's17' },
      { start: 2 * filler.length + 24, end: 2 * filler.length + 48, label: 's9999' },
    ]);
  });

  test('at the very start and end of a text, and a text that is only the secret', () => {
    const m = new LiteralMatcher([{ spelling: 'S3cr3t-ZZ-xyz', label: 'x' }]);
    expect(m.find('S3cr3t-ZZ-xyz')).toEqual([{ start: 0, end: 13, label: 'x' }]);
    expect(m.find('S3cr3t-ZZ-xyzS3cr3t-ZZ-xyz').length).toBe(2);
  });
});

describe('SecretRedactor', () => {
  test('an echoed Authorization header loses its token, and the marker says what it was', () => {
    const r = redactor();
    expect(r.redactText(`upstream rejected request with header Authorization: ${STATIC}`)).toBe(
      `upstream rejected request with header Authorization: Bearer ${marker([LABEL_STATIC])}`,
    );
    expect(marker([LABEL_ACCESS])).toBe('[secret removed: OAuth access token of upstream tracker]');
  });

  test('overlapping secrets are removed as one span: no tail of either is left', () => {
    const r = redactor('off', [
      { value: 'ovl-AAAA-BBBB-CCCC', label: 'first' },
      { value: 'BBBB-CCCC-DDDD-eeee', label: 'second' },
    ]);
    expect(r.redactText('x ovl-AAAA-BBBB-CCCC-DDDD-eeee y')).toBe('x [secret removed: first; second] y');
  });

  test('a token inside JSON text, URL-encoded in a query string, and base64 in a Basic header', () => {
    const r = redactor('off', [{ value: 'pw"with\\quote-1234', label: 'env DB_PASSWORD of upstream db' }]);
    const m = marker(['env DB_PASSWORD of upstream db']);
    expect(r.redactText(JSON.stringify({ password: 'pw"with\\quote-1234' }))).toBe(`{"password":"${m}"}`);
    expect(JSON.parse(r.redactText(JSON.stringify({ password: 'pw"with\\quote-1234' })))).toEqual({ password: m });
    expect(r.redactText(`GET /?p=${encodeURIComponent('pw"with\\quote-1234')}`)).toBe(`GET /?p=${m}`);
    const basic = Buffer.from('admin:pw"with\\quote-1234').toString('base64');
    expect(r.redactText(`Authorization: Basic ${basic}`)).not.toContain(basic.slice(8, 24));
  });

  test('unicode: a password with accents, an astral character and a combining mark', () => {
    const pw = 'Grüße-𝄞-naïve-ß';
    const r = redactor('off', [{ value: pw, label: 'env APP_PASSWORD of upstream app' }]);
    expect(r.redactText(`pw is ${pw}!`)).toBe(`pw is ${marker(['env APP_PASSWORD of upstream app'])}!`);
    expect(r.redactText(JSON.stringify(pw).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))).not.toContain('Gr\\u00fc');
  });

  test('a result: text, structuredContent, an embedded resource, an image blob; the input is not changed', () => {
    const r = redactor();
    const result = {
      content: [
        { type: 'text', text: `token ${ACCESS}` },
        { type: 'resource', resource: { uri: 'mem://log', mimeType: 'text/plain', text: `auth=${STATIC}` } },
        { type: 'image', mimeType: 'image/png', data: Buffer.from(`PNG...${ACCESS}...`).toString('base64') },
        { type: 'text', text: 'nothing here' },
      ],
      structuredContent: { headers: { authorization: STATIC }, [ACCESS]: 1 },
    };
    const before = structuredClone(result);
    const out = r.redact(result);
    expect(result).toEqual(before);
    expect(out.content[0]).toEqual({ type: 'text', text: `token ${marker([LABEL_ACCESS])}` });
    expect(out.content[1]).toEqual({ type: 'resource', resource: { uri: 'mem://log', mimeType: 'text/plain', text: `auth=Bearer ${marker([LABEL_STATIC])}` } });
    expect(Buffer.from((out.content[2] as { data: string }).data, 'base64').toString()).toBe(marker([LABEL_ACCESS]));
    expect(out.content[3]).toBe(result.content[3]);
    expect(out.structuredContent).toEqual({ headers: { authorization: `Bearer ${marker([LABEL_STATIC])}` }, [marker([LABEL_ACCESS])]: 1 });
    expect(JSON.stringify(out)).not.toContain(ACCESS);
    expect(JSON.stringify(out)).not.toContain('tc-static-9f8e7d6c5b4a39281706');
  });

  test('nothing to remove: the very same object comes back', () => {
    const r = redactor('redact');
    const result = { content: [{ type: 'text', text: 'grade: A' }], structuredContent: { grade: 'A', list: [1, 2, { k: 'v' }] } };
    expect(r.redact(result)).toBe(result);
  });

  test('a key named __proto__ stays a key', () => {
    const r = redactor();
    const input = JSON.parse(`{"__proto__": {"x": 1}, "t": "${ACCESS}"}`) as Record<string, unknown>;
    const out = r.redact(input);
    expect(Object.keys(out)).toEqual(['__proto__', 't']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });

  test('a secret split across two content blocks is not found (a documented limit)', () => {
    const r = redactor();
    const out = r.redact({ content: [{ type: 'text', text: ACCESS.slice(0, 20) }, { type: 'text', text: ACCESS.slice(20) }] });
    expect(out.content.map((c) => c.text).join('')).toBe(ACCESS);
  });

  test('bounded: past maxChars the walk refuses; past maxDepth a part becomes a note', () => {
    const held = new HeldSecrets();
    held.set('t', [{ value: ACCESS, label: 'x' }]);
    const small = new SecretRedactor(held, 'off', { maxChars: 1000, maxNodes: 100, maxDepth: 4 });
    expect(() => small.redact({ text: 'a'.repeat(1001) })).toThrow(WalkLimitError);
    expect(() => small.redact(Array.from({ length: 101 }, () => 1))).toThrow(/over 100 parts/);
    expect(small.redact({ a: { b: { c: { d: { e: ACCESS } } } } })).toEqual({ a: { b: { c: { d: DEEP_NOTE } } } });
  });

  test('a 12 MB text: every one of 200 planted secrets removed', () => {
    const r = redactor();
    const chunk = 'x'.repeat(60_000);
    const text = Array.from({ length: 200 }, (_, i) => `${chunk}${i % 2 ? ACCESS : STATIC}`).join('');
    const out = r.redactText(text);
    expect(out).not.toContain(ACCESS);
    expect(out).not.toContain('tc-static-9f8e7d6c5b4a39281706');
    expect(out.split('[secret removed:').length - 1).toBe(200);
  });

  test('patterns: redacted unless off; patternKinds names them whatever the mode', () => {
    const aws = 'AKIAIOSFODNN7EXAMPLE';
    expect(redactor('redact').redactText(`key ${aws}`)).toBe('key [secret removed: AWS access key id]');
    expect(redactor('off').redactText(`key ${aws}`)).toBe(`key ${aws}`);
    expect(redactor('off').patternKinds({ a: [`key ${aws}`] })).toEqual(['AWS access key id']);
  });
});
