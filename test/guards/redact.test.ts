import { describe, expect, test } from 'vitest';
import { REDACTED, redact, redactedValues, redactsField, redactText } from '../../src/guards/redact.js';

describe('redact', () => {
  const names = ['password', 'token', 'secret', 'api_key'];

  test('matches whole words of a key, in snake, kebab and camel case', () => {
    const hides = redactsField(names);
    expect(['password', 'new_password', 'adminPassword', 'card_token', 'X-Api-Key', 'stripe_api_key', 'clientSecret'].filter(hides)).toHaveLength(7);
    expect(['passwords', 'api', 'key', 'tokenizer', 'student_id'].filter(hides)).toEqual([]);
  });

  test('replaces values at any depth and keeps the rest', () => {
    expect(
      redact({ user: 'ana', auth: { password: 'hunter2', otp: 1 }, cards: [{ card_token: 'tok_1', last4: '4242' }] }, names),
    ).toEqual({ user: 'ana', auth: { password: REDACTED, otp: 1 }, cards: [{ card_token: REDACTED, last4: '4242' }] });
  });

  test('hides a whole object under a matching key', () => {
    expect(redact({ secret: { a: 1 } }, names)).toEqual({ secret: REDACTED });
  });

  test('an empty list hides nothing', () => {
    expect(redact({ password: 'x' }, [])).toEqual({ password: 'x' });
  });

  test('text: echoed values, named pairs in prose, query strings and JSON, and Bearer/Basic credentials', () => {
    const names = ['token', 'password', 'authorization'];
    expect(redactText('invalid token tok_live_9 for ana', names, ['tok_live_9'])).toBe('invalid token [redacted] for ana');
    expect(redactText('GET /x?user=ana&access_token=abc123&page=2', names)).toBe('GET /x?user=ana&access_token=[redacted]&page=2');
    expect(redactText('{"password":"hunter2","user":"ana"}', names)).toBe('{"password":"[redacted]","user":"ana"}');
    expect(redactText("Authorization: Bearer eyJhbGciOi.x.y, retry later", names)).toBe('Authorization: [redacted], retry later');
    expect(redactText('proxy said: bearer eyJhbGciOi.x.y', names)).toBe('proxy said: bearer [redacted]');
    expect(redactText('tokens_used: 12, status: 400', ['secret'])).toBe('tokens_used: 12, status: 400');
  });

  test('redactedValues: the values hidden, at any depth, for the text search', () => {
    expect(redactedValues({ a: 1, headers: { Authorization: 'Bearer x-123' }, auth: { password: ['pw-1234', 'ab'] } }, ['authorization', 'password'])).toEqual(['Bearer x-123', 'pw-1234']);
  });
});
