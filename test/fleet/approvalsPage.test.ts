/**
 * The approvals page of a fleet needs no sticky routing: two `serve --http` replicas (real
 * processes) on one PostgreSQL database, approvers signed in with a real OpenID provider
 * (oidc-provider, in the test). An approver's sign-in starts on one replica and comes back
 * to the other, the page of either knows the session, and a decision posted to the other
 * replica than the one that showed the page runs the host's parked call; then the same
 * through HAProxy, which sends /approvals round robin (only MCP sessions are sticky).
 * Sign-ins and sessions live in the store (docs/AUTH.md, docs/FLEET.md). Needs the
 * `haproxy` binary and TOOL_CURATOR_TEST_PG (.ci/run provides both).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approversIdpOnFreePort, decideOn, signInAt } from '../helpers/approvers.js';
import { Browser } from '../helpers/browser.js';
import { Fleet, skipFleet, type FleetHost } from '../helpers/fleet.js';
import type { Idp } from '../helpers/idp.js';
import { createDatabase, dropDatabase } from '../helpers/pgDatabase.js';
import { ROOT } from '../helpers/reference.js';

const skip = skipFleet('approvalsPage.test.ts', { postgres: true });
const TOOL = 'raise_maintenance_request';

describe.skipIf(skip)('the approvals page across two replicas on PostgreSQL, no sticky routing', () => {
  let idp: Idp;
  let fleet: Fleet;
  let host: FleetHost;
  let base: string;
  let database: { name: string; url: string };
  const dir = mkdtempSync(join(tmpdir(), 'tc-fleet-approvals-'));

  beforeAll(async () => {
    // The load balancer's address is the page's public one: the provider sends browsers back to it.
    let port: number;
    ({ port, base, idp } = await approversIdpOnFreePort({ ann: { groups: ['staff', 'approvers'], preferred_username: 'ann' } }));
    database = await createDatabase();
    const personas = join(dir, 'personas.yaml');
    writeFileSync(personas, JSON.stringify({ student: { identity: { student_id: '${user_id}' }, allow: ['hostel.*'], confirm: 'actions' } }));
    fleet = await Fleet.start({
      store: database.url,
      port,
      config: {
        upstreams: { hostel: { command: process.execPath, args: [join(ROOT, 'dist/mock-servers/hostel.js')], env: { UNIVERSITY_DB: join(dir, 'university.db') } } },
        curator: { mode: 'none' },
        policy: { personas },
        http: { oauth: { issuer: idp.issuer, resource: `${base}/mcp`, scopes: ['mcp:tools'], user_claim: 'preferred_username', personas: [{ persona: 'student', when: { claim: 'groups', includes: 'students' } }] } },
        confirmation: { wait_seconds: { stdio: 0, http: 0 }, approvers: [{ claim: 'groups', includes: 'approvers' }], approvers_sign_in: { client_id: 'tc-approvals' } },
      },
    });
    host = await fleet.host();
  }, 400_000);
  afterAll(async () => {
    await host?.close();
    await fleet?.stop();
    await idp?.close();
    if (database) await dropDatabase(database.name);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const call = async (args: Record<string, unknown>) =>
    (await host.client.callTool({ name: 'call_tool', arguments: { name: TOOL, arguments: args } }, { timeout: 120_000 })) as CallToolResult;
  const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;
  /** Parks the call and returns its approval id. */
  async function parked(args: Record<string, unknown>): Promise<string> {
    const t = text(await call(args));
    expect(t).toContain(`${TOOL} awaits a person's approval`);
    return /approval id ([a-z0-9]+)/.exec(t)![1]!;
  }
  /** Copies `browser`'s cookies for origin `from` to origin `to`, as a browser shares a host's cookies across its ports. */
  const share = (browser: Browser, from: string, to: string) => new Browser({ [from]: Object.fromEntries(browser.cookies(from)), [to]: Object.fromEntries(browser.cookies(from)) });

  it('a sign-in started on one replica finishes on the other; either page knows the session; a decision posted to the other replica runs the call', async () => {
    const [one, two] = fleet.replicas.map((r) => `http://${r.address}`) as [string, string];
    const ARGS = { category: 'plumbing', description: 'the shower in room 2 is cold' };
    const id = await parked(ARGS);

    const started = new Browser();
    const toIdp = await started.get(`${one}/approvals`);
    expect(toIdp.status).toBe(302);
    const back = await idp.authorize(new URL(toIdp.headers.get('location')!), 'ann', `${base}/approvals/signin/callback`);
    // The provider sends the browser back to the page's public address; here it lands on the second replica.
    let browser = share(started, one, two);
    const landed = await browser.get(`${two}${back.pathname}${back.search}`);
    expect(landed.status, await landed.clone().text()).toBe(303);
    browser = share(browser, two, one);

    const html = await (await browser.get(`${one}/approvals`)).text();
    expect(html).toContain('Signed in as ann.');
    expect(html).toContain(`<tr data-id="${id}">`);
    const form = new RegExp(`action="/approvals/${id}/approve"><input type="hidden" name="csrf" value="([^"]+)"><input type="hidden" name="statement" value="([^"]+)">`).exec(html)!;
    const decided = await browser.post(`${two}/approvals/${id}/approve`, { csrf: form[1]!, statement: form[2]! });
    expect(decided.status, await decided.clone().text()).toBe(303);
    expect(await (await browser.get(`${two}/approvals?done=${id}`)).text()).toContain(`Approved ${id} (${TOOL}).`);

    const ran = await call(ARGS);
    expect(ran.isError, text(ran)).toBeFalsy();
    expect(JSON.parse(text(ran))).toMatchObject({ category: 'plumbing', status: 'open' });
  }, 300_000);

  it('through HAProxy, /approvals round robin: sign-in, pages and a decision served by both replicas, one session', async () => {
    const ARGS = { category: 'electrical', description: 'the socket in room 8 sparks' };
    const id = await parked(ARGS);
    const servedBy: string[] = [];
    const browser = new Browser();
    const { landed } = await signInAt(idp, base, 'ann', base, browser);
    expect(landed.status, await landed.clone().text()).toBe(303);
    for (let i = 0; i < 4; i++) {
      const page = await browser.get(`${base}/approvals`);
      expect([page.status, (await page.text()).includes('Signed in as ann.')]).toEqual([200, true]);
      servedBy.push(page.headers.get('x-served-by')!);
    }
    expect(new Set(servedBy)).toEqual(new Set(fleet.replicas.map((r) => r.name)));
    expect((await decideOn(browser, base, id, 'approve')).status).toBe(303);
    expect(JSON.parse(text(await call(ARGS)))).toMatchObject({ category: 'electrical', status: 'open' });
  }, 300_000);
});
