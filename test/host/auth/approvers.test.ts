/**
 * `confirmation.approvers`: the rules' config (shorthand, per persona, errors naming the
 * key), the checks `serve --http` makes before anything starts, which rule lets a person
 * decide a persona's calls, and the gateway's check of a page decision that names its
 * approver: bound to the approver's id and recorded claims (a store write that renames the
 * approver or widens the claims voids it), refused for the approver's own call (signed in,
 * or a static token's with their id) unless configured, counted only while the rules in
 * force cover the approver, and an anonymous page decision refused where approvers are
 * configured.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { checkApprovers } from '../../../src/host/auth/config.js';
import { checkTokens } from '../../../src/host/http.js';
import { approverClaims, approverPolicy, matchApprover } from '../../../src/host/auth/rules.js';
import { approverCheck, approverDecider, webProof, type ApproverPolicy } from '../../../src/guards/approver.js';
import { signedText } from '../../../src/guards/statement.js';
import type { Approval } from '../../../src/store/types.js';
import { parkedPayment } from '../../guards/fixtures.js';
import { conformanceConfig } from '../../helpers/conformance.js';

const OAUTH = {
  issuer: 'https://idp.example.com/realms/acme',
  resource: 'https://mcp.example.com/mcp',
  personas: [{ persona: 'tester', when: { claim: 'groups', includes: 'mcp-users' } }],
};
const TOKEN = 'approvals-token-0123456789abcdef';

function configWith(confirmation: Record<string, unknown>, http: Record<string, unknown> = { oauth: OAUTH, approvals_token: TOKEN }, extra: Record<string, unknown> = {}) {
  const personas = join(mkdtempSync(join(tmpdir(), 'tc-approvers-')), 'personas.yaml');
  writeFileSync(personas, 'tester:\n  allow: ["*"]\nstudent:\n  allow: ["*"]\n');
  return loadConfig(conformanceConfig({ policy: { personas }, http, confirmation, ...extra }));
}

describe('confirmation.approvers config', () => {
  it('a bare condition is a rule of one condition; a rule may list conditions and personas; own calls are not approvable by default', () => {
    const { confirmation } = configWith({
      approvers: [{ claim: 'groups', includes: 'payments-approvers' }, { when: [{ claim: 'groups', includes: 'leads' }, { claim: 'email', domain: 'uni.example' }], personas: ['student'] }],
      approvers_sign_in: { client_id: 'tc-approvals' },
    }).config;
    expect(confirmation.approvers).toEqual([
      { when: [{ claim: 'groups', includes: ['payments-approvers'] }] },
      { when: [{ claim: 'groups', includes: ['leads'] }, { claim: 'email', domain: ['uni.example'] }], personas: ['student'] },
    ]);
    expect(confirmation).toMatchObject({ approvers_may_approve_own_calls: false, approvers_session_minutes: 30 });
  });

  it('refuses a rule without conditions, a bad condition, an empty list and unknown keys, naming the key', () => {
    expect(() => configWith({ approvers: [{ personas: ['student'] }] })).toThrow(/confirmation\.approvers\.0\.when/);
    expect(() => configWith({ approvers: [{ claim: 'groups' }] })).toThrow(/confirmation\.approvers\.0\.when: a condition needs exactly one of includes, equals or domain/);
    expect(() => configWith({ approvers: [] })).toThrow(/confirmation\.approvers: name at least one rule, or remove confirmation\.approvers/);
    expect(() => configWith({ approvers: [{ when: { claim: 'groups', includes: 'a' }, persona: 'student' }] })).toThrow(/confirmation\.approvers\.0/);
  });

  it('serve --http refuses approvers without http.oauth, without http.approvals_token, without a sign-in client, or naming an unknown persona', () => {
    const rule = { claim: 'groups', includes: 'payments-approvers' };
    expect(() => checkApprovers(configWith({ approvers: [rule] }, { approvals_token: TOKEN }))).toThrow(/confirmation\.approvers: approvers are named by claims of the identity provider, and http\.oauth .* is not set/);
    expect(() => checkApprovers(configWith({ approvers: [rule], approvers_sign_in: { client_id: 'c' } }, { oauth: OAUTH }))).toThrow(
      /http\.approvals_token: confirmation\.approvers decide on the approvals page, which is served only with http\.approvals_token/,
    );
    expect(() => checkApprovers(configWith({ approvers: [rule] }))).toThrow(
      /confirmation\.approvers_sign_in: approvers sign in to the approvals page in their browser: set confirmation\.approvers_sign_in\.client_id \(or per_user\.sign_in\) to a client of https:\/\/idp\.example\.com\/realms\/acme whose redirect URI is <public_url>\/approvals\/signin\/callback/,
    );
    expect(() => checkApprovers(configWith({ approvers: [{ when: rule, personas: ['student', 'nobody'] }], approvers_sign_in: { client_id: 'c' } }))).toThrow(
      /confirmation\.approvers\.0\.personas\.1: unknown persona "nobody"/,
    );
    expect(() => checkApprovers(configWith({ approvers: [rule] }, { oauth: OAUTH, approvals_token: TOKEN }, { per_user: { sign_in: { client_id: 'tc-consent' } } }))).not.toThrow();
    // serve --http runs them with the token checks, before the gateway starts its upstreams.
    expect(() => checkTokens(configWith({ approvers: [rule] }, { approvals_token: TOKEN }))).toThrow(/confirmation\.approvers: approvers are named by claims/);
  });
});

describe('matchApprover', () => {
  const { approvers } = configWith({
    approvers: [{ when: { claim: 'groups', includes: 'faculty-approvers' }, personas: ['faculty'] }, { claim: 'realm_access.roles', includes: 'approver' }],
    approvers_sign_in: { client_id: 'c' },
  }).config.confirmation;

  it('any rule makes an approver; a rule with personas covers only those personas\' calls', () => {
    const fay = { groups: ['faculty-approvers'] };
    expect(matchApprover(approvers!, fay)).toBe('confirmation.approvers.0 (groups includes faculty-approvers)');
    expect(matchApprover(approvers!, fay, 'faculty')).toBe('confirmation.approvers.0 (groups includes faculty-approvers)');
    expect(matchApprover(approvers!, fay, 'student')).toBeUndefined();
    expect(matchApprover(approvers!, fay, null)).toBeUndefined();
    expect(matchApprover(approvers!, { realm_access: { roles: ['approver'] } }, 'student')).toBe('confirmation.approvers.1 (realm_access.roles includes approver)');
    expect(matchApprover(approvers!, { groups: ['faculty'] })).toBeUndefined();
  });
});

describe("the gateway's check of a page decision naming its approver", () => {
  const request = parkedPayment({ amount: 100 }, 'none');
  const statement = request.statement!;
  const now = 1_000_000;
  const PAYMENTS = { groups: ['payments-approvers'] };
  /** A decided row of `statement` as the page would store it: decided by `by`, signed for `approver` with `claims`. */
  const decided = (
    status: 'approved' | 'denied',
    approver: string | undefined,
    by = approver === undefined ? 'web' : approverDecider(approver),
    claims: Record<string, unknown> = PAYMENTS,
    text = statement,
  ): Approval => ({
    id: 'abc123',
    key: request.key,
    sessionId: request.sessionId,
    tool: request.tool,
    args: request.args,
    statement: text,
    status,
    createdAt: now,
    expiresAt: now + 600_000,
    decidedBy: by,
    proof: webProof(TOKEN, { id: 'abc123', statement: text }, status, now + 600_000, approver === undefined ? undefined : { id: approver, claims }),
  });
  const check = (policy: ApproverPolicy) => approverCheck('/nonexistent/approver.key', () => TOKEN, () => policy);
  const required = { required: true, mayApproveOwn: false };
  /** The rules in force when the call is to run, as the gateway reads them (approverPolicy). */
  const inForce = (approvers: unknown[], own = false) =>
    approverPolicy(configWith({ approvers, approvers_sign_in: { client_id: 'c' }, approvers_may_approve_own_calls: own }).config);

  it("is valid for another person's approval, and void once a store write renames the approver", () => {
    expect(decided('approved', 'ann').proof).toMatch(/^idp:1600000:[A-Za-z0-9+/=]+:[\w-]+$/);
    expect(check(required).verify(statement, decided('approved', 'ann'), now)).toEqual({ valid: true, expiresAt: now + 600_000 });
    expect(check(required).verify(statement, decided('approved', 'ann', 'web:bob'), now)).toEqual({ valid: false, reason: 'no valid approver signature over this call' });
    expect(check(required).verify(statement, decided('approved', 'ann', 'web'), now)).toEqual({ valid: false, reason: 'the decision names no approver' });
  });

  it('refuses an anonymous page decision where approvers are configured, and honours it where they are not', () => {
    expect(check(required).verify(statement, decided('approved', undefined), now)).toEqual({ valid: false, reason: 'a page decision without a signed-in approver does not count where confirmation.approvers is set' });
    expect(check({ required: false, mayApproveOwn: false }).verify(statement, decided('approved', undefined), now)).toMatchObject({ valid: true });
  });

  it("refuses the caller's own approval unless approvers_may_approve_own_calls; their own denial counts", () => {
    // A signed-in S0001's call, decided by the signed-in S0001.
    const theirs = parkedPayment({ amount: 100 }, 'none', { principal: { issuer: OAUTH.issuer, subject: 'u1', rule: 'http.oauth.personas.0', claims: {} } }).statement!;
    expect(JSON.parse(theirs).caller).toBe(`signed-in user "S0001" (${OAUTH.issuer})`);
    const rules = [{ claim: 'groups', includes: 'payments-approvers' }];
    expect(check(inForce(rules)).verify(theirs, decided('approved', 'S0001', undefined, PAYMENTS, theirs), now)).toEqual({ valid: false, reason: 'S0001 approved their own call, and confirmation.approvers_may_approve_own_calls is false' });
    expect(check(inForce(rules, true)).verify(theirs, decided('approved', 'S0001', undefined, PAYMENTS, theirs), now)).toMatchObject({ valid: true });
    expect(check(inForce(rules)).verify(theirs, decided('denied', 'S0001', undefined, PAYMENTS, theirs), now)).toMatchObject({ valid: true });
    // parkedPayment's caller without a principal is a static token's user S0001: maybe the same person, so not theirs to approve either.
    expect(JSON.parse(statement).caller).toBe('user S0001');
    expect(check(inForce(rules)).verify(statement, decided('approved', 'S0001'), now)).toEqual({ valid: false, reason: 'S0001 approved their own call, and confirmation.approvers_may_approve_own_calls is false' });
  });

  it('counts an approval only while the rules in force cover its approver, by the claims it signed; a denial always counts', () => {
    const before = inForce([{ claim: 'groups', includes: 'payments-approvers' }]);
    const after = inForce([{ when: { claim: 'groups', includes: 'payments-approvers' }, personas: ['tester'] }, { claim: 'groups', includes: 'senior-approvers' }]);
    expect(check(before).verify(statement, decided('approved', 'ann'), now)).toMatchObject({ valid: true });
    expect(check(after).verify(statement, decided('approved', 'ann'), now)).toEqual({ valid: false, reason: "ann is not an approver of persona student's calls under the confirmation.approvers in force" });
    expect(check(after).verify(statement, decided('approved', 'cara', undefined, { groups: ['senior-approvers'] }), now)).toMatchObject({ valid: true });
    expect(check(after).verify(statement, decided('denied', 'ann'), now)).toMatchObject({ valid: true });
    // A rule reading a claim the decision did not record finds it absent.
    expect(check(inForce([{ claim: 'email', domain: 'uni.example' }])).verify(statement, decided('approved', 'ann'), now)).toMatchObject({ valid: false });
  });

  it('the recorded claims are signed: a store write that widens them voids the decision, and one without them does not count', () => {
    const after = inForce([{ claim: 'groups', includes: 'senior-approvers' }]);
    const row = decided('approved', 'ann');
    const [kind, expiry, signature] = row.proof!.split(':');
    const widened = `${kind}:${expiry}:${signature}:${Buffer.from('{"groups":["senior-approvers"]}').toString('base64url')}`;
    expect(check(after).verify(statement, { ...row, proof: widened }, now)).toEqual({ valid: false, reason: 'no valid approver signature over this call' });
    // A decision an earlier version signed: its id, no claims.
    const earlier = `idp:${now + 600_000}:${createHmac('sha256', TOKEN).update(signedText(statement, 'abc123', 'approved', now + 600_000, 'ann')).digest('base64')}`;
    expect(check({ required: false, mayApproveOwn: false }).verify(statement, { ...row, proof: earlier }, now)).toMatchObject({ valid: true });
    expect(check(after).verify(statement, { ...row, proof: earlier }, now)).toEqual({
      valid: false,
      reason: 'the decision does not record the claims ann signed in with (taken by an earlier version), so the confirmation.approvers in force cannot be checked',
    });
  });
});

describe('approverClaims', () => {
  it('keeps the claims the rules read, by path, and nothing else', () => {
    const rules = [{ when: [{ claim: 'groups', includes: ['a'] }, { claim: 'realm_access.roles', includes: ['approver'] }] }, { when: [{ claim: 'email', domain: ['uni.example'] }] }];
    expect(approverClaims(rules, { sub: 'x1', groups: ['a', 'b'], realm_access: { roles: ['approver'] }, preferred_username: 'ann' })).toEqual({ groups: ['a', 'b'], 'realm_access.roles': ['approver'] });
  });
});
