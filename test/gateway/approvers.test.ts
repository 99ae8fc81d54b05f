/**
 * Approvers are people of the organisation's identity provider (`confirmation.approvers`
 * beside `http.oauth`), end to end on loopback: a real OpenID provider (oidc-provider)
 * that hosts and the approvals page sign in with, the hostel server as the upstream, the
 * gateway's HTTP face in process and SDK clients as hosts with tokens the provider issued
 * them (authorization code + PKCE). An approver signs in through the browser flow and
 * approves a parked call, which then runs with exactly its arguments; a signed-in person
 * no rule names gets 403; the host's own bearer token — of a user in the approvers'
 * group, same provider, same audience — approves nothing; a user cannot approve their
 * own call; an approver for another persona cannot decide this one; the store row, the
 * audit row and `approvals show` name the approver. On both store backends.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type LoadedConfig } from '../../src/config/load.js';
import { approvalsPage } from '../../src/pages/approvals.js';
import { ApproverSessions } from '../../src/pages/approverSignIn.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { createHostAuth } from '../../src/host/auth/index.js';
import { serveHttp, type HttpFace } from '../../src/host/http.js';
import { definitionProofValid } from '../../src/guards/acceptance.js';
import { approvalsCommand } from '../../src/guards/commands.js';
import { storeLocation } from '../../src/config/store.js';
import { openStore } from '../../src/store/index.js';
import type { Approval, Store } from '../../src/store/types.js';
import { bearerHost, callTool, decideOn, hostToken as tokenOf, pendingOf as pendingIn, signInAt, startApproversIdp } from '../helpers/approvers.js';
import { Browser } from '../helpers/browser.js';
import type { Idp } from '../helpers/idp.js';
import { freePort } from '../helpers/process.js';
import { ROOT } from '../helpers/reference.js';
import { BACKENDS, setupBackends } from '../helpers/stores.js';
import { text } from '../guards/university.js';

setupBackends();

const APPROVALS_TOKEN = 'approvals-token-0123456789abcdef';

describe.each(BACKENDS)('approvers signed in with the identity provider (store on $kind)', (backend) => {
  let idp: Idp;
  let loaded: LoadedConfig;
  let gateway: Gateway;
  let face: HttpFace;
  let base: string;
  let resource: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    resource = `${base}/mcp`;
    idp = await startApproversIdp(base, {
      sam: { groups: ['students'], preferred_username: 'S0001' },
      bea: { groups: ['students', 'payments-approvers'], preferred_username: 'S0002' },
      ann: { groups: ['staff', 'payments-approvers'], preferred_username: 'ann' },
      fay: { groups: ['staff', 'faculty-approvers'], preferred_username: 'fay' },
      tom: { groups: ['staff'], preferred_username: 'tom' },
    });
    const dir = mkdtempSync(join(tmpdir(), 'tc-approvers-'));
    const personas = { student: { identity: { student_id: '${user_id}' }, allow: ['hostel.*'], confirm: 'actions' }, faculty: { allow: ['hostel.get_*'], confirm: 'actions' } };
    writeFileSync(join(dir, 'personas.yaml'), JSON.stringify(personas));
    const config = {
      upstreams: { hostel: { command: process.execPath, args: [join(ROOT, 'dist/mock-servers/hostel.js')], env: { UNIVERSITY_DB: join(dir, 'university.db') } } },
      curator: { mode: 'none' },
      store: await backend.fresh(),
      policy: { personas: join(dir, 'personas.yaml') },
      http: {
        approvals_token: APPROVALS_TOKEN,
        oauth: { issuer: idp.issuer, resource, scopes: ['mcp:tools'], user_claim: 'preferred_username', personas: [{ persona: 'student', when: { claim: 'groups', includes: 'students' } }] },
      },
      confirmation: {
        // A parked call answers at once: the host calls again once it is approved.
        wait_seconds: { stdio: 0, http: 0 },
        approvers: [{ claim: 'groups', includes: 'payments-approvers' }, { when: { claim: 'groups', includes: 'faculty-approvers' }, personas: ['faculty'] }],
        approvers_sign_in: { client_id: 'tc-approvals' },
      },
      timeouts: { startup_ms: 120_000, list_wait_ms: 120_000, call_ms: 60_000 },
    };
    writeFileSync(join(dir, 'gateway.config.yaml'), JSON.stringify(config));
    loaded = loadConfig(join(dir, 'gateway.config.yaml'));
    gateway = await Gateway.start(loaded, { noEmbedder: true });
    face = await serveHttp(gateway, port, '127.0.0.1');
  }, 300_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await face?.close();
    await gateway?.close();
    await idp?.close();
  });

  const hostToken = (login: string) => tokenOf(idp, resource, login);
  async function host(token: string): Promise<Client> {
    const client = await bearerHost(resource, token);
    clients.push(client);
    return client;
  }
  const call = callTool;
  const pendingOf = (user: string, args: Record<string, unknown>): Promise<Approval> => pendingIn(gateway.store.approvals, user, args);
  /** A browser signed in on the approvals page as `login`; `page` serves the page (default: the gateway's). */
  const signIn = (login: string, page = base, browser = new Browser()) => signInAt(idp, base, login, page, browser);
  const decide = (browser: Browser, id: string, verb: 'approve' | 'deny') => decideOn(browser, base, id, verb);

  let sam: Client;
  let beaToken: string;
  let bea: Client;
  const ARGS = { category: 'plumbing', description: 'the tap in room 12 leaks' };

  it("the host's own token, of a user in the approvers' group, approves nothing", async () => {
    sam = await host(await hostToken('sam'));
    const parked = await call(sam, 'raise_maintenance_request', ARGS);
    expect(text(parked)).toContain("raise_maintenance_request awaits a person's approval");
    const request = await pendingOf('S0001', ARGS);
    beaToken = await hostToken('bea');
    // The token works for MCP: bea's host is signed in, and she is in the approvers' group.
    bea = await host(beaToken);
    for (const attempt of [
      fetch(`${base}/approvals`, { headers: { authorization: `Bearer ${beaToken}` }, redirect: 'manual' }),
      fetch(`${base}/approvals/${request.id}/approve`, { method: 'POST', headers: { authorization: `Bearer ${beaToken}` }, redirect: 'manual' }),
      fetch(`${base}/approvals/${request.id}/approve`, { method: 'POST', headers: { authorization: `Bearer ${APPROVALS_TOKEN}` }, redirect: 'manual' }),
      fetch(`${base}/approvals?token=${APPROVALS_TOKEN}`, { headers: { authorization: `Bearer ${beaToken}` }, redirect: 'manual' }),
    ]) {
      const r = await attempt;
      expect(r.status).toBe(401);
      expect(await r.text()).toContain('accepts no bearer token');
    }
    // As a page sign-in, the page's check refuses it: it was issued to the host's client.
    const signIn = createHostAuth(loaded)!.browserAs({ client_id: 'tc-approvals' });
    await expect(signIn.check(beaToken)).rejects.toThrow('issued to client "test-host", not to this page\'s client "tc-approvals"');
    expect((await gateway.store.approvals.get(request.id))?.status).toBe('pending');
  }, 300_000);

  it('an approver signs in through the browser and approves; the parked call then runs with exactly its arguments', async () => {
    const request = await pendingOf('S0001', ARGS);
    const { browser, landed } = await signIn('ann');
    expect(landed.status, await landed.clone().text()).toBe(303);
    expect(landed.headers.get('location')).toBe('/approvals');
    const cookie = landed.headers.getSetCookie().find((c) => c.startsWith('tc_approver='))!;
    expect(cookie).toMatch(/^tc_approver=[\w-]+; Path=\/approvals; HttpOnly; SameSite=Lax; Max-Age=1800$/);
    const html = await (await browser.get(`${base}/approvals`)).text();
    expect(html).toContain('Signed in as ann.');
    // A form without the session's CSRF field decides nothing.
    expect((await browser.post(`${base}/approvals/${request.id}/approve`, { csrf: 'forged' })).status).toBe(403);
    const approved = await decide(browser, request.id, 'approve');
    expect(approved.status, await approved.clone().text()).toBe(303);
    expect(await gateway.store.approvals.get(request.id)).toMatchObject({ status: 'approved', decidedBy: 'web:ann' });
    expect((await gateway.store.approvals.get(request.id))!.proof).toMatch(/^idp:\d+:/);

    // Other arguments are another call: not approved by this.
    const other = await call(sam, 'raise_maintenance_request', { ...ARGS, description: 'the tap in room 13 leaks' });
    expect(text(other)).not.toContain('request_id');
    const ran = await call(sam, 'raise_maintenance_request', ARGS);
    expect(ran.isError, text(ran)).toBeFalsy();
    const result = JSON.parse(text(ran)) as { request_id: number; category: string; status: string };
    expect(result).toMatchObject({ category: 'plumbing', status: 'open' });
    const status = JSON.parse(text(await call(sam, 'get_maintenance_request_status', {}))) as { request_id: number; description: string }[];
    expect(status.find((r) => r.request_id === result.request_id)?.description).toBe(ARGS.description);

    expect((await gateway.store.approvals.get(request.id))?.status).toBe('used');
    const audit = (await gateway.store.audit.tail(50)).filter((r) => r.tool === 'raise_maintenance_request' && r.decision === 'approved');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ userId: 'S0001', persona: 'student', args: { ...ARGS, student_id: 'S0001' }, outcome: 'ok' });
    expect(audit[0]!.notes).toContain(`approval ${request.id} by web:ann`);

    const out: string[] = [];
    expect(await approvalsCommand(['show', request.id], gateway.store, '/nonexistent/approver.key', { out: (s) => void out.push(s), err: () => undefined })).toBe(0);
    expect(out.join('')).toContain('decided by    ann (the approvals page, signed in with the identity provider)');
  }, 300_000);

  it("a changed tool definition accepted on the page is signed for the approver's id; a store write naming another approver voids it", async () => {
    // A definition change waiting for a person, as the pins record one (the tool is made up: no upstream serves it).
    await gateway.store.definitions.pinIfAbsent({ server: 'hostel', upstreamName: 'archive_notice', digest: 'sha256:old', definition: '{"name":"archive_notice"}' });
    await gateway.store.definitions.markChanged('hostel', 'archive_notice', 'sha256:new', '{"name":"archive_notice","description":"Archives a notice."}');
    const { browser, landed } = await signIn('ann');
    expect(landed.status).toBe(303);
    const html = await (await browser.get(`${base}/approvals`)).text();
    const csrf = /action="\/approvals\/definitions\/accept"><input type="hidden" name="csrf" value="([^"]+)">/.exec(html)?.[1];
    expect(csrf, html).toBeDefined();
    const accepted = await browser.post(`${base}/approvals/definitions/accept`, { csrf: csrf!, server: 'hostel', tool: 'archive_notice', digest: 'sha256:new' });
    expect(await accepted.text()).toContain('Accepted the new definition of archive_notice (upstream hostel).');
    const pin = (await gateway.store.definitions.get('hostel', 'archive_notice'))!;
    expect(pin).toMatchObject({ status: 'accepted', digest: 'sha256:new', decidedBy: 'web:ann' });
    // Signed with its time and the claims the rules read (guards/acceptance.ts).
    expect(pin.proof).toMatch(new RegExp(`^idp:${pin.decidedAt}:[A-Za-z0-9+/=]+:${Buffer.from('{"groups":["staff","payments-approvers"]}').toString('base64url')}$`));
    const keyPath = '/nonexistent/approver.key';
    expect(definitionProofValid(pin, keyPath, APPROVALS_TOKEN)).toBe(true);
    expect(definitionProofValid({ ...pin, decidedBy: 'web:fay' }, keyPath, APPROVALS_TOKEN)).toBe(false);
    expect(definitionProofValid({ ...pin, decidedBy: 'web' }, keyPath, APPROVALS_TOKEN)).toBe(false);
    expect(definitionProofValid({ ...pin, proof: `${pin.proof}:${Buffer.from('{"groups":["x"]}').toString('base64url')}` }, keyPath, APPROVALS_TOKEN)).toBe(false);
    expect((await gateway.store.audit.tail(5)).find((r) => r.tool === 'archive_notice')?.notes).toEqual(['changed definition of upstream hostel accepted by a person (web:ann)']);
  }, 300_000);

  it('a signed-in person no approvers rule names gets 403, and no session', async () => {
    const { landed } = await signIn('tom');
    expect(landed.status).toBe(403);
    expect(await landed.text()).toContain('You signed in as tom, who is not an approver on this gateway: no rule of confirmation.approvers matches (claims seen: groups=[&#34;staff&#34;])');
    expect(landed.headers.getSetCookie().some((c) => c.startsWith('tc_approver='))).toBe(false);
  }, 300_000);

  it("an approver for another persona's calls cannot decide this one", async () => {
    const electrical = { ...ARGS, category: 'electrical' };
    expect(text(await call(sam, 'raise_maintenance_request', electrical))).toContain('awaits');
    const request = await pendingOf('S0001', electrical);
    const { browser, landed } = await signIn('fay');
    expect(landed.status).toBe(303);
    const refused = await decide(browser, request.id, 'approve');
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('You (fay) may not decide calls made as persona student');
    expect((await gateway.store.approvals.get(request.id))?.status).toBe('pending');
  }, 300_000);

  it('a user cannot approve their own call (by default), may deny it, and the denial is theirs', async () => {
    const drawer = { category: 'furniture', description: 'my desk drawer is stuck' };
    expect(text(await call(bea, 'raise_maintenance_request', drawer))).toContain('awaits');
    const request = await pendingOf('S0002', drawer);
    const { browser, landed } = await signIn('bea');
    expect(landed.status).toBe(303);
    const refused = await decide(browser, request.id, 'approve');
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain(`Request ${request.id} is your own call (student, signed-in user &#34;S0002&#34; (${idp.issuer})), and another approver must approve it`);
    expect((await gateway.store.approvals.get(request.id))?.status).toBe('pending');
    const denied = await decide(browser, request.id, 'deny');
    expect(denied.status).toBe(303);
    expect(await gateway.store.approvals.get(request.id)).toMatchObject({ status: 'denied', decidedBy: 'web:S0002' });
    expect(text(await call(bea, 'raise_maintenance_request', drawer))).toContain('a person denied raise_maintenance_request');
  }, 300_000);

  it('signing out ends the session: the page then sends the browser to the identity provider again', async () => {
    const { browser, landed } = await signIn('ann');
    expect(landed.status).toBe(303);
    const html = await (await browser.get(`${base}/approvals`)).text();
    const csrf = /action="\/approvals\/signout"><input type="hidden" name="csrf" value="([^"]+)">/.exec(html)![1]!;
    expect((await browser.post(`${base}/approvals/signout`, { csrf: 'forged' })).status).toBe(403);
    const out = await browser.post(`${base}/approvals/signout`, { csrf });
    expect(out.status).toBe(200);
    expect(await out.text()).toContain('Signed out.');
    expect(browser.cookies(base).has('tc_approver')).toBe(false);
    expect((await browser.get(`${base}/approvals`)).status).toBe(302);
  }, 300_000);

  /** An approvals page as one replica serves it, on `store`, its sessions' clock `now`; `maxSessions` as given. */
  function replicaPage(store: Store, now?: () => number, maxSessions?: number) {
    const sessions = new ApproverSessions({
      signIn: createHostAuth(loaded)!.browserAs({ client_id: 'tc-approvals' }),
      rules: () => loaded.config.confirmation.approvers!,
      mayApproveOwn: () => false,
      issuer: idp.issuer,
      base,
      sessionMinutes: 1,
      flows: store.oauth,
      ...(maxSessions !== undefined && { maxSessions }),
      ...(now && { now }),
    });
    return approvalsPage(store.approvals, APPROVALS_TOKEN, undefined, sessions);
  }

  /** Serves `pages` on one loopback address, each request to the next page in turn (a load balancer without stickiness). */
  async function roundRobin(pages: ReturnType<typeof replicaPage>[]): Promise<{ url: string; close: () => Promise<void> }> {
    let next = 0;
    const server = createServer((req, res) => void (pages[next++ % pages.length]!(req, res) || res.writeHead(404).end()));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
  }

  it('sessions are bounded in number (the oldest ends) and in time (then the approver signs in again)', async () => {
    let clock = Date.now();
    // A store of its own: the bound counts every session in the store, the gateway's included.
    const own = await openStore(join(mkdtempSync(join(tmpdir(), 'tc-approver-sessions-')), 'store.db'));
    const served = await roundRobin([replicaPage(own, () => clock, 2)]);
    try {
      const signedIn = [];
      for (const login of ['ann', 'fay', 'ann']) {
        clock += 1000;
        const { browser, landed } = await signIn(login, served.url);
        expect(landed.status).toBe(303);
        signedIn.push(browser);
      }
      const status = async (b: Browser) => (await b.get(`${served.url}/approvals`)).status;
      expect(await Promise.all(signedIn.map(status))).toEqual([302, 200, 200]);
      clock += 61_000;
      expect(await Promise.all(signedIn.slice(1).map(status))).toEqual([302, 302]);
    } finally {
      await served.close();
      await own.close();
    }
  }, 300_000);

  it('in a fleet without sticky routing, a sign-in started on one replica finishes on another, every replica knows the session, and signing out on one ends it on all', async () => {
    const second = await openStore(storeLocation(loaded));
    const served = await roundRobin([replicaPage(gateway.store), replicaPage(second)]);
    try {
      // Started on the first replica (the redirect to the provider), finished on the second (the callback).
      const { browser, landed } = await signIn('ann', served.url);
      expect(landed.status, await landed.clone().text()).toBe(303);
      const pages = [await browser.get(`${served.url}/approvals`), await browser.get(`${served.url}/approvals`)];
      expect(pages.map((r) => r.status)).toEqual([200, 200]);
      const html = await pages[0]!.text();
      expect(html).toContain('Signed in as ann.');
      const csrf = /action="\/approvals\/signout"><input type="hidden" name="csrf" value="([^"]+)">/.exec(html)![1]!;
      expect(await pages[1]!.text()).toContain(`value="${csrf}"`);
      expect((await browser.post(`${served.url}/approvals/signout`, { csrf })).status).toBe(200);
      // The cookie would be gone in a real browser; kept here, it opens nothing on either replica.
      const stolen = new Browser({ [served.url]: { tc_approver: landed.headers.getSetCookie().find((c) => c.startsWith('tc_approver='))!.split(';')[0]!.slice('tc_approver='.length) } });
      expect([(await stolen.get(`${served.url}/approvals`)).status, (await stolen.get(`${served.url}/approvals`)).status]).toEqual([302, 302]);
    } finally {
      await served.close();
      await second.close();
    }
  }, 300_000);
});
