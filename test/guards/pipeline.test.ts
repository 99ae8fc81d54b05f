import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { AuditWriter } from '../../src/guards/audit.js';
import { createCallPath } from '../../src/guards/pipeline.js';
import { errorResult, type CallHandler } from '../../src/guards/types.js';
import { openStore, type ApprovalsPart, type Store } from '../../src/store/index.js';
import { approverFixture, catalog, config, policy } from './fixtures.js';
import { context, recordingUpstream, text } from './helpers.js';

describe('createCallPath: audit → name → policy → identity → validate → confirmation → forward', () => {
  let store: Store;
  let audit: AuditWriter;
  let approvals: ApprovalsPart;
  let upstream: ReturnType<typeof recordingUpstream>;
  let call: CallHandler;
  const person = approverFixture();

  beforeEach(async () => {
    store = await openStore(':memory:');
    audit = new AuditWriter(store.audit, config.audit.redact);
    approvals = store.approvals;
    upstream = recordingUpstream();
    call = createCallPath({ tools: () => catalog, policy, config, audit, approvals, approver: person.approver, forward: upstream.forward, now: () => 1_800_000_000_000 });
  });

  afterEach(() => store.close());

  const last = async () => (await store.audit.tail(1))[0]!;

  test('a corrected read call with a forged id runs with the session id, audited with both', async () => {
    const result = await call(context('get_attendence_summary', { student_id: 'S0002' }));
    expect(text(result)).toBe('[tool-curator] get_attendence_summary does not exist; resolved to get_attendance_summaryran get_attendance_summary');
    expect(upstream.calls).toEqual([{ tool: 'get_attendance_summary', args: { student_id: 'S0001' } }]);
    expect(await last()).toMatchObject({
      time: 1_800_000_000_000,
      sessionId: 'sess-1',
      persona: 'student',
      userId: 'S0001',
      tool: 'get_attendance_summary',
      requestedName: 'get_attendence_summary',
      args: { student_id: 'S0001' },
      decision: 'corrected',
      upstreamMs: 7,
      outcome: 'ok',
      notes: ['corrected from get_attendence_summary (ratio 0.955)', 'student_id "S0002" from the model replaced by the session\'s'],
    });
  });

  test('a plain allowed call is audited as allowed', async () => {
    await call(context('get_fee_dues'));
    expect(await last()).toMatchObject({ decision: 'allowed', decisions: [], outcome: 'ok' });
  });

  test.each(['admin_delete_student', 'admin_override_attendance'])('the student calling %s is refused and audited', async (name) => {
    const result = await call(context(name, { student_id: 'S0002' }));
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(`tool ${name} is not available to persona student; call find_tools to see the tools you may use`);
    expect(upstream.calls).toEqual([]);
    expect(await last()).toMatchObject({ tool: name, decision: 'refused', outcome: 'not_run', detail: text(result) });
    expect(await last()).not.toHaveProperty('upstreamMs');
  });

  test('a forbidden action is refused before confirmation: no approval request is made', async () => {
    await call(context('admin_delete_student', { student_id: 'S0002' }));
    expect(await approvals.list({ all: true })).toEqual([]);
  });

  test('an action with arguments of the wrong type is refused before anyone is asked to approve it', async () => {
    const result = await call(context('make_payment', { amount: 'lots' }));
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('invalid arguments for make_payment: data/amount must be number');
    expect(await approvals.list({ all: true })).toEqual([]);
    expect(upstream.calls).toEqual([]);
    expect(await last()).toMatchObject({ decision: 'refused', outcome: 'not_run', notes: ['invalid arguments'] });
  });

  test('an unknown name is refused and audited under the requested name', async () => {
    await call(context('xqzv_blorp'));
    expect(await last()).toMatchObject({ tool: 'xqzv_blorp', requestedName: 'xqzv_blorp', decision: 'refused', outcome: 'not_run' });
  });

  test('an action awaits approval, with the secret redacted in audit and approval', async () => {
    const result = await call(context('make_payment', { amount: 5, card_token: 'tok_live_1' }));
    expect(text(result)).toContain('awaits');
    expect(await last()).toMatchObject({ decision: 'awaiting_approval', outcome: 'not_run', args: { amount: 5, card_token: '[redacted]', student_id: 'S0001' } });
    expect((await approvals.list())[0]!.args).toEqual({ amount: 5, card_token: '[redacted]', student_id: 'S0001' });
  });

  test('an approved, corrected action is audited with both decisions', async () => {
    await call(context('make_payment', { amount: 5 }));
    await person.decide(approvals, (await approvals.list())[0]!.id, 'approved');
    await call(context('make_paymnt', { amount: 5 }));
    expect(upstream.calls).toHaveLength(1);
    expect(await last()).toMatchObject({ tool: 'make_payment', decision: 'approved', decisions: ['corrected', 'approved'], outcome: 'ok' });
  });

  test('a corrected action parks with the requested name beside the corrected one', async () => {
    const result = await call(context('make_paymnt', { amount: 7 }));
    expect(text(result)).toMatch(/^\[tool-curator\] make_paymnt does not exist; resolved to make_paymentmake_payment awaits/);
    expect((await approvals.list())[0]).toMatchObject({ tool: 'make_payment', requestedName: 'make_paymnt' });
  });

  test('argument values over audit.max_value_bytes are stored cut, with a marker', async () => {
    const bounded = { ...config, audit: { ...config.audit, max_value_bytes: 100 } };
    const small = new AuditWriter(store.audit, bounded.audit.redact, 100);
    const path = createCallPath({ tools: () => catalog, policy, config: bounded, audit: small, approvals, approver: person.approver, forward: upstream.forward });
    await path(context('make_payment', { amount: 5, note: 'n'.repeat(5_000) }));
    const stored = (await approvals.list())[0]!.args as { note: string };
    expect(stored.note).toBe(`${'n'.repeat(100)}…[truncated 4900 bytes]`);
    expect(((await last()).args as { note: string }).note).toBe(stored.note);
  });

  test('an upstream error result is audited as error with its text', async () => {
    const failing = createCallPath({
      tools: () => catalog, policy, config, audit, approvals, approver: person.approver,
      forward: async (ctx) => {
        ctx.upstreamMs = 3;
        return errorResult('database is locked');
      },
    });
    await failing(context('get_fee_dues'));
    expect(await last()).toMatchObject({ outcome: 'error', detail: 'database is locked', upstreamMs: 3 });
  });

  test('a throwing upstream is audited and the error rethrown', async () => {
    const throwing = createCallPath({
      tools: () => catalog, policy, config, audit, approvals, approver: person.approver,
      forward: async () => {
        throw new Error('upstream finance is not connected');
      },
    });
    await expect(throwing(context('get_fee_dues'))).rejects.toThrow('upstream finance is not connected');
    expect(await last()).toMatchObject({ outcome: 'error', detail: 'upstream finance is not connected' });
  });

  test('a forwarded call is audited as running before the upstream is called, then completed in the same row', async () => {
    let during: Awaited<ReturnType<typeof last>>[] = [];
    const observed = createCallPath({
      tools: () => catalog, policy, config, audit, approvals, approver: person.approver, now: () => 1_800_000_000_000,
      forward: async (ctx) => {
        during = await store.audit.tail(10);
        ctx.upstreamMs = 4;
        return { content: [{ type: 'text', text: 'ok' }] };
      },
    });
    await observed(context('get_attendance_summary', { student_id: 'S0002' }));
    expect(during).toHaveLength(1);
    expect(during[0]).toMatchObject({ tool: 'get_attendance_summary', args: { student_id: 'S0001' }, outcome: 'running', decision: 'allowed' });
    expect(during[0]).not.toHaveProperty('upstreamMs');
    expect(await store.audit.tail(10)).toEqual([{ ...during[0], outcome: 'ok', upstreamMs: 4, notes: during[0]!.notes }]);
  });

  test('when the audit cannot be written, an action is refused before the upstream; a read runs', async () => {
    const part = store.audit;
    const down = { begin: () => Promise.reject(new Error('store x is unavailable: down')), complete: part.complete.bind(part), record: part.record.bind(part), tail: part.tail.bind(part), flush: part.flush.bind(part) };
    const broken = new AuditWriter(down, config.audit.redact);
    const person2 = approverFixture();
    const path = createCallPath({ tools: () => catalog, policy, config, audit: broken, approvals, approver: person2.approver, forward: upstream.forward });
    const admin = { ...context('refund_payment', { payment_id: 'p1' }), session: { sessionId: 'sess-9', persona: 'admin', userId: 'A1' } };
    const refused = await path(admin);
    expect(text(refused)).toBe("refund_payment has not run: the gateway's audit log cannot be written (store x is unavailable: down), and actions never run unaudited. Try again later.");
    expect(upstream.calls).toEqual([]);
    expect(await last()).toMatchObject({ tool: 'refund_payment', decision: 'refused', outcome: 'not_run', notes: ['audit log unavailable'] });
    await path(context('get_fee_dues'));
    expect(upstream.calls).toEqual([{ tool: 'get_fee_dues', args: { student_id: 'S0001' } }]);
    expect(await last()).toMatchObject({ tool: 'get_fee_dues', outcome: 'ok', notes: ['audit row could not be written before the call'] });
  });
});
