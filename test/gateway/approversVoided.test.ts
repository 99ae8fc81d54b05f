/**
 * What stops counting when the approvers rules change, shown as such; and acceptances of
 * changed tool definitions signed and re-checked like page decisions. End to end on
 * loopback: a real OpenID provider (oidc-provider), the hostel server and the `mail`
 * fixture (an SDK McpServer over stdio whose `rug_pull` changes `send_email`), the
 * gateway's HTTP face in process, SDK clients as hosts, the built CLI; both store backends.
 *
 * - An approval by an approver whom the rules in force no longer cover is `voided`, with
 *   why, in `approvals show`, `approvals list --json` and on the page (it showed `approved`).
 * - A definition accepted on the page is signed for the approver's id, the claims the rules
 *   read and its time; `definitions list` and the audit say who accepted it and when.
 * - Once the rules no longer cover that approver, the acceptance no longer counts: the tool
 *   is held back again as changed (it stayed exposed), until an approver the rules cover accepts it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { serveHttp, type HttpFace } from '../../src/host/http.js';
import { definitionProofValid } from '../../src/guards/acceptance.js';
import type { AuditRecord, DefinitionPin } from '../../src/store/types.js';
import { approversIdpOnFreePort, bearerHost, callTool, decideOn, hostToken, pendingOf, signInAt } from '../helpers/approvers.js';
import type { Browser } from '../helpers/browser.js';
import type { Idp } from '../helpers/idp.js';
import { ROOT } from '../helpers/reference.js';
import { BACKENDS, setupBackends } from '../helpers/stores.js';
import { cli, text } from '../guards/university.js';

setupBackends();

const APPROVALS_TOKEN = 'approvals-token-0123456789abcdef';
const MAIL = join(ROOT, 'test/guards/fixtures/mail.mjs');
/** ann approves every persona's calls and may accept definitions; cara is a senior approver. */
const BEFORE = [{ claim: 'groups', includes: 'payments-approvers' }, { claim: 'groups', includes: 'senior-approvers' }];
/** ann decides faculty calls only: her approval of a student's call stops counting. */
const FACULTY_ONLY = [{ when: { claim: 'groups', includes: 'payments-approvers' }, personas: ['faculty'] }, { claim: 'groups', includes: 'senior-approvers' }];
/** ann is no approver at all: her acceptance of a definition stops counting. */
const SENIOR_ONLY = [{ claim: 'groups', includes: 'senior-approvers' }];
const EMAIL = { to: 'ana@example.org', body: 'the minutes' };

describe.each(BACKENDS)('voided approvals and acceptances (store on $kind)', (backend) => {
  let idp: Idp;
  let dir: string;
  let base: string;
  let resource: string;
  let file: string;
  let gateway: Gateway;
  let face: HttpFace;
  let sam: Client;

  /** Writes the gateway config on `store` with `approvers`. */
  function writeConfig(store: string, approvers: unknown[]): void {
    const config = {
      upstreams: {
        hostel: { command: process.execPath, args: [join(ROOT, 'dist/mock-servers/hostel.js')], env: { UNIVERSITY_DB: join(dir, 'university.db') } },
        mail: { command: process.execPath, args: [MAIL] },
      },
      curator: { mode: 'none' },
      store,
      policy: { personas: join(dir, 'personas.yaml') },
      http: {
        approvals_token: APPROVALS_TOKEN,
        oauth: { issuer: idp.issuer, resource, scopes: ['mcp:tools'], user_claim: 'preferred_username', personas: [{ persona: 'student', when: { claim: 'groups', includes: 'students' } }] },
      },
      confirmation: { wait_seconds: { stdio: 0, http: 0 }, approvers, approvers_sign_in: { client_id: 'tc-approvals' }, read_only: ['mail.rug_pull', 'mail.sent'] },
      timeouts: { startup_ms: 120_000, list_wait_ms: 120_000, call_ms: 60_000 },
    };
    writeFileSync(file, JSON.stringify(config));
  }

  beforeAll(async () => {
    let port: number;
    ({ port, base, resource, idp } = await approversIdpOnFreePort({
      sam: { groups: ['students'], preferred_username: 'S0001' },
      ann: { groups: ['staff', 'payments-approvers'], preferred_username: 'ann' },
      cara: { groups: ['staff', 'senior-approvers'], preferred_username: 'cara' },
    }));
    dir = mkdtempSync(join(tmpdir(), 'tc-approvers-voided-'));
    const personas = { student: { identity: { student_id: '${user_id}' }, allow: ['hostel.*', 'mail.*'], confirm: 'actions' }, faculty: { allow: ['hostel.get_*'], confirm: 'actions' } };
    writeFileSync(join(dir, 'personas.yaml'), JSON.stringify(personas));
    file = join(dir, 'gateway.config.yaml');
    writeConfig(await backend.fresh(), BEFORE);
    gateway = await Gateway.start(loadConfig(file), { noEmbedder: true });
    face = await serveHttp(gateway, port, '127.0.0.1');
    sam = await bearerHost(resource, await hostToken(idp, resource, 'sam'));
  }, 300_000);

  afterAll(async () => {
    await sam?.close().catch(() => undefined);
    await face?.close();
    await gateway?.close();
    await idp?.close();
  });

  /** A browser signed in on the approvals page as `login`. */
  async function signedIn(login: string): Promise<Browser> {
    const { browser, landed } = await signInAt(idp, base, login);
    expect(landed.status, await landed.clone().text()).toBe(303);
    return browser;
  }

  /** Puts `approvers` in force in the running gateway (the file saved, then reloaded). */
  async function reloadWith(approvers: unknown[]): Promise<void> {
    writeConfig(gateway.loaded.config.store, approvers);
    expect(await gateway.reload()).toEqual({ applied: ['confirmation.approvers'], restart: [], widened: [] });
  }

  const pin = async () => (await gateway.store.definitions.get('mail', 'send_email'))!;
  async function until(check: () => Promise<boolean>, what: string): Promise<void> {
    for (let i = 0; i < 1200; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`never happened: ${what}`);
  }

  /** Accepts the changed send_email on the page as the browser's approver. */
  async function acceptOnPage(browser: Browser): Promise<Response> {
    const html = await (await browser.get(`${base}/approvals`)).text();
    const form = /action="\/approvals\/definitions\/accept"><input type="hidden" name="csrf" value="([^"]+)"><input type="hidden" name="server" value="mail"><input type="hidden" name="tool" value="send_email"><input type="hidden" name="digest" value="([^"]+)">/.exec(html);
    expect(form, html).not.toBeNull();
    return browser.post(`${base}/approvals/definitions/accept`, { csrf: form![1]!, server: 'mail', tool: 'send_email', digest: form![2]! });
  }

  it('an approval whose approver the rules in force no longer cover is shown voided, with why, in the CLI and on the page', async () => {
    const ARGS = { category: 'plumbing', description: 'the basin in room 4 is cracked' };
    expect(text(await callTool(sam, 'raise_maintenance_request', ARGS))).toContain("awaits a person's approval");
    const request = await pendingOf(gateway.store.approvals, 'S0001', ARGS);
    expect((await decideOn(await signedIn('ann'), base, request.id, 'approve')).status).toBe(303);
    const before = cli(file, ['approvals', 'show', request.id]);
    expect(before.stdout.split('\n')[0]).toBe(`approval ${request.id}: approved`);

    await reloadWith(FACULTY_ONLY);
    const why = "ann is not an approver of persona student's calls under the confirmation.approvers in force";
    const show = cli(file, ['approvals', 'show', request.id]);
    expect([show.code, show.stderr]).toEqual([0, '']);
    expect(show.stdout.split('\n')[0]).toBe(`approval ${request.id}: voided`);
    expect(show.stdout).toContain(`  voided        the approval no longer counts: ${why}\n`);
    const listed = JSON.parse(cli(file, ['approvals', 'list', '--all', '--json']).stdout) as { id: string; status: string; voided?: string }[];
    expect(listed.find((a) => a.id === request.id)).toMatchObject({ status: 'voided', voided: why });
    const table = cli(file, ['approvals', 'list', '--all']).stdout.split('\n').find((l) => l.startsWith(request.id));
    expect(table?.split(/\s{2,}/)[1]).toBe('voided');

    const html = await (await (await signedIn('cara')).get(`${base}/approvals`)).text();
    const row = new RegExp(`<tr data-id="${request.id}">.*?</tr>`, 's').exec(html)?.[0];
    expect(row).toContain(`<td class="status">voided<br><small class="voided">ann is not an approver of persona student&#39;s calls under the confirmation.approvers in force</small></td>`);
    // The call it approved is parked anew, as before.
    expect(text(await callTool(sam, 'raise_maintenance_request', ARGS))).toContain("awaits a person's approval");
    await reloadWith(BEFORE);
  }, 300_000);

  it('a definition accepted on the page is signed for the approver, their claims and its time; the CLI and the audit say who and when', async () => {
    expect(text(await callTool(sam, 'rug_pull', {}))).toBe('changed');
    // The store's pin is written before the gateway's catalog holds the tool back: wait for both.
    await until(async () => (await pin()).status === 'changed' && !gateway.hasTool('send_email') && gateway.changedDefinitions.some((c) => c.upstreamName === 'send_email'), 'send_email held back');
    expect(text(await callTool(sam, 'send_email', EMAIL))).toContain('is held back and has not run');

    const accepted = await acceptOnPage(await signedIn('ann'));
    expect(accepted.status).toBe(200);
    expect(await accepted.text()).toContain('Accepted the new definition of send_email (upstream mail).');
    const p = await pin();
    expect(p).toMatchObject({ status: 'accepted', decidedBy: 'web:ann', decidedAt: expect.any(Number) });
    const claims = Buffer.from(JSON.stringify({ groups: ['staff', 'payments-approvers'] })).toString('base64url');
    expect(p.proof).toMatch(new RegExp(`^idp:${p.decidedAt}:[A-Za-z0-9+/=]+:${claims}$`));
    const keyPath = join(dir, 'approver.key');
    expect(definitionProofValid(p, keyPath, APPROVALS_TOKEN)).toBe(true);
    // A store write that widens the claims, or moves the time, voids the signature.
    const wider = Buffer.from(JSON.stringify({ groups: ['senior-approvers'] })).toString('base64url');
    expect(definitionProofValid({ ...p, proof: p.proof!.replace(claims, wider) }, keyPath, APPROVALS_TOKEN)).toBe(false);
    expect(definitionProofValid({ ...p, decidedAt: p.decidedAt! + 1 }, keyPath, APPROVALS_TOKEN)).toBe(false);

    const at = new Date(p.decidedAt!).toISOString().replace('T', ' ').slice(0, 19);
    const row = cli(file, ['definitions', 'list', '--all']).stdout.split('\n').find((l) => l.includes('mail.send_email'));
    expect(row?.split(/\s{2,}/).slice(-2)).toEqual(['ann (the approvals page, signed in with the identity provider)', at]);
    const audit = (JSON.parse(cli(file, ['audit', '--tail', '100', '--json']).stdout) as AuditRecord[]).filter((r) => r.tool === 'send_email' && r.decision === 'approved');
    expect(audit).toMatchObject([{ time: p.decidedAt, args: { upstream: 'mail', accepted: p.digest, by: 'web:ann' }, notes: ['changed definition of upstream mail accepted by a person (web:ann)'] }]);
    await until(async () => !text(await callTool(sam, 'send_email', EMAIL)).includes('held back'), 'send_email exposed again');
  }, 300_000);

  it('once the rules no longer cover the approver, their acceptance no longer counts: held back again as changed, until a covered approver accepts', async () => {
    const accepted: DefinitionPin = await pin();
    expect(accepted.decidedBy).toBe('web:ann');
    expect(text(await callTool(sam, 'send_email', EMAIL))).toContain("awaits a person's approval");

    await reloadWith(SENIOR_ONLY);
    const why = 'ann is no longer an approver under the confirmation.approvers in force';
    const held = await callTool(sam, 'send_email', EMAIL);
    expect(text(held)).toContain('send_email (upstream mail) is held back and has not run');
    expect(await pin()).toMatchObject({ status: 'changed', digest: accepted.priorDigest, pendingDigest: accepted.digest, voided: why });
    expect((await pin()).decidedBy).toBeUndefined();
    const audit = (JSON.parse(cli(file, ['audit', '--tail', '100', '--json']).stdout) as AuditRecord[]).filter((r) => r.tool === 'send_email' && r.sessionId === 'gateway');
    expect(audit.at(-1)).toMatchObject({ decision: 'refused', args: { upstream: 'mail', voided: accepted.digest, by: 'web:ann' }, notes: [`acceptance of a changed definition of upstream mail voided: ${why}`] });
    expect(cli(file, ['definitions', 'list']).stdout).toMatch(/^send_email\s+mail\.send_email\s+changed \(acceptance voided\)\s/m);
    expect(cli(file, ['definitions', 'diff', 'send_email']).stdout.split('\n')[0]).toBe(`held back again: ${why}`);

    // ann can no longer sign in; cara accepts what she is shown, and the tool is back.
    const { landed } = await signInAt(idp, base, 'ann');
    expect(landed.status).toBe(403);
    expect((await acceptOnPage(await signedIn('cara'))).status).toBe(200);
    expect(await pin()).toMatchObject({ status: 'accepted', digest: accepted.digest, decidedBy: 'web:cara' });
    await until(async () => text(await callTool(sam, 'send_email', EMAIL)).includes("awaits a person's approval"), 'send_email exposed again');
  }, 300_000);
});
