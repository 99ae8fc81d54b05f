import { beforeEach, describe, expect, test } from 'vitest';
import { createCallPath } from '../../src/guards/pipeline.js';
import { errorResult, type CallHandler } from '../../src/guards/types.js';
import { ApprovalStore } from '../../src/store/approvals.js';
import { AuditLog } from '../../src/store/audit.js';
import { openDb } from '../../src/store/db.js';
import { approverFixture, catalog, config, policy } from './fixtures.js';
import { context, recordingUpstream, text } from './helpers.js';

describe('createCallPath: audit → name → policy → identity → validate → confirmation → forward', () => {
  let audit: AuditLog;
  let approvals: ApprovalStore;
  let upstream: ReturnType<typeof recordingUpstream>;
  let call: CallHandler;
  const person = approverFixture();

  beforeEach(() => {
    const db = openDb(':memory:');
    audit = new AuditLog(db, config.audit.redact);
    approvals = new ApprovalStore(db);
    upstream = recordingUpstream();
    call = createCallPath({ tools: () => catalog, policy, config, audit, approvals, approver: person.approver, forward: upstream.forward, now: () => 1_800_000_000_000 });
  });

  const last = () => audit.tail(1)[0]!;

  test('a corrected read call with a forged id runs with the session id, audited with both', async () => {
    const result = await call(context('get_attendence_summary', { student_id: 'S0002' }));
    expect(text(result)).toBe('[tool-curator] get_attendence_summary does not exist; resolved to get_attendance_summaryran get_attendance_summary');
    expect(upstream.calls).toEqual([{ tool: 'get_attendance_summary', args: { student_id: 'S0001' } }]);
    expect(last()).toMatchObject({
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
    expect(last()).toMatchObject({ decision: 'allowed', decisions: [], outcome: 'ok' });
  });

  test.each(['admin_delete_student', 'admin_override_attendance'])('the student calling %s is refused and audited', async (name) => {
    const result = await call(context(name, { student_id: 'S0002' }));
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(`tool ${name} is not available to persona student; call find_tools to see the tools you may use`);
    expect(upstream.calls).toEqual([]);
    expect(last()).toMatchObject({ tool: name, decision: 'refused', outcome: 'not_run', detail: text(result) });
    expect(last()).not.toHaveProperty('upstreamMs');
  });

  test('a forbidden action is refused before confirmation: no approval request is made', async () => {
    await call(context('admin_delete_student', { student_id: 'S0002' }));
    expect(approvals.list({ all: true })).toEqual([]);
  });

  test('an action with arguments of the wrong type is refused before anyone is asked to approve it', async () => {
    const result = await call(context('make_payment', { amount: 'lots' }));
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('invalid arguments for make_payment: data/amount must be number');
    expect(approvals.list({ all: true })).toEqual([]);
    expect(upstream.calls).toEqual([]);
    expect(last()).toMatchObject({ decision: 'refused', outcome: 'not_run', notes: ['invalid arguments'] });
  });

  test('an unknown name is refused and audited under the requested name', async () => {
    await call(context('xqzv_blorp'));
    expect(last()).toMatchObject({ tool: 'xqzv_blorp', requestedName: 'xqzv_blorp', decision: 'refused', outcome: 'not_run' });
  });

  test('an action awaits approval, with the secret redacted in audit and approval', async () => {
    const result = await call(context('make_payment', { amount: 5, card_token: 'tok_live_1' }));
    expect(text(result)).toContain('awaits');
    expect(last()).toMatchObject({ decision: 'awaiting_approval', outcome: 'not_run', args: { amount: 5, card_token: '[redacted]', student_id: 'S0001' } });
    expect(approvals.list()[0]!.args).toEqual({ amount: 5, card_token: '[redacted]', student_id: 'S0001' });
  });

  test('an approved, corrected action is audited with both decisions', async () => {
    await call(context('make_payment', { amount: 5 }));
    person.decide(approvals, approvals.list()[0]!.id, 'approved');
    await call(context('make_paymnt', { amount: 5 }));
    expect(upstream.calls).toHaveLength(1);
    expect(last()).toMatchObject({ tool: 'make_payment', decision: 'approved', decisions: ['corrected', 'approved'], outcome: 'ok' });
  });

  test('a corrected action parks with the requested name beside the corrected one', async () => {
    const result = await call(context('make_paymnt', { amount: 7 }));
    expect(text(result)).toMatch(/^\[tool-curator\] make_paymnt does not exist; resolved to make_paymentmake_payment awaits/);
    expect(approvals.list()[0]).toMatchObject({ tool: 'make_payment', requestedName: 'make_paymnt' });
  });

  test('argument values over audit.max_value_bytes are stored cut, with a marker', async () => {
    const bounded = { ...config, audit: { ...config.audit, max_value_bytes: 100 } };
    const db = openDb(':memory:');
    const small = new AuditLog(db, bounded.audit.redact, 100);
    const store = new ApprovalStore(db);
    const path = createCallPath({ tools: () => catalog, policy, config: bounded, audit: small, approvals: store, approver: person.approver, forward: upstream.forward });
    await path(context('make_payment', { amount: 5, note: 'n'.repeat(5_000) }));
    const stored = store.list()[0]!.args as { note: string };
    expect(stored.note).toBe(`${'n'.repeat(100)}…[truncated 4900 bytes]`);
    expect((small.tail(1)[0]!.args as { note: string }).note).toBe(stored.note);
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
    expect(last()).toMatchObject({ outcome: 'error', detail: 'database is locked', upstreamMs: 3 });
  });

  test('a throwing upstream is audited and the error rethrown', async () => {
    const throwing = createCallPath({
      tools: () => catalog, policy, config, audit, approvals, approver: person.approver,
      forward: async () => {
        throw new Error('upstream finance is not connected');
      },
    });
    await expect(throwing(context('get_fee_dues'))).rejects.toThrow('upstream finance is not connected');
    expect(last()).toMatchObject({ outcome: 'error', detail: 'upstream finance is not connected' });
  });
});
