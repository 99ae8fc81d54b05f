/**
 * The guards over Streamable HTTP: the bearer token decides persona and user (401
 * without a valid one), and a person approves a parked call on the gateway's approvals
 * page, opened in headless Chromium (the Debian `chromium` package, driven by
 * playwright-core; CHROMIUM_PATH overrides /usr/bin/chromium). Without Chromium the
 * browser test is skipped, and says why, except in CI (CI=true), where it runs and fails.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, spawnUntil } from '../helpers/process.js';
import { CLI } from '../helpers/reference.js';
import { approvalId, text, universityConfig } from './university.js';

const STUDENT_TOKEN = 'student-token-0123456789abcdef';
const APPROVALS_TOKEN = 'approvals-token-0123456789abcdef';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const IN_CI = process.env.CI === 'true';
const SKIP_BROWSER = !existsSync(CHROMIUM) && !IN_CI;
const NO_CHROMIUM = `no Chromium at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH`;
if (SKIP_BROWSER) console.warn(`integration.http.test.ts: SKIPPING the approvals-page browser test, ${NO_CHROMIUM} (with CI=true it runs and fails instead)`);

describe('a student over Streamable HTTP; the approvals page in Chromium', () => {
  let gateway: ChildProcess;
  let base: string;
  let browser: Browser;
  const clients: Client[] = [];

  beforeAll(async () => {
    const { configPath } = universityConfig({
      http: {
        tokens: [{ token: '${TC_STUDENT_TOKEN}', persona: 'student', user_id: 'S0001' }],
        approvals_token: '${TC_APPROVALS_TOKEN}',
      },
    });
    const port = await freePort();
    const env = { TC_STUDENT_TOKEN: STUDENT_TOKEN, TC_APPROVALS_TOKEN: APPROVALS_TOKEN, TOOL_CURATOR_LOG: 'info' };
    gateway = (await spawnUntil(process.execPath, [CLI, 'serve', '--config', configPath, '--http', String(port)], /serving MCP over Streamable HTTP/, env)).child;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await browser?.close();
    gateway?.kill();
  });

  async function connect(token: string, capabilities: Record<string, unknown> = {}): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    const client = new Client({ name: 'http-host', version: '1.0.0' }, { capabilities });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  it('an MCP request without a token, or with a wrong one, gets HTTP 401', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const none = await fetch(`${base}/mcp`, { method: 'POST', headers, body: JSON.stringify(init) });
    expect(none.status).toBe(401);
    const wrong = await fetch(`${base}/mcp`, { method: 'POST', headers: { ...headers, authorization: 'Bearer wrong-token-0123456789abcdef' }, body: JSON.stringify(init) });
    expect(wrong.status).toBe(401);
    await expect(connect('wrong-token-0123456789abcdef')).rejects.toThrow(/unauthorized: the bearer token is not valid/);
  });

  it('the token decides the identity: a forged student_id is overwritten with the token user', async () => {
    const client = await connect(STUDENT_TOKEN);
    const r = await client.callTool({ name: 'get_attendance_summary', arguments: { student_id: 'S0002' } });
    expect(JSON.parse(text(r)).student_id).toBe('S0001');
    const admin = await client.callTool({ name: 'deactivate_user_account', arguments: { user_id: 'S0002', reason: 'x' } });
    expect(text(admin)).toBe('tool deactivate_user_account is not available to persona student; call find_tools to see the tools you may use');
  });

  it("the approvals page refuses no token, a wrong one, and the host's own token", async () => {
    expect((await fetch(`${base}/approvals`)).status).toBe(401);
    expect((await fetch(`${base}/approvals?token=wrong-token-0123456789abcdef`, { redirect: 'manual' })).status).toBe(401);
    expect((await fetch(`${base}/approvals`, { headers: { authorization: `Bearer ${STUDENT_TOKEN}` } })).status).toBe(401);
  });

  it('a host token whose client auto-accepts elicitation cannot self-approve: HTTP confirms through approvals by default', async () => {
    const client = await connect(STUDENT_TOKEN, { elicitation: {} });
    let asked = 0;
    client.setRequestHandler('elicitation/create', async () => {
      asked++;
      return { action: 'accept', content: { confirm: true } };
    });
    const call = { name: 'raise_maintenance_request', arguments: { category: 'electrical', description: 'self-accepted socket' } };
    const r = await client.callTool(call);
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(new RegExp(`awaits a person's approval \\(approval id [a-z0-9]+\\); it has not run\\. Ask the user to review and approve this call on the approvals page \\(${base}/approvals\\)`));
    expect(asked).toBe(0);
    const status = await client.callTool({ name: 'call_tool', arguments: { name: 'get_maintenance_request_status', arguments: {} } });
    expect(text(status)).not.toContain('self-accepted socket');
  });

  it.skipIf(SKIP_BROWSER)(`lists a pending call; a person approves it in the browser; the retry runs once${SKIP_BROWSER ? ` (skipped: ${NO_CHROMIUM})` : ''}`, async () => {
    if (!existsSync(CHROMIUM)) throw new Error(NO_CHROMIUM);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    const client = await connect(STUDENT_TOKEN);
    const call = { name: 'raise_maintenance_request', arguments: { category: 'electrical', description: 'web-approved flickering light' } };
    const id = approvalId(await client.callTool(call));

    // The model's side cannot approve it: its bearer token is not the approvals token.
    const forged = await fetch(`${base}/approvals/${id}/approve`, { method: 'POST', headers: { authorization: `Bearer ${STUDENT_TOKEN}` } });
    expect(forged.status).toBe(401);

    const page = await browser.newPage();
    await page.goto(`${base}/approvals?token=${APPROVALS_TOKEN}`);
    expect(new URL(page.url()).search).toBe(''); // the token left the address bar
    const row = page.locator(`#pending tr[data-id="${id}"]`);
    await expect(row.textContent()).resolves.toContain('raise_maintenance_request');
    await expect(row.textContent()).resolves.toContain('"description": "web-approved flickering light"');
    await expect(row.textContent()).resolves.toContain('"student_id": "S0001"');
    await expect(row.textContent()).resolves.toContain('student, user S0001');
    await expect(row.textContent()).resolves.toContain('hostel, its tool raise_maintenance_request');

    await row.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL(`${base}/approvals?done=${id}`);
    expect(await page.locator('#message').textContent()).toBe(`Approved ${id} (raise_maintenance_request).`);
    expect(await page.locator(`#recent tr[data-id="${id}"] .status`).textContent()).toBe('approved');
    expect(await page.locator(`#pending tr[data-id="${id}"]`).count()).toBe(0);
    await page.close();

    const retry = await client.callTool(call);
    expect(retry.isError).toBeFalsy();
    const again = await client.callTool(call);
    expect(approvalId(again)).not.toBe(id);
    const status = await client.callTool({ name: 'call_tool', arguments: { name: 'get_maintenance_request_status', arguments: {} } });
    expect(text(status).split('web-approved flickering light').length - 1).toBe(1);
  });
});
