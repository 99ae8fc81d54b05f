/**
 * Issue 29, item 1: an upstream that echoes the credentials the gateway gave it (a static
 * Authorization header, an API key header, env values marked secret, OAuth access and
 * refresh tokens, also after a refresh) gets none of them to the host, over the gateway's
 * stdio and HTTP faces, in results, errors, log and progress notifications, the upstream's
 * elicitation and sampling requests, find_tools output, resource reads and prompts — and
 * none into the audit rows. Every message the host receives is recorded raw.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import type { Transport } from '@modelcontextprotocol/client';
import { dump as yaml } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { echoHttp } from './fixtures/echo.mjs';
import { connectGateway, ROOT } from '../helpers/reference.js';
import { spawnUntil } from '../helpers/process.js';
import { FULL_HOST, httpGateway, record, type Host } from '../relay/harness.js';
import { startProtectedServer, type ProtectedServer } from '../upstream/authServer.js';
import { authorize } from '../upstream/authFlow.js';

const ECHO = join(ROOT, 'test/guards/fixtures/echo.mjs');
const HOST_TOKEN = 'host-token-5c0e9a1f7b3d2468';
const GIVEN = {
  staticBearer: 'static-9d1c7e5a3b2f4860',
  apiKey: 'apikey-6b2f8d4e0a1c3957',
  envToken: 'env-token-3a7f1c9e5d2b8064',
  dbPassword: 'db-pass-8e4a2c6f0b1d9375',
};
const PLAIN = 'plain-value-not-secret-42';

/** Records every message the host's transport delivers, as JSON text. */
function recordRaw(transport: Transport): string[] {
  const raw: string[] = [];
  const deliver = transport.onmessage!;
  transport.onmessage = (message, extra) => {
    raw.push(JSON.stringify(message));
    deliver(message, extra);
  };
  return raw;
}

describe.each(['stdio', 'http'] as const)('secrets never reach a host, gateway over %s', (face) => {
  let oauth: ProtectedServer;
  let stopHeaded: () => void;
  let stopGateway = () => {};
  let dir: string;
  let store: string;
  let host: Host;
  let raw: string[];

  beforeAll(async () => {
    oauth = await startProtectedServer({ mcp: echoHttp() });
    const { child, stderr } = await spawnUntil(process.execPath, [ECHO, '--http'], /listening on \d+/);
    stopHeaded = () => void child.kill();
    const port = /listening on (\d+)/.exec(stderr())![1];
    dir = mkdtempSync(join(tmpdir(), 'tc-secrets-'));
    store = join(dir, 'store.db');
    const config = join(dir, 'gateway.config.yaml');
    writeFileSync(
      config,
      yaml({
        upstreams: {
          envy: { command: process.execPath, args: [ECHO], env: { ECHO_API_TOKEN: GIVEN.envToken, DB_URL: `postgres://svc:${GIVEN.dbPassword}@db.internal/x`, NOTE: PLAIN }, secret_env: ['DB_URL'] },
          headed: { url: `http://127.0.0.1:${port}/mcp`, transport: 'streamable-http', headers: { Authorization: `Bearer ${GIVEN.staticBearer}`, 'X-Api-Key': GIVEN.apiKey } },
          oauthed: { url: oauth.mcpUrl, transport: 'streamable-http', auth: 'oauth' },
        },
        curator: { mode: 'bm25', top_k: 30, embedder: 'none' },
        store,
        http: { tokens: [{ token: HOST_TOKEN, persona: 'p' }] },
      }),
    );
    const consent = await authorize(config, 'oauthed');
    expect(consent.code, consent.stderr).toBe(0);
    if (face === 'stdio') {
      const { client, transport } = await connectGateway(config, [], FULL_HOST);
      raw = recordRaw(transport);
      host = record(client, FULL_HOST);
    } else {
      const gateway = await httpGateway(config);
      stopGateway = gateway.stop;
      const client = new Client({ name: 'host', version: '1.0.0' }, { capabilities: FULL_HOST });
      host = record(client, FULL_HOST);
      const transport = new StreamableHTTPClientTransport(new URL(gateway.base), { requestInit: { headers: { Authorization: `Bearer ${HOST_TOKEN}` } } });
      await client.connect(transport);
      raw = recordRaw(transport);
    }
  }, 300_000);

  afterAll(async () => {
    await host?.close().catch(() => undefined);
    stopGateway();
    stopHeaded?.();
    await oauth?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = (client: Client, name: string) =>
    client.callTool({ name: 'call_tool', arguments: { name, arguments: {} } }, { timeout: 120_000, onprogress: () => undefined }).then(
      (r) => r as CallToolResult,
      (err: Error) => ({ isError: true, content: [{ type: 'text', text: `thrown: ${err.message}` }] }) as CallToolResult,
    );

  test('results, errors, notifications, questions, find_tools, resources and prompts: 0 credentials, each echo marked', async () => {
    const { client } = host;
    const tools = ['echo', 'echo_error', 'echo_throw', 'echo_log', 'echo_progress', 'echo_elicit', 'echo_sample'];
    const answers = new Map<string, string>();
    const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
    for (const prefix of ['', 'headed__', 'oauthed__']) for (const tool of tools) answers.set(`${prefix}${tool}`, text(await call(client, `${prefix}${tool}`)));
    // The access token expires: the gateway refreshes it, and the new one is echoed too.
    oauth.provider.expireAccessTokens();
    answers.set('refreshed', text(await call(client, 'oauthed__echo')));
    expect(oauth.provider.refreshes).toBe(1);
    await client.callTool({ name: 'find_tools', arguments: { query: 'echo configured with' } });
    for (const r of (await client.listResources()).resources) await client.readResource({ uri: r.uri });
    for (const p of (await client.listPrompts()).prompts) await client.getPrompt({ name: p.name });

    const received = raw.join('\n');
    const held = [...Object.values(GIVEN), ...oauth.provider.secrets];
    expect(held.filter((s) => received.includes(s))).toEqual([]);
    // Each kind was echoed, and arrived marked.
    for (const label of ['header Authorization of upstream headed', 'header X-Api-Key of upstream headed', 'env ECHO_API_TOKEN of upstream envy', 'env DB_URL of upstream envy', 'OAuth access token of upstream oauthed']) {
      expect(received).toContain(`[secret removed: ${label}]`);
    }
    expect(received).toContain(PLAIN);
    expect(raw.filter((m) => m.includes('notifications/progress') && m.includes('working with') && m.includes('[secret removed: ')).length).toBe(3);
    expect(raw.some((m) => m.includes('Configured with') && m.includes('[secret removed: OAuth access token of upstream oauthed]'))).toBe(true);
    const headers = 'authorization: Bearer [secret removed: header Authorization of upstream headed]\nx-api-key: [secret removed: header X-Api-Key of upstream headed]';
    expect(answers.get('headed__echo_error')).toBe(`rejected request with header ${headers}`);
    expect(answers.get('headed__echo_throw')).toContain(`upstream failure; request carried ${headers}`);
    expect(answers.get('echo')).toContain('called with\nECHO_API_TOKEN: [secret removed: env ECHO_API_TOKEN of upstream envy]\nDB_URL: [secret removed: env DB_URL of upstream envy]\nNOTE: plain-value-not-secret-42');
    for (const key of ['oauthed__echo', 'oauthed__echo_error', 'refreshed']) expect(answers.get(key)).toContain('authorization: Bearer [secret removed: OAuth access token of upstream oauthed]');
    expect(host.received.logs.map((l) => String(l.data))).toEqual(expect.arrayContaining([expect.stringContaining('[secret removed: header Authorization of upstream headed]')]));
    expect(host.received.elicitations.map((e) => e.message)).toEqual(expect.arrayContaining([expect.stringContaining('[secret removed: OAuth access token of upstream oauthed]')]));
    expect(host.received.sampling.map((s) => JSON.stringify(s.messages))).toEqual(expect.arrayContaining([expect.stringContaining('[secret removed: env ECHO_API_TOKEN of upstream envy]')]));

    const db = new Database(store, { readonly: true });
    const rows = JSON.stringify(db.prepare('SELECT * FROM audit').all());
    db.close();
    expect(rows).toContain('echo_error');
    expect(held.filter((s) => rows.includes(s))).toEqual([]);
  }, 300_000);
});
