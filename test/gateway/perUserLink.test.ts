/**
 * Per-user upstream accounts without an identity provider (hosts with static tokens that
 * carry a user id): the consent link leads to a page naming the gateway user the account
 * will be connected for, and only its button (a POST to a new single-use step) starts the
 * upstream's authorization. Real protected upstream (authServer.ts), gateway HTTP face in
 * process, SDK client as the host.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { serveHttp, type HttpFace } from '../../src/gateway/http.js';
import { authCommand } from '../../src/upstream/auth/command.js';
import { startProtectedServer, type ProtectedServer } from '../upstream/authServer.js';

const TOKEN = 'static-token-of-dana-0123456789';
const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe('per-user consent without an identity provider', () => {
  let upstream: ProtectedServer;
  let gateway: Gateway;
  let face: HttpFace;
  let client: Client;

  beforeAll(async () => {
    upstream = await startProtectedServer();
    const dir = mkdtempSync(join(tmpdir(), 'tc-peruser-link-'));
    writeFileSync(join(dir, 'personas.yaml'), 'staff:\n  allow: ["tracker.*"]\n  confirm: none\n');
    writeFileSync(
      join(dir, 'gateway.config.yaml'),
      JSON.stringify({
        upstreams: { tracker: { url: upstream.mcpUrl, auth: { oauth: {}, per_user: true } } },
        curator: { mode: 'none' },
        store: join(dir, 'store.db'),
        policy: { personas: join(dir, 'personas.yaml') },
        http: { tokens: [{ token: TOKEN, persona: 'staff', user_id: 'dana' }] },
      }),
    );
    const loaded = loadConfig(join(dir, 'gateway.config.yaml'));
    const code = await authCommand(loaded, 'tracker', {
      out: (line) => void (line.startsWith('http') && fetch(line, { redirect: 'manual' }).then((r) => fetch(r.headers.get('location')!))),
    });
    expect(code).toBe(0);
    gateway = await Gateway.start(loaded, { noEmbedder: true });
    face = await serveHttp(gateway, 0, '127.0.0.1');
    client = new Client({ name: 'static-host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${face.port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  }, 300_000);

  afterAll(async () => {
    await client?.close();
    await face?.close();
    await gateway?.close();
    await upstream?.close();
  });

  const whoami = async () => (await client.callTool({ name: 'call_tool', arguments: { name: 'whoami', arguments: {} } }, { timeout: 120_000 })) as CallToolResult;

  it('the link shows whose account is connected; the button connects it, once', async () => {
    const first = await whoami();
    expect(first.isError).toBe(true);
    const link = /(http:\/\/127\.0\.0\.1:\d+\/oauth\/consent\/[A-Za-z0-9_-]+)/.exec(text(first))?.[1];
    expect(link, text(first)).toBeDefined();

    const shown = await fetch(link!);
    const html = await shown.text();
    expect(shown.status).toBe(200);
    expect(html).toContain('for the gateway user <b>dana (static token)</b>');
    const action = /action="(\/oauth\/consent\/[A-Za-z0-9_-]+)"/.exec(html)?.[1];
    expect(action).toBeDefined();
    // Visiting the link does not start an authorization by itself, and it works once.
    expect((await fetch(link!)).status).toBe(410);

    const base = new URL(link!).origin;
    const toUpstream = await fetch(`${base}${action}`, { method: 'POST', redirect: 'manual' });
    expect(toUpstream.status).toBe(302);
    const cookie = toUpstream.headers.getSetCookie()[0]!.split(';')[0]!;
    const toGateway = await fetch(toUpstream.headers.get('location')!, { redirect: 'manual', headers: { cookie: 'account=dana-at-tracker' } });
    const done = await fetch(toGateway.headers.get('location')!, { redirect: 'manual', headers: { cookie } });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('account is connected for dana (static token)');
    expect(text(await whoami())).toMatch(/ account dana-at-tracker$/);
  }, 300_000);
});
