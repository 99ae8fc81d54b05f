import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { approvalsPage } from '../../src/gateway/approvalsPage.js';
import { approverCheck } from '../../src/guards/approver.js';
import { openStore, type Approval, type ApprovalsPart, type Store } from '../../src/store/index.js';

const TOKEN = 'approvals-token-0123456789';
let t = 1_000_000;
let opened: Store;
let store: ApprovalsPart;
let server: Server;
let base: string;

beforeAll(async () => {
  opened = await openStore(':memory:', { now: () => t });
  store = opened.approvals;
  const handler = approvalsPage(store, TOKEN);
  server = createServer((req, res) => {
    if (!handler(req, res)) res.writeHead(418).end('not mine');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await opened.close();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(base + path, { headers, redirect: 'manual' });
const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(base + path, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, redirect: 'manual' });

async function login(): Promise<string> {
  const res = await get(`/approvals?token=${TOKEN}`);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

async function csrfOf(cookie: string): Promise<string> {
  const html = await (await get('/approvals', { cookie })).text();
  return /name="csrf" value="([^"]+)"/.exec(html)![1]!;
}

let pending: Approval;
beforeEach(async () => {
  pending = await store.request({
    key: `k${t}`,
    sessionId: 's1',
    persona: 'student',
    userId: 'S0001',
    tool: 'make_payment',
    args: { amount: 100, memo: '<script>alert(1)</script>' },
    ttlMs: 600_000,
  });
});

describe('approvals page', () => {
  test('a corrected call shows the name the model asked for beside the tool', async () => {
    const corrected = await store.request({ key: `kc${t}`, sessionId: 's1', tool: 'make_payment', requestedName: 'make_paymnt', args: {}, ttlMs: 600_000 });
    const html = await (await get('/approvals', { cookie: await login() })).text();
    expect(html).toContain(`<tr data-id="${corrected.id}"><td>${corrected.id}</td><td>make_payment<br><small class="asked">the model asked for make_paymnt</small></td>`);
  });

  test('other paths are left to the caller', async () => {
    expect((await get('/mcp')).status).toBe(418);
    expect((await get('/approvalsx')).status).toBe(418);
  });

  test('without a token, or with a wrong one, 401', async () => {
    expect((await get('/approvals')).status).toBe(401);
    expect((await get('/approvals?token=wrong-token-0123456789')).status).toBe(401);
    expect((await get('/approvals', { cookie: 'tool_curator_approvals=forged' })).status).toBe(401);
    expect((await post(`/approvals/${pending.id}/approve`, '')).status).toBe(401);
    expect((await store.get(pending.id))?.status).toBe('pending');
  });

  test('?token= sets an HttpOnly SameSite=Strict cookie that is not the token, and drops the token from the URL', async () => {
    const res = await get(`/approvals?token=${TOKEN}`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/approvals');
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^tool_curator_approvals=[\w-]+; HttpOnly; SameSite=Strict; Path=\/approvals$/);
    expect(cookie).not.toContain(TOKEN);
  });

  test('lists the pending call with its arguments, escaped', async () => {
    const res = await get('/approvals', { cookie: await login() });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).toContain(`<tr data-id="${pending.id}"><td>${pending.id}</td><td>make_payment</td><td>student S0001</td>`);
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).not.toContain('<script>');
  });

  test('approve needs the CSRF field; with it the call is approved by "web"', async () => {
    const cookie = await login();
    expect((await post(`/approvals/${pending.id}/approve`, 'csrf=nope', { cookie })).status).toBe(403);
    expect((await store.get(pending.id))?.status).toBe('pending');
    const res = await post(`/approvals/${pending.id}/approve`, `csrf=${await csrfOf(cookie)}`, { cookie });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/approvals?done=${pending.id}`);
    expect(await store.get(pending.id)).toMatchObject({ status: 'approved', decidedBy: 'web' });
    // Signed with the approvals token: the gateway honours it; a gateway with another token does not.
    expect(approverCheck('/nonexistent/approver.key', () => TOKEN).verifies((await store.get(pending.id))!)).toBe(true);
    expect(approverCheck('/nonexistent/approver.key', () => 'another-token-0123456789').verifies((await store.get(pending.id))!)).toBe(false);
    const after = await (await get(res.headers.get('location')!, { cookie })).text();
    expect(after).toContain(`Approved ${pending.id} (make_payment).`);
  });

  test('a cross-origin or opaque-origin POST is refused even with the CSRF field', async () => {
    const cookie = await login();
    const csrf = await csrfOf(cookie);
    for (const origin of ['http://evil.example', 'null']) {
      const res = await post(`/approvals/${pending.id}/deny`, `csrf=${csrf}`, { cookie, origin });
      expect(res.status, origin).toBe(403);
    }
    expect((await store.get(pending.id))?.status).toBe('pending');
  });

  test('a bearer header works without a cookie (scripts)', async () => {
    const res = await post(`/approvals/${pending.id}/deny`, '', { authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(303);
    expect((await store.get(pending.id))?.status).toBe('denied');
  });

  test('an expired request cannot be approved: 409 with the reason', async () => {
    const cookie = await login();
    const csrf = await csrfOf(cookie);
    t += 600_000;
    const res = await post(`/approvals/${pending.id}/approve`, `csrf=${csrf}`, { cookie });
    expect(res.status).toBe(409);
    expect(await res.text()).toContain(`approval request ${pending.id} expired`);
  });
});
