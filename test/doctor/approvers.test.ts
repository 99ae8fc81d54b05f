/**
 * `tool-curator doctor` on `confirmation.approvers`: a config `serve --http` would refuse is
 * an error finding naming the key; personas whose parked calls no rule lets anyone approve
 * are warnings; own calls made approvable are said. The last case runs the whole doctor on
 * a real upstream.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { runDoctor } from '../../src/doctor/doctor.js';
import { approverFindings } from '../../src/doctor/approvers.js';
import { conformanceConfig } from '../helpers/conformance.js';

const OAUTH = { issuer: 'https://idp.example.com/realms/acme', resource: 'https://mcp.example.com/mcp', personas: [{ persona: 'clerk' }] };
const HTTP = { oauth: OAUTH, approvals_token: 'approvals-token-0123456789abcdef' };
const RULE = { claim: 'groups', includes: 'payments-approvers' };
const SIGN_IN = { client_id: 'tc-approvals' };

/** clerk: approved on the page; intern: by elicitation only; auditor: nothing to approve. */
const PERSONAS = 'clerk:\n  allow: ["*"]\nintern:\n  allow: ["*"]\n  confirm_via: elicitation\nauditor:\n  allow: ["*"]\n  confirm: none\nstudent:\n  allow: ["*"]\n';

function configFile(confirmation: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  const personas = join(mkdtempSync(join(tmpdir(), 'tc-doctor-approvers-')), 'personas.yaml');
  writeFileSync(personas, PERSONAS);
  return conformanceConfig({ policy: { personas }, http: HTTP, confirmation, ...extra });
}

const findings = (confirmation: Record<string, unknown>, extra?: Record<string, unknown>) =>
  approverFindings(loadConfig(configFile(confirmation, extra))).map((f) => [f.level, f.key, f.message]);

describe('doctor: confirmation.approvers', () => {
  it('no approvers configured: nothing to report', () => {
    expect(findings({})).toEqual([]);
  });

  it('a config serve --http refuses is one error finding with its key', () => {
    expect(findings({ approvers: [RULE] })).toEqual([
      ['error', 'confirmation.approvers_sign_in', expect.stringMatching(/^approvers sign in to the approvals page in their browser: set confirmation\.approvers_sign_in\.client_id .* \(serve --http refuses to start\)$/)],
    ]);
    expect(findings({ approvers: [{ when: RULE, personas: ['nobody'] }], approvers_sign_in: SIGN_IN })).toEqual([
      ['error', 'confirmation.approvers.0.personas.0', expect.stringContaining('nobody')],
    ]);
  });

  it('rules for some personas: each persona whose calls wait on the page and that no rule covers is a warning; elicitation-only and confirm none are not', () => {
    expect(findings({ approvers: [{ when: RULE, personas: ['clerk'] }], approvers_sign_in: SIGN_IN })).toEqual([
      ['ok', 'confirmation.approvers', "1 rule(s) over the identity provider's claims decide calls of clerk; approvers may not approve their own calls"],
      ['warn', 'confirmation.approvers', 'no rule covers persona "student": its calls that wait for approval on the approvals page can only be denied or time out; add "student" to a rule\'s personas, or a rule without personas'],
    ]);
  });

  it('a rule without personas covers all; own calls approvable are said as info', () => {
    const got = findings({ approvers: [RULE, { when: RULE, personas: ['clerk'] }], approvers_sign_in: SIGN_IN, approvers_may_approve_own_calls: true });
    expect(got).toEqual([
      ['ok', 'confirmation.approvers', "2 rule(s) over the identity provider's claims decide every persona's calls; approvers may approve their own calls"],
      ['info', 'confirmation.approvers_may_approve_own_calls', expect.stringMatching(/^approvers_may_approve_own_calls is true: an approver can approve what their own agent asked for/)],
    ]);
  });

  it('the whole doctor reports them beside its other checks, and a warning makes the exit code 1', async () => {
    const report = await runDoctor(configFile({ approvers: [{ when: RULE, personas: ['clerk'] }], approvers_sign_in: SIGN_IN }, { timeouts: { startup_ms: 120_000 } }));
    expect(report.findings.filter((f) => f.check === 'approvers').map((f) => f.level)).toEqual(['ok', 'warn']);
    expect(report.upstreams.map((u) => [u.name, u.state])).toEqual([['conformance', 'ready']]);
    expect(report.exitCode).toBe(1);
  }, 180_000);
});
