/**
 * An approval is bound to the call a person was shown, whatever spelling of it arrives
 * next. Arguments reach the guard as a transport parses a request's text (JSON.parse),
 * and go upstream as it serialises them (JSON.stringify): so spellings of one JSON value
 * (`100`, `100.0`, `1e2`, an escaped key, the last of duplicate keys, `-0`) are the
 * approved call and forward the very bytes shown, while any other value (`"100"`, another
 * last duplicate, the same text in NFD, another persona) waits for its own approval.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { approvalsCommand } from '../../src/guards/commands.js';
import { confirmationGuard } from '../../src/guards/confirmation.js';
import { compose, type CallHandler } from '../../src/guards/types.js';
import type { Store } from '../../src/store/index.js';
import { BACKENDS, setupBackends } from '../helpers/stores.js';
import { approverFixture, byName, config, policy } from './fixtures.js';
import { context, recordingUpstream, text } from './helpers.js';

/** The arguments as the transport hands them over: parsed from the request's text. */
const wire = (json: string) => JSON.parse(json) as Record<string, unknown>;

setupBackends();

describe.each(BACKENDS)('approval of one call on $kind, then its other spellings', (backend) => {
  let store: Store;
  let call: CallHandler;
  let upstream: ReturnType<typeof recordingUpstream>;
  const person = approverFixture();

  const pay = (json: string, session = {}) => {
    const ctx = context('make_payment', wire(json), session);
    ctx.tool = byName('make_payment');
    return call(ctx);
  };
  /** Parks the call and has the person approve it with the CLI (which checks the stored arguments against the statement); returns its id. */
  const approved = async (json: string) => {
    const id = /approval id ([a-z0-9]+)/.exec(text(await pay(json)))![1]!;
    expect(await approvalsCommand(['approve', id], store, person.keyPath, { out: () => undefined, err: () => undefined })).toBe(0);
    return id;
  };
  const forwarded = () => upstream.calls.map((c) => JSON.stringify(c.args));

  beforeEach(async () => {
    store = await backend.open(await backend.fresh());
    upstream = recordingUpstream();
    call = compose([confirmationGuard({ policy, approvals: store.approvals, config, approver: person.approver })], upstream.forward);
  });
  afterEach(() => store.close());

  test.each([
    ['100.0', '{"student_id":"S0001","amount":100.0}'],
    ['1e2', '{"student_id":"S0001","amount":1e2}'],
    ['1.00E+2 and an escaped key', '{"student_id":"S0001","\\u0061mount":1.00E+2}'],
    ['the last of duplicate keys', '{"student_id":"S0001","amount":1000,"amount":100}'],
  ])('a number spelled %s is the approved call: it runs once, forwarding what was shown', async (_, spelling) => {
    await approved('{"student_id":"S0001","amount":100}');
    expect(text(await pay(spelling))).toBe('ran make_payment');
    expect(forwarded()).toEqual(['{"student_id":"S0001","amount":100}']);
    expect(text(await pay(spelling))).toContain('awaits');
    expect(upstream.calls).toHaveLength(1);
  });

  test('-0 is 0 on the wire: the approved call, forwarded as 0', async () => {
    await approved('{"student_id":"S0001","amount":0}');
    expect(text(await pay('{"student_id":"S0001","amount":-0}'))).toBe('ran make_payment');
    expect(forwarded()).toEqual(['{"student_id":"S0001","amount":0}']);
  });

  test.each([
    ['the number as a string', '{"student_id":"S0001","amount":"100"}'],
    ['another value last among duplicate keys', '{"student_id":"S0001","amount":100,"amount":1000}'],
    ['an extra argument', '{"student_id":"S0001","amount":100,"memo":null}'],
    ['a nested value', '{"student_id":"S0001","amount":[100]}'],
  ])('%s waits for its own approval', async (_, spelling) => {
    await approved('{"student_id":"S0001","amount":100}');
    expect(text(await pay(spelling))).toContain('awaits');
    expect(upstream.calls).toEqual([]);
  });

  test('a string in NFD is not the approved NFC one, though it looks the same', async () => {
    await approved('{"student_id":"S0001","amount":100,"note":"caf\\u00e9"}');
    expect(text(await pay('{"student_id":"S0001","amount":100,"note":"cafe\\u0301"}'))).toContain('awaits');
    expect(upstream.calls).toEqual([]);
    expect(text(await pay('{"note":"caf\\u00e9","amount":100,"student_id":"S0001"}'))).toBe('ran make_payment');
  });

  test('the same user under another persona, or the same session id for another user, waits', async () => {
    await approved('{"student_id":"S0001","amount":100}');
    expect(text(await pay('{"student_id":"S0001","amount":100}', { persona: 'auditor' }))).toContain('awaits');
    expect(text(await pay('{"student_id":"S0001","amount":100}', { userId: 'S0002' }))).toContain('awaits');
    expect(text(await pay('{"student_id":"S0001","amount":100}', { userId: undefined }))).toContain('awaits');
    expect(upstream.calls).toEqual([]);
  });
});
