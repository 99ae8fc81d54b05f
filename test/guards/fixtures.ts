/** A small university catalog and personas for the guard, policy and store unit tests. */
import type { ToolRecord } from '../../src/catalog/types.js';
import { personasSchema, type GatewayConfig } from '../../src/config/schema.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approverCheck, cliProof, createApproverKey, readApproverKey } from '../../src/guards/approver.js';
import { parseStatement, requestIdFor, statementDigest, statementOf } from '../../src/guards/statement.js';
import { Policy } from '../../src/policy/policy.js';
import type { ApprovalsPart, NewApproval } from '../../src/store/types.js';
import type { SessionIdentity } from '../../src/guards/types.js';

function tool(server: string, name: string, properties: Record<string, object>, opts: Partial<ToolRecord> = {}): ToolRecord {
  return {
    server,
    upstreamName: name,
    name,
    description: name.replace(/_/g, ' '),
    inputSchema: { type: 'object', properties, required: Object.keys(properties) },
    isAction: false,
    ...opts,
  };
}

const id = { type: 'string' };

export const catalog: ToolRecord[] = [
  tool('academics', 'get_course_catalog', { term: { type: 'string' } }),
  tool('academics', 'get_my_grades', { student_id: id, term: { type: 'string' } }),
  tool('attendance', 'get_attendance_summary', { student_id: id }),
  tool('attendance', 'admin_override_attendance', { student_id: id, percent: { type: 'number' } }, { isAction: true }),
  tool('finance', 'get_fee_dues', { student_id: id }),
  tool('finance', 'make_payment', { student_id: id, amount: { type: 'number' }, card_token: { type: 'string' } }, {
    // card_token is optional (a saved card pays otherwise).
    inputSchema: { type: 'object', properties: { student_id: id, amount: { type: 'number' }, card_token: { type: 'string' } }, required: ['student_id', 'amount'] },
    isAction: true,
    annotations: { readOnlyHint: false },
  }),
  tool('finance', 'refund_payment', { payment_id: { type: 'string' } }, { isAction: true }),
  tool('administration', 'admin_delete_student', { student_id: id }, { isAction: true }),
];

export const byName = (name: string): ToolRecord => catalog.find((t) => t.name === name)!;

export const personas = personasSchema.parse({
  student: {
    identity: { student_id: '${user_id}' },
    allow: ['academics.*', 'attendance.get_*', 'finance.get_fee_dues', 'finance.make_payment'],
    deny: ['*.admin_*'],
    confirm: 'actions',
  },
  auditor: { allow: ['*'], deny: ['administration.*'], confirm: 'all' },
  admin: { identity: { staff_id: '${user_id}' }, allow: ['*'], confirm: 'none' },
});

export const policy = new Policy(personas);

export const config: Pick<GatewayConfig, 'confirmation' | 'audit'> = {
  confirmation: { actions: ['get_fee_dues_legacy'], read_only: [], approval_ttl_minutes: 10, wait_seconds: { stdio: 0, http: 0 }, approvers_may_approve_own_calls: false, approvers_session_minutes: 30 },
  audit: { redact: ['password', 'token', 'secret', 'api_key'], max_value_bytes: 4096 },
};

/**
 * A real approver key in a fresh temp dir, the gateway's check of it, and a person's
 * decision signed with it (what `tool-curator approvals approve|deny` does).
 */
export function approverFixture(approvalsToken?: string) {
  const keyPath = join(mkdtempSync(join(tmpdir(), 'tc-approver-')), 'approver.key');
  createApproverKey(keyPath);
  const key = readApproverKey(keyPath);
  return {
    keyPath,
    approver: approverCheck(keyPath, () => approvalsToken),
    /** Signs the request's statement as it is stored, valid for what the statement says from now. */
    async decide(store: ApprovalsPart, id: string, decision: 'approved' | 'denied') {
      const request = await store.get(id);
      const s = parseStatement(request?.statement);
      const proof = s && cliProof(key, { id, statement: request!.statement! }, decision, store.clock() + s.validForMs);
      return store.decide(id, decision, 'cli', proof);
    },
  };
}

/** The name pairs issue 10 found silently corrected (the opposite action ran): asked, near neighbour. */
export const ISSUE_PAIRS: [string, string][] = [
  ['unenroll_in_course', 'enroll_in_course'],
  ['deregister_for_supplementary_exam', 'register_for_supplementary_exam'],
  ['unregister_visitor', 'register_visitor'],
  ['post_announcements', 'get_announcements'],
  ['get_event_registration', 'get_placement_registrations'],
];

/**
 * Issue 29's pairs over the university catalog, for the default persona (student): a name
 * that is the prefix of a longer one with another object noun, and an object noun replaced.
 */
export const ISSUE_29_PAIRS: [string, string][] = [
  ['get_attendance', 'get_attendance_policy'],
  ['get_student_grades', 'get_student_profile'],
];

/**
 * A parked `make_payment` request as the confirmation guard writes it (its statement, and
 * that statement's digest as key), for tests of the CLI and the page.
 */
export function parkedPayment(args: Record<string, unknown>, approverKey: string, session: Partial<SessionIdentity> = {}): NewApproval {
  const who: SessionIdentity = { sessionId: 's1', persona: 'student', userId: 'S0001', ...session };
  const statement = statementOf(who, byName('make_payment'), args, args, approverKey, 10 * 60_000);
  return {
    id: requestIdFor(statement),
    key: statementDigest(statement),
    sessionId: who.sessionId,
    ...(who.persona !== undefined && { persona: who.persona }),
    ...(who.userId !== undefined && { userId: who.userId }),
    tool: 'make_payment',
    args,
    statement,
    ttlMs: 10 * 60_000,
  };
}
