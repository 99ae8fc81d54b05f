/**
 * A page decision counts by the approvers rules in force where and when it is used, and
 * an approver's user id is the identity provider's, not a static token's. End to end on
 * loopback with a real OpenID provider (oidc-provider), the hostel server, the gateway's
 * HTTP face and SDK clients, on both store backends:
 *
 * - an approval signed by an approver whom a changed `confirmation.approvers` no longer
 *   covers does not run the call after a restart with the new rules, on a replica of the
 *   fleet that runs them, or once a running gateway reloads them; the call is parked anew
 *   and a covered approver decides it;
 * - a host with a static token whose `user_id` equals a signed-in user's id is another
 *   user: neither runs the other's approved call, and the signed-in user still cannot
 *   approve the static token's call (the gateway cannot tell whether they are one person).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { serveHttp, type HttpFace } from '../../src/gateway/http.js';
import { bearerHost, callTool, decideOn, hostToken, pendingOf, signInAt, startApproversIdp } from '../helpers/approvers.js';
import type { Idp } from '../helpers/idp.js';
import { freePort } from '../helpers/process.js';
import { ROOT } from '../helpers/reference.js';
import { BACKENDS, finishedRows, setupBackends } from '../helpers/stores.js';
import { text } from '../guards/university.js';

setupBackends();

const APPROVALS_TOKEN = 'approvals-token-0123456789abcdef';
const STATIC_TOKEN = 'static-token-of-S0003-0123456789';
const TOOL = 'raise_maintenance_request';
/** ann and bea approve every persona's calls; cara is a senior approver. */
const BEFORE = [{ claim: 'groups', includes: 'payments-approvers' }, { claim: 'groups', includes: 'senior-approvers' }];
/** The payments approvers now decide faculty calls only: ann no longer decides a student's. */
const AFTER = [{ when: { claim: 'groups', includes: 'payments-approvers' }, personas: ['faculty'] }, { claim: 'groups', includes: 'senior-approvers' }];

describe.each(BACKENDS)('approvals by the rules in force and user ids by where they come from (store on $kind)', (backend) => {
  let idp: Idp;
  let dir: string;
  let port: number;
  let base: string;
  let resource: string;
  const running: { gateway: Gateway; face: HttpFace }[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    resource = `${base}/mcp`;
    idp = await startApproversIdp(base, {
      sam: { groups: ['students'], preferred_username: 'S0001' },
      ann: { groups: ['staff', 'payments-approvers'], preferred_username: 'ann' },
      cara: { groups: ['staff', 'senior-approvers'], preferred_username: 'cara' },
      sue: { groups: ['students', 'payments-approvers'], preferred_username: 'S0003' },
    });
    dir = mkdtempSync(join(tmpdir(), 'tc-approvers-changed-'));
    const personas = { student: { identity: { student_id: '${user_id}' }, allow: ['hostel.*'], confirm: 'actions' }, faculty: { allow: ['hostel.get_*'], confirm: 'actions' } };
    writeFileSync(join(dir, 'personas.yaml'), JSON.stringify(personas));
  }, 300_000);

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
    for (const r of running.splice(0)) {
      await r.face.close();
      await r.gateway.close();
    }
  });

  afterAll(async () => {
    await idp?.close();
  });

  /** Writes `name`, a gateway config on `store` whose approvers are `approvers` (and a static token for user S0003). */
  function configFile(name: string, store: string, approvers: unknown[]): string {
    const config = {
      upstreams: { hostel: { command: process.execPath, args: [join(ROOT, 'dist/mock-servers/hostel.js')], env: { UNIVERSITY_DB: join(dir, `${name}.university.db`) } } },
      curator: { mode: 'none' },
      store,
      policy: { personas: join(dir, 'personas.yaml') },
      http: {
        approvals_token: APPROVALS_TOKEN,
        tokens: [{ token: STATIC_TOKEN, persona: 'student', user_id: 'S0003' }],
        oauth: { issuer: idp.issuer, resource, scopes: ['mcp:tools'], user_claim: 'preferred_username', personas: [{ persona: 'student', when: { claim: 'groups', includes: 'students' } }] },
      },
      confirmation: { wait_seconds: { stdio: 0, http: 0 }, approvers, approvers_sign_in: { client_id: 'tc-approvals' } },
      timeouts: { startup_ms: 120_000, list_wait_ms: 120_000, call_ms: 60_000 },
    };
    const file = join(dir, `${name}.gateway.config.yaml`);
    writeFileSync(file, JSON.stringify(config));
    return file;
  }

  /** Starts a gateway (a replica, when another runs on the same store) from `file`, serving HTTP on `on`; the resource stays the first replica's, as behind a load balancer. */
  async function start(file: string, on = port): Promise<Gateway> {
    const gateway = await Gateway.start(loadConfig(file), { noEmbedder: true });
    running.push({ gateway, face: await serveHttp(gateway, on, '127.0.0.1') });
    return gateway;
  }

  async function stop(gateway: Gateway): Promise<void> {
    const i = running.findIndex((r) => r.gateway === gateway);
    const [r] = running.splice(i, 1);
    await r!.face.close();
    await r!.gateway.close();
  }

  /** A host of `login` (a signed-in user) or with the static token, connected to the replica at `at`. */
  async function host(login: string | { static: true }, at = base): Promise<Client> {
    const client = await bearerHost(`${at}/mcp`, typeof login === 'string' ? await hostToken(idp, resource, login) : STATIC_TOKEN);
    clients.push(client);
    return client;
  }

  /** Signs `login` in on the approvals page and takes `verb` on request `id`; the page's answer. */
  async function decideAs(login: string, id: string, verb: 'approve' | 'deny'): Promise<Response> {
    const { browser, landed } = await signInAt(idp, base, login);
    expect(landed.status, await landed.clone().text()).toBe(303);
    return decideOn(browser, base, id, verb);
  }

  const ran = (result: Awaited<ReturnType<typeof callTool>>) => {
    expect(result.isError, text(result)).toBeFalsy();
    return JSON.parse(text(result)) as { request_id: number; category: string; status: string };
  };

  it("after a restart with rules that no longer cover the approver, their approval does not run the call; it is parked anew for an approver the rules cover", async () => {
    const store = await backend.fresh();
    const ARGS = { category: 'plumbing', description: 'the shower in room 3 drips' };
    let gateway = await start(configFile('restart-before', store, BEFORE));
    expect(text(await callTool(await host('sam'), TOOL, ARGS))).toContain("awaits a person's approval");
    const request = await pendingOf(gateway.store.approvals, 'S0001', ARGS);
    expect((await decideAs('ann', request.id, 'approve')).status).toBe(303);
    expect(await gateway.store.approvals.get(request.id)).toMatchObject({ status: 'approved', decidedBy: 'web:ann' });

    await stop(gateway);
    gateway = await start(configFile('restart-after', store, AFTER));
    const again = await callTool(await host('sam'), TOOL, ARGS);
    expect(text(again)).toContain("awaits a person's approval");
    expect((await gateway.store.approvals.get(request.id))?.status).toBe('approved');
    const parked = (await finishedRows(gateway.store, TOOL)).find((r) => r.notes?.includes(`approval ${request.id} ignored: ann is not an approver of persona student's calls under the confirmation.approvers in force`));
    expect(parked?.decision).toBe('awaiting_approval');
    const anew = await pendingOf(gateway.store.approvals, 'S0001', ARGS);
    expect(anew.id).not.toBe(request.id);

    // ann cannot decide it under the new rules; cara can, and then it runs once.
    expect((await decideAs('ann', anew.id, 'approve')).status).toBe(403);
    expect((await decideAs('cara', anew.id, 'approve')).status).toBe(303);
    expect(ran(await callTool(await host('sam'), TOOL, ARGS))).toMatchObject({ category: 'plumbing', status: 'open' });
    expect((await gateway.store.approvals.get(anew.id))?.status).toBe('used');
  }, 300_000);

  it("a replica of the fleet whose rules no longer cover the approver does not run a call another replica's page approved", async () => {
    const store = await backend.fresh();
    const ARGS = { category: 'electrical', description: 'the lamp in room 5 flickers' };
    // The page is the first replica's (its rules cover ann); the host's session is on the second.
    const first = await start(configFile('fleet-before', store, BEFORE));
    const secondPort = await freePort();
    const second = await start(configFile('fleet-after', store, AFTER), secondPort);
    const sam = await host('sam', `http://127.0.0.1:${secondPort}`);
    expect(text(await callTool(sam, TOOL, ARGS))).toContain("awaits a person's approval");
    const request = await pendingOf(first.store.approvals, 'S0001', ARGS);
    expect((await decideAs('ann', request.id, 'approve')).status).toBe(303);

    expect(text(await callTool(sam, TOOL, ARGS))).toContain("awaits a person's approval");
    expect((await second.store.approvals.get(request.id))?.status).toBe('approved');
    const notes = (await finishedRows(second.store, TOOL)).flatMap((r) => r.notes ?? []);
    expect(notes).toContain(`approval ${request.id} ignored: ann is not an approver of persona student's calls under the confirmation.approvers in force`);
    const anew = await pendingOf(second.store.approvals, 'S0001', ARGS);
    expect((await decideAs('cara', anew.id, 'approve')).status).toBe(303);
    expect(ran(await callTool(sam, TOOL, ARGS))).toMatchObject({ category: 'electrical' });
  }, 300_000);

  it('a reload that narrows the approvers rules applies at once: the page refuses the approver, and their approval given before does not run the call', async () => {
    const store = await backend.fresh();
    const ARGS = { category: 'plumbing', description: 'the radiator valve in room 7 leaks' };
    const file = configFile('reload', store, BEFORE);
    const gateway = await start(file);
    const sam = await host('sam');
    expect(text(await callTool(sam, TOOL, ARGS))).toContain("awaits a person's approval");
    const request = await pendingOf(gateway.store.approvals, 'S0001', ARGS);
    expect((await decideAs('ann', request.id, 'approve')).status).toBe(303);

    expect(configFile('reload', store, AFTER)).toBe(file);
    expect(await gateway.reload()).toEqual({ applied: ['confirmation.approvers'], restart: [], widened: [] });
    expect(text(await callTool(sam, TOOL, ARGS))).toContain("awaits a person's approval");
    const notes = (await finishedRows(gateway.store, TOOL)).flatMap((r) => r.notes ?? []);
    expect(notes).toContain(`approval ${request.id} ignored: ann is not an approver of persona student's calls under the confirmation.approvers in force`);
    const anew = await pendingOf(gateway.store.approvals, 'S0001', ARGS);
    const refused = await decideAs('ann', anew.id, 'approve');
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('You (ann) may not decide calls made as persona student');
    expect((await decideAs('cara', anew.id, 'approve')).status).toBe(303);
    expect(ran(await callTool(sam, TOOL, ARGS))).toMatchObject({ category: 'plumbing' });

    // Removing the approvers changes how the page signs people in: that waits for a restart, and the rules stay.
    configFile('reload', store, []);
    await expect(gateway.reload()).rejects.toThrow(/confirmation\.approvers: name at least one rule/);
    const withoutApprovers = JSON.parse(readFileSync(file, 'utf8')) as { confirmation: Record<string, unknown> };
    delete withoutApprovers.confirmation.approvers;
    writeFileSync(file, JSON.stringify(withoutApprovers));
    expect(await gateway.reload()).toEqual({ applied: [], restart: ['confirmation'], widened: [] });
    expect(gateway.loaded.config.confirmation.approvers).toHaveLength(2);
  }, 300_000);

  it("a static token's user S0003 and the signed-in user S0003 are two users: neither runs the other's approved call, and the signed-in one cannot approve the static one's", async () => {
    const store = await backend.fresh();
    const ARGS = { category: 'furniture', description: 'the wardrobe door in room 9 is off' };
    const gateway = await start(configFile('namespaces', store, BEFORE));
    const byToken = await host({ static: true });
    const signedIn = await host('sue');

    expect(text(await callTool(byToken, TOOL, ARGS))).toContain("awaits a person's approval");
    const tokens = await pendingOf(gateway.store.approvals, 'S0003', ARGS);
    // sue signs in as S0003: the gateway cannot tell whether the token's S0003 is her, so she may not approve it.
    const refused = await decideAs('sue', tokens.id, 'approve');
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain(`Request ${tokens.id} is your own call`);
    expect((await decideAs('ann', tokens.id, 'approve')).status).toBe(303);

    // The signed-in S0003's identical call is hers, not the token's: it is parked, not run on the token's approval.
    expect(text(await callTool(signedIn, TOOL, ARGS))).toContain("awaits a person's approval");
    expect((await gateway.store.approvals.get(tokens.id))?.status).toBe('approved');
    const hers = await pendingOf(gateway.store.approvals, 'S0003', ARGS);
    expect(hers.id).not.toBe(tokens.id);
    expect(ran(await callTool(byToken, TOOL, ARGS))).toMatchObject({ category: 'furniture' });
    expect((await gateway.store.approvals.get(tokens.id))?.status).toBe('used');

    // And the other way: her approved call is not the token's.
    expect((await decideAs('sue', hers.id, 'approve')).status).toBe(403);
    expect((await decideAs('cara', hers.id, 'approve')).status).toBe(303);
    expect(text(await callTool(byToken, TOOL, ARGS))).toContain("awaits a person's approval");
    expect((await gateway.store.approvals.get(hers.id))?.status).toBe('approved');
    expect(ran(await callTool(signedIn, TOOL, ARGS))).toMatchObject({ category: 'furniture' });
    expect((await gateway.store.approvals.get(hers.id))?.status).toBe('used');
  }, 300_000);
});
