/**
 * The OAuth refresh race, on each store backend: the authorization server (authServer.ts)
 * issues single-use refresh tokens, so two refreshes of one token lose the grant. After
 * the access token expires, 6 parallel calls through one gateway, then 6 through each of
 * two gateway processes sharing one store, all succeed with one refresh each time, and the
 * stored tokens survive for the calls after.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { BACKENDS, setupBackends } from '../helpers/stores.js';
import { authorize, callTool, serve, text } from './authFlow.js';
import { startProtectedServer, type ProtectedServer } from './authServer.js';

setupBackends();

const WHOAMI = /^client [0-9a-f-]{36} scopes \[tools:read\]$/;

describe.each(BACKENDS)('single-use refresh tokens, store on $kind', (backend) => {
  let server: ProtectedServer;
  let config: string;
  let env: Record<string, string>;
  let location: string;
  const gateways: Awaited<ReturnType<typeof serve>>[] = [];

  beforeAll(async () => {
    server = await startProtectedServer();
    location = await backend.fresh();
    env = { TC_STORE: location };
    config = join(mkdtempSync(join(tmpdir(), 'tc-refresh-')), 'gateway.config.yaml');
    // The store is named through the environment: a PostgreSQL URL carries its password.
    writeFileSync(config, JSON.stringify({ upstreams: { secure: { url: server.mcpUrl, auth: 'oauth' } }, curator: { mode: 'none' }, store: '${TC_STORE}' }));
    const consent = await authorize(config, 'secure', env);
    expect(consent.code, consent.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    for (const g of gateways) await g.client.close().catch(() => undefined);
    await server.close();
  });

  const storedRefreshToken = async () => {
    const store = await openStore(location);
    try {
      const tokens = await store.oauth.get({ upstream: 'secure', url: server.mcpUrl }, 'tokens');
      return tokens && (JSON.parse(tokens) as { refresh_token?: string }).refresh_token;
    } finally {
      await store.close();
    }
  };

  const parallel = async (n: number, g: (typeof gateways)[number]) => Promise.all(Array.from({ length: n }, () => callTool(g.client, 'whoami')));

  test('6 parallel calls after expiry through one gateway: all succeed, one refresh, tokens kept', async () => {
    const gateway = await serve(config, env);
    gateways.push(gateway);
    expect(text(await callTool(gateway.client, 'whoami'))).toMatch(WHOAMI);
    server.provider.expireAccessTokens();
    const before = server.provider.refreshes;
    const results = await parallel(6, gateway);
    for (const r of results) expect(text(r), gateway.stderr()).toMatch(WHOAMI);
    expect(server.provider.refreshes).toBe(before + 1);
    expect(await storedRefreshToken()).toMatch(/^rt-/);
    expect(text(await callTool(gateway.client, 'whoami'))).toMatch(WHOAMI);
    expect(gateway.stderr()).not.toContain('needs authorization');
  }, 120_000);

  test('two gateway processes on one store, 6 calls each after expiry: all succeed, one refresh, both keep the upstream', async () => {
    const second = await serve(config, env);
    gateways.push(second);
    const [first] = gateways;
    expect(text(await callTool(second.client, 'whoami'))).toMatch(WHOAMI);
    server.provider.expireAccessTokens();
    const before = server.provider.refreshes;
    const results = await Promise.all([parallel(6, first!), parallel(6, second)]);
    for (const r of results.flat()) expect(text(r), `${first!.stderr()}\n${second.stderr()}`).toMatch(WHOAMI);
    expect(server.provider.refreshes).toBe(before + 1);
    expect(server.provider.authorizations).toBe(1);
    expect(await storedRefreshToken()).toMatch(/^rt-/);
    for (const g of [first!, second]) {
      expect(text(await callTool(g.client, 'whoami'))).toMatch(WHOAMI);
      expect(g.stderr()).not.toContain('needs authorization');
    }
  }, 120_000);
});
