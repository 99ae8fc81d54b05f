/**
 * The arguments a person is shown are the arguments the upstream receives. JSON lets an
 * object hold a `__proto__` key as data (JSON.parse makes it an own property, and the SDK
 * keeps it below the top level of a call's arguments, e.g. inside call_tool's `arguments`),
 * which an upstream that merges objects with Object.assign reads as the object's prototype.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { boundValue } from '../../src/guards/bound.js';
import { approvalsCommand } from '../../src/guards/commands.js';
import { confirmationGuard } from '../../src/guards/confirmation.js';
import { compose, type CallHandler } from '../../src/guards/types.js';
import { openStore, type Store } from '../../src/store/index.js';
import { BACKENDS } from '../helpers/stores.js';
import { approverFixture, byName, config, policy } from './fixtures.js';
import { context, recordingUpstream, text } from './helpers.js';

/** As a host sends it: `options` carries a `__proto__` key, as data. */
const ARGS = JSON.parse('{"student_id":"S0001","amount":1,"options":{"note":"fees","__proto__":{"payee":"someone else"}}}') as Record<string, unknown>;

describe('a __proto__ key in the arguments', () => {
  test('is kept, as data, in what is stored and shown', () => {
    const shown = boundValue(ARGS, 4096) as { options: object };
    expect(Object.keys(shown.options)).toEqual(['note', '__proto__']);
    expect(JSON.stringify(shown)).toBe(JSON.stringify(ARGS));
    expect(Object.getPrototypeOf(shown.options)).toBe(Object.prototype);
  });

  describe.each(BACKENDS.slice(0, 1))('on a parked call ($kind)', (backend) => {
    let store: Store;
    let call: CallHandler;
    let upstream: ReturnType<typeof recordingUpstream>;
    const person = approverFixture();
    beforeEach(async () => {
      store = await openStore(await backend.fresh());
      upstream = recordingUpstream();
      call = compose([confirmationGuard({ policy, approvals: store.approvals, config, approver: person.approver })], upstream.forward);
    });
    afterEach(() => store.close());

    test('the person reviewing it is shown the key, and what runs is what they were shown', async () => {
      const ctx = context('make_payment', ARGS);
      ctx.tool = byName('make_payment');
      const id = /approval id ([a-z0-9]+)/.exec(text(await call(ctx)))![1]!;
      const out: string[] = [];
      expect(await approvalsCommand(['list', '--json'], store, person.keyPath, { out: (s) => void out.push(s), err: () => undefined })).toBe(0);
      const shown = (JSON.parse(out.join('')) as { id: string; args: unknown }[]).find((a) => a.id === id)!.args;
      expect(JSON.stringify(shown)).toBe(JSON.stringify(ARGS));

      expect(await approvalsCommand(['approve', id], store, person.keyPath, { out: () => undefined, err: () => undefined })).toBe(0);
      const again = context('make_payment', ARGS);
      again.tool = byName('make_payment');
      await call(again);
      expect(again.decisions).toEqual(['approved']);
      expect(upstream.calls.map((c) => JSON.stringify(c.args))).toEqual([JSON.stringify(shown)]);
    });
  });
});
