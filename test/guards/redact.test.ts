import { describe, expect, test } from 'vitest';
import { REDACTED, redact, redactsField } from '../../src/guards/redact.js';

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
});
