/**
 * `confirmation.approvers`: the rules' config (shorthand, per persona, errors naming the
 * key), the checks `serve --http` makes before anything starts, which rule lets a person
 * decide a persona's calls, and the gateway's check of a page decision that names its
 * approver: bound to the approver's id (a store write that renames the approver voids it),
 * refused for the approver's own call unless configured, and an anonymous page decision
 * refused where approvers are configured.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { checkApprovers } from '../../../src/gateway/hostAuth/config.js';
import { checkTokens } from '../../../src/gateway/http.js';
import { matchApprover } from '../../../src/gateway/hostAuth/rules.js';
import { approverCheck, approverDecider, webProof, type ApproverPolicy } from '../../../src/guards/approver.js';
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
  /** A decided row as the page would store it: decided by `by`, signed for `approver`. */
  const decided = (status: 'approved' | 'denied', approver: string | undefined, by = approver === undefined ? 'web' : approverDecider(approver)): Approval => ({
    id: 'abc123',
    key: request.key,
    sessionId: request.sessionId,
    tool: request.tool,
    args: request.args,
    statement,
    status,
    createdAt: now,
    expiresAt: now + 600_000,
    decidedBy: by,
    proof: webProof(TOKEN, { id: 'abc123', statement }, status, now + 600_000, approver),
  });
  const check = (policy: ApproverPolicy) => approverCheck('/nonexistent/approver.key', () => TOKEN, () => policy);
  const required = { required: true, mayApproveOwn: false };

  it("is valid for another person's approval, and void once a store write renames the approver", () => {
    expect(decided('approved', 'ann').proof).toMatch(/^idp:1600000:/);
    expect(check(required).verify(statement, decided('approved', 'ann'), now)).toEqual({ valid: true, expiresAt: now + 600_000 });
    expect(check(required).verify(statement, decided('approved', 'ann', 'web:bob'), now)).toEqual({ valid: false, reason: 'no valid approver signature over this call' });
    expect(check(required).verify(statement, decided('approved', 'ann', 'web'), now)).toEqual({ valid: false, reason: 'the decision names no approver' });
  });

  it('refuses an anonymous page decision where approvers are configured, and honours it where they are not', () => {
    expect(check(required).verify(statement, decided('approved', undefined), now)).toEqual({ valid: false, reason: 'a page decision without a signed-in approver does not count where confirmation.approvers is set' });
    expect(check({ required: false, mayApproveOwn: false }).verify(statement, decided('approved', undefined), now)).toMatchObject({ valid: true });
  });

  it("refuses the caller's own approval unless approvers_may_approve_own_calls; their own denial counts", () => {
    // parkedPayment's caller is user S0001.
    expect(check(required).verify(statement, decided('approved', 'S0001'), now)).toEqual({ valid: false, reason: 'S0001 approved their own call, and confirmation.approvers_may_approve_own_calls is false' });
    expect(check({ required: true, mayApproveOwn: true }).verify(statement, decided('approved', 'S0001'), now)).toMatchObject({ valid: true });
    expect(check(required).verify(statement, decided('denied', 'S0001'), now)).toMatchObject({ valid: true });
  });
});
