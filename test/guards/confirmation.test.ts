import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { confirmationGuard, needsConfirmation } from '../../src/guards/confirmation.js';
import { statementDigest, statementOf } from '../../src/guards/statement.js';
import { compose, type CallContext, type CallHandler } from '../../src/guards/types.js';
import { openStore, type ApprovalsPart, type Store } from '../../src/store/index.js';
import { approverFixture, byName, config, policy, personas } from './fixtures.js';
import { Policy } from '../../src/policy/policy.js';
import { context, recordingUpstream, text } from './helpers.js';

const MIN = 60_000;

describe('needsConfirmation', () => {
  test('actions: the tools flagged as actions (policy/actions.ts decides the flag); all; none', () => {
    expect(needsConfirmation(policy, 'student', byName('make_payment'))).toBe(true);
    expect(needsConfirmation(policy, 'student', byName('get_fee_dues'))).toBe(false);
    expect(needsConfirmation(policy, 'auditor', byName('get_fee_dues'))).toBe(true);
    expect(needsConfirmation(policy, 'admin', byName('admin_delete_student'))).toBe(false);
  });
});

describe('confirmationGuard', () => {
  let t: number;
  let store: Store;
  let approvals: ApprovalsPart;
  let upstream: ReturnType<typeof recordingUpstream>;
  let call: CallHandler;
  const person = approverFixture();
  const approver = person.approver;
  const decide = (id: string, d: 'approved' | 'denied') => person.decide(approvals, id, d);

  const ctxFor = (tool: string, args: Record<string, unknown>, session = {}): CallContext => {
    const ctx = context(tool, args, session);
    ctx.tool = byName(tool);
    return ctx;
  };
  const pay = (args: Record<string, unknown> = { student_id: 'S0001', amount: 100 }, session = {}) => call(ctxFor('make_payment', args, session));
  const idIn = (s: string) => /approval id ([a-z0-9]+)/.exec(s)![1]!;

  beforeEach(async () => {
    t = 5_000_000;
    store = await openStore(':memory:', { now: () => t });
    approvals = store.approvals;
    upstream = recordingUpstream();
    call = compose([confirmationGuard({ policy, approvals, config, approver })], upstream.forward);
  });
  afterEach(() => store.close());

  test('a read-only tool of an actions persona runs without asking', async () => {
    const result = await call(ctxFor('get_fee_dues', { student_id: 'S0001' }));
    expect(text(result)).toBe('ran get_fee_dues');
    expect(await approvals.list()).toEqual([]);
  });

  describe('with elicitation', () => {
    const elicitWith = (answer: 'accept' | 'decline' | 'cancel' | Error) => {
      const asked: { message: string; tool: string; args: Record<string, unknown> }[] = [];
      const elicit: NonNullable<CallContext['elicit']> = async (message, tool, args) => {
        asked.push({ message, tool: tool.name, args });
        if (answer instanceof Error) throw answer;
        return answer;
      };
      return { elicit, asked };
    };

    test('accepted: runs, shows the tool and its (redacted) arguments', async () => {
      const { elicit, asked } = elicitWith('accept');
      const ctx = ctxFor('make_payment', { student_id: 'S0001', amount: 100, card_token: 'tok_live_1' });
      ctx.elicit = elicit;
      const result = await call(ctx);
      expect(text(result)).toBe('ran make_payment');
      expect(ctx.decisions).toEqual(['approved']);
      expect(asked[0]!.message).toContain('Allow make_payment (upstream finance) to run with these arguments?');
      expect(asked[0]!.message).toContain('"amount": 100');
      expect(asked[0]!.message).toContain('"card_token": "[redacted]"');
      expect(asked[0]!.message).not.toContain('tok_live_1');
    });

    test.each(['decline', 'cancel'] as const)('%s: does not run, is denied', async (answer) => {
      const ctx = ctxFor('make_payment', { student_id: 'S0001', amount: 100 });
      ctx.elicit = elicitWith(answer).elicit;
      const result = await call(ctx);
      expect(upstream.calls).toEqual([]);
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(new RegExp(`did not approve make_payment \\(${answer}\\)`));
      expect(ctx.decisions).toEqual(['denied']);
    });

    test('a failing elicitation falls back to a pending approval, never to running', async () => {
      const ctx = ctxFor('make_payment', { student_id: 'S0001', amount: 100 });
      ctx.elicit = elicitWith(new Error('host went away')).elicit;
      const result = await call(ctx);
      expect(upstream.calls).toEqual([]);
      expect(ctx.decisions).toEqual(['awaiting_approval']);
      expect(await approvals.list()).toHaveLength(1);
      expect(text(result)).toContain('awaits a person');
    });
  });

  describe('without elicitation', () => {
    test('waits, is approved, runs exactly once on retry; a further retry waits again', async () => {
      const first = await pay();
      expect(first.isError).toBe(true);
      const id = idIn(text(first));
      expect(text(first)).toBe(
        `make_payment awaits a person's approval (approval id ${id}); it has not run. ` +
          'Ask the user to review and approve this call in their approvals list; only they can. ' +
          'Once they have, call make_payment again with exactly the same arguments. The request expires in 10 minutes.',
      );
      expect(text(first)).not.toMatch(/tool-curator|approvals approve/);
      expect((await approvals.get(id))?.args).toEqual({ student_id: 'S0001', amount: 100 });

      const again = await pay();
      expect(idIn(text(again))).toBe(id); // same pending request, not a new one
      expect(await approvals.list()).toHaveLength(1);

      await decide(id, 'approved');
      const ctx = ctxFor('make_payment', { amount: 100, student_id: 'S0001' }); // key order does not matter
      expect(text(await call(ctx))).toBe('ran make_payment');
      expect(ctx.decisions).toEqual(['approved']);
      expect(ctx.notes).toEqual([`approval ${id} by cli`]);

      const third = await pay();
      expect(idIn(text(third))).not.toBe(id);
      expect(upstream.calls).toHaveLength(1);
    });

    test('names the approvals page only when the gateway serves one', async () => {
      let page: string | undefined;
      call = compose([confirmationGuard({ policy, approvals, config, approver, approvalsPage: () => page })], upstream.forward);
      expect(text(await pay())).not.toMatch(/approvals page/);
      page = 'http://127.0.0.1:8080/approvals';
      expect(text(await pay())).toMatch(/Ask the user to review and approve this call on the approvals page \(http:\/\/127\.0\.0\.1:8080\/approvals\); only they can\. Once they have, call make_payment/);
    });

    test('the approval covers only the identical call', async () => {
      const id = idIn(text(await pay()));
      await decide(id, 'approved');
      const other = await pay({ student_id: 'S0001', amount: 1000 });
      expect(text(other)).toContain('awaits');
      const smuggled = await pay({ student_id: 'S0001', amount: 100, approved: true, approval_id: id });
      expect(text(smuggled)).toContain('awaits');
      expect(upstream.calls).toEqual([]);
    });

    test('the approval belongs to the user, not to another user with the same call', async () => {
      const id = idIn(text(await pay()));
      await decide(id, 'approved');
      const bob = await pay({ student_id: 'S0001', amount: 100 }, { userId: 'S0002', sessionId: 'sess-2' });
      expect(text(bob)).toContain('awaits');
      expect(upstream.calls).toEqual([]);
    });

    test('a denied call never runs and says so on retry', async () => {
      const id = idIn(text(await pay()));
      await decide(id, 'denied');
      const ctx = ctxFor('make_payment', { student_id: 'S0001', amount: 100 });
      const result = await call(ctx);
      expect(text(result)).toBe(`a person denied make_payment with these arguments (approval id ${id}); it has not run. Do not retry it.`);
      expect(ctx.decisions).toEqual(['denied']);
      expect(upstream.calls).toEqual([]);
    });

    test('an expired request never runs; the retry makes a new request', async () => {
      const id = idIn(text(await pay()));
      t += 10 * MIN;
      await expect(decide(id, 'approved')).rejects.toThrow(/expired/);
      const retry = await pay();
      expect(idIn(text(retry))).not.toBe(id);
      expect(upstream.calls).toEqual([]);
    });

    test('an approval not used within the TTL expires unused', async () => {
      const id = idIn(text(await pay()));
      await decide(id, 'approved');
      t += 10 * MIN;
      expect(text(await pay())).toContain('awaits');
      expect(upstream.calls).toEqual([]);
      expect((await approvals.get(id))?.status).toBe('expired');
    });

    test('the remaining time is reported for a request asked again', async () => {
      await pay();
      t += 7.5 * MIN;
      expect(text(await pay())).toMatch(/expires in 3 minutes\.$/);
    });

    test('keys differ by scope: user within persona, else session', () => {
      const tool = byName('make_payment');
      const k = (session: object) => {
        const ctx = ctxFor('make_payment', { amount: 1 }, session);
        return statementDigest(statementOf(ctx.session, tool, ctx.args, ctx.args, approver.keyId, 10 * MIN));
      };
      expect(k({ sessionId: 'a' })).toBe(k({ sessionId: 'b' }));
      expect(k({ userId: undefined, sessionId: 'a' })).not.toBe(k({ userId: undefined, sessionId: 'b' }));
      expect(k({ persona: 'auditor' })).not.toBe(k({}));
    });
    test('an approval without a valid signature (a direct store write, a forged proof) never runs', async () => {
      const id = idIn(text(await pay()));
      await approvals.decide(id, 'approved', 'cli'); // what writing the store without the key amounts to
      const ctx = ctxFor('make_payment', { student_id: 'S0001', amount: 100 });
      const result = await call(ctx);
      expect(upstream.calls).toEqual([]);
      expect(ctx.notes[0]).toBe(`approval ${id} ignored: no approver signature`);
      const fresh = idIn(text(result));
      expect(fresh).not.toBe(id);
      await approvals.decide(fresh, 'approved', 'cli', 'ed25519:AAAA');
      expect(text(await pay())).toContain('awaits');
      expect(upstream.calls).toEqual([]);
    });

    test('a signature for another call does not carry over', async () => {
      const a = idIn(text(await pay()));
      const b = idIn(text(await pay({ student_id: 'S0001', amount: 999 })));
      await decide(a, 'approved');
      const proofOfA = (await approvals.get(a))!.proof!;
      await approvals.decide(b, 'approved', 'cli', proofOfA);
      expect(text(await pay({ student_id: 'S0001', amount: 999 }))).toContain('awaits');
      expect(upstream.calls).toEqual([]);
    });
  });

  describe('a parked call waits for the decision (confirmation.wait_seconds)', () => {
    const waiting = { ...config, confirmation: { ...config.confirmation, wait_seconds: { stdio: 40, http: 0 } } };
    /** The call path on one replica, a person deciding through another one on the same store file. */
    const replicas = async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'tc-wait-')), 'store.db');
      const [a, b] = [await openStore(file), await openStore(file)];
      return { a, b, call: compose([confirmationGuard({ policy, approvals: a.approvals, config: waiting, approver })], upstream.forward) };
    };
    const parked = async (store: Store) => {
      for (;;) {
        const [p] = await store.approvals.list();
        if (p) return p.id;
        await new Promise((r) => setTimeout(r, 20));
      }
    };

    test('approved on another replica while it waits: it runs, in the same call', async () => {
      const { a, b, call: parkedCall } = await replicas();
      const ctx = ctxFor('make_payment', { student_id: 'S0001', amount: 100 });
      const result = parkedCall(ctx);
      await person.decide(b.approvals, await parked(b), 'approved');
      expect(text(await result)).toBe('ran make_payment');
      expect(ctx.decisions).toEqual(['awaiting_approval', 'approved']);
      expect(upstream.calls).toHaveLength(1);
      await Promise.all([a.close(), b.close()]);
    });

    test('denied while it waits: refused at once, not run', async () => {
      const { a, b, call: parkedCall } = await replicas();
      const ctx = ctxFor('make_payment', { student_id: 'S0001', amount: 100 });
      const result = parkedCall(ctx);
      await person.decide(b.approvals, await parked(b), 'denied');
      expect(text(await result)).toMatch(/^a person denied make_payment with these arguments/);
      expect(ctx.decisions).toEqual(['awaiting_approval', 'denied']);
      expect(upstream.calls).toEqual([]);
      await Promise.all([a.close(), b.close()]);
    });

    test('one parked call per session waits; a second one answers at once', async () => {
      const { a, b, call: parkedCall } = await replicas();
      const first = parkedCall(ctxFor('make_payment', { student_id: 'S0001', amount: 100 }));
      const id = await parked(b);
      const second = await parkedCall(ctxFor('make_payment', { student_id: 'S0001', amount: 200 }));
      expect(text(second)).toContain('awaits');
      await person.decide(b.approvals, id, 'approved');
      expect(text(await first)).toBe('ran make_payment');
      expect(upstream.calls).toHaveLength(1);
      await Promise.all([a.close(), b.close()]);
    });

    test('an unsigned approval while it waits runs nothing', async () => {
      const { a, b, call: parkedCall } = await replicas();
      const result = parkedCall(ctxFor('make_payment', { student_id: 'S0001', amount: 100 }));
      await b.approvals.decide(await parked(b), 'approved', 'cli');
      expect(text(await result)).toContain('awaits');
      expect(upstream.calls).toEqual([]);
      await Promise.all([a.close(), b.close()]);
    });
  });

  describe('confirmation channels (confirm_via)', () => {
    const accepting: NonNullable<CallContext['elicit']> = async () => 'accept';
    const payWith = (session: object, elicit?: CallContext['elicit']) => {
      const ctx = ctxFor('make_payment', { student_id: 'S0001', amount: 100 }, session);
      if (elicit) ctx.elicit = elicit;
      return call(ctx).then((result) => ({ result, ctx }));
    };

    test('HTTP sessions default to approvals: an auto-accepting host does not run the call', async () => {
      const { result, ctx } = await payWith({ transport: 'http' }, accepting);
      expect(upstream.calls).toEqual([]);
      expect(ctx.decisions).toEqual(['awaiting_approval']);
      expect(text(result)).toContain('awaits a person');
    });

    test('stdio sessions default to elicitation', async () => {
      const { result } = await payWith({ transport: 'stdio' }, accepting);
      expect(text(result)).toBe('ran make_payment');
    });

    test('a token may choose elicitation; a persona may choose approvals, and the token wins over it', async () => {
      expect(text((await payWith({ transport: 'http', confirmVia: 'elicitation' }, accepting)).result)).toBe('ran make_payment');
      const strict = new Policy({ ...personas, student: { ...personas.student!, confirm_via: 'approvals' } });
      call = compose([confirmationGuard({ policy: strict, approvals, config, approver })], upstream.forward);
      expect(text((await payWith({ transport: 'stdio' }, accepting)).result)).toContain('awaits');
      expect(text((await payWith({ transport: 'stdio', confirmVia: 'elicitation' }, accepting)).result)).toBe('ran make_payment');
    });

    test("both: the host's user accepts and a person approves; either alone is not enough", async () => {
      const both = { confirmVia: 'both' as const };
      const noHost = await payWith(both);
      expect(text(noHost.result)).toMatch(/cannot ask for confirmation \(no MCP elicitation\); it has not run/);
      const parked = await payWith(both, accepting);
      const id = idIn(text(parked.result));
      expect(parked.ctx.notes).toEqual(['accepted through elicitation', `approval ${id}`]);
      await decide(id, 'approved');
      const declined = await payWith(both, async () => 'decline');
      expect(text(declined.result)).toMatch(/did not approve/);
      expect(upstream.calls).toEqual([]);
      const ran = await payWith(both, accepting);
      expect(text(ran.result)).toBe('ran make_payment');
      expect(ran.ctx.decisions).toEqual(['approved']);
    });
  });

  describe('a call the host cancelled', () => {
    const cancelledCtx = (elicit?: CallContext['elicit']) => {
      const abort = new AbortController();
      const ctx = ctxFor('make_payment', { student_id: 'S0001', amount: 100 });
      ctx.host = { session: { id: 's1', server: undefined as never }, requestId: 1, signal: abort.signal, sendRequest: undefined as never, sendNotification: async () => undefined };
      if (elicit) ctx.elicit = elicit;
      return { ctx, abort };
    };

    test('cancelled while its user is asked: not run, even when the user then accepts', async () => {
      const { ctx, abort } = cancelledCtx(async () => {
        abort.abort();
        return 'accept';
      });
      expect(text(await call(ctx))).toBe('the host cancelled make_payment; it has not run');
      expect([ctx.decisions, upstream.calls, await approvals.list({ all: true })]).toEqual([['refused'], [], []]);
    });

    test('without elicitation: neither consumes an approval nor parks a new one', async () => {
      const id = idIn(text(await pay()));
      await decide(id, 'approved');
      const { ctx, abort } = cancelledCtx();
      abort.abort();
      expect(text(await call(ctx))).toBe('the host cancelled make_payment; it has not run');
      expect(upstream.calls).toEqual([]);
      expect((await approvals.list({ all: true })).map((a) => a.status)).toEqual(['approved']);
      expect(text(await pay())).toBe('ran make_payment');
    });
  });
});
