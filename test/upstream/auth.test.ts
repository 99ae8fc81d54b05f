/**
 * The gateway as an OAuth client of a remote upstream, end to end: the built CLI
 * (`serve`, `tools --json`, `auth`) against a local authorization server + protected MCP
 * server (authServer.ts), next to a plain stdio upstream. First start without consent,
 * the `auth` flow over loopback driven like a browser, restart on stored tokens, refresh
 * of an expired access token, revocation, client_credentials, logout, and that no token
 * or secret shows up in logs, audit rows or error messages.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/server';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorize, callTool, LIBRARY, outputs, run, serve, status, text } from './authFlow.js';
import { M2M_CLIENT, startProtectedServer, type ProtectedServer } from './authServer.js';

describe('a remote upstream behind OAuth (authorization code + PKCE)', () => {
  let server: ProtectedServer;
  let dir: string;
  let config: string;
  let store: string;
  /** The gateway started before consent; it stays up across the `auth` run. */
  let running: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    server = await startProtectedServer();
    dir = mkdtempSync(join(tmpdir(), 'tc-oauth-'));
    config = join(dir, 'gateway.config.yaml');
    store = join(dir, 'store.db');
    writeFileSync(
      config,
      JSON.stringify({
        upstreams: {
          secure: { url: server.mcpUrl, auth: 'oauth' },
          library: { command: process.execPath, args: [LIBRARY] },
        },
        curator: { mode: 'none' },
        store,
      }),
    );
  });

  afterAll(async () => {
    await running?.client.close().catch(() => undefined);
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('without consent: the upstream is reported as needing authorization, its tools absent, the others served', async () => {
    const upstreams = await status(config);
    const secure = upstreams.find((u) => u.name === 'secure')!;
    expect(secure).toMatchObject({ state: 'needs_authorization', tools: 0, auth: { method: 'oauth', state: 'needs_authorization' } });
    expect(secure.error).toBe('upstream "secure" needs authorization: run tool-curator auth secure');
    expect(upstreams.find((u) => u.name === 'library')).toMatchObject({ state: 'ready' });
    expect(upstreams.find((u) => u.name === 'library')!.tools).toBeGreaterThan(0);

    running = await serve(config);
    const r = await callTool(running.client, 'whoami');
    expect(r.isError).toBe(true);
    expect(running.stderr()).toContain('needs authorization: run tool-curator auth secure');
    // find_tools names the upstream it could not include: since when, and what its operator runs.
    const found = (await running.client.callTool({ name: 'find_tools', arguments: { query: 'who am i' } }, { timeout: 120_000 })) as CallToolResult;
    expect(found.isError, text(found)).toBeFalsy();
    const unavailable = (JSON.parse(text(found)) as { unavailable?: { upstream: string; why: string }[] }).unavailable;
    expect(unavailable?.find((u) => u.upstream === 'secure')?.why).toMatch(/^waiting for a person's authorization since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ; its operator runs `tool-curator auth secure`$/);
    // Nothing was registered at the authorization server from serve.
    expect(server.provider.authorizations).toBe(0);
  }, 120_000);

  it('auth: prints the authorization URL, receives the redirect on loopback, stores the tokens in a 0600 file', async () => {
    const r = await authorize(config, 'secure');
    expect(r.code, r.stderr).toBe(0);
    expect(r.visited).toHaveLength(1);
    const url = new URL(r.visited[0]!);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('resource')).toBe(server.mcpUrl);
    expect(url.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(r.stdout).toContain('authorized "secure": 2 tools');
    expect(server.provider.authorizations).toBe(1);
    expect(statSync(store).mode & 0o777).toBe(0o600);
    const db = new Database(store, { readonly: true });
    const row = db.prepare('SELECT tokens, client_information FROM oauth_state WHERE upstream = ?').get('secure') as { tokens: string; client_information: string };
    db.close();
    expect(JSON.parse(row.tokens).refresh_token).toMatch(/^rt-/);
    expect(JSON.parse(row.client_information).redirect_uris).toEqual([url.searchParams.get('redirect_uri')]);
  }, 120_000);

  it('the gateway that was already running picks the new tokens up and serves the upstream, without a restart', async () => {
    let r: CallToolResult | undefined;
    for (let i = 0; i < 60 && !(r && !r.isError); i++) {
      if (i > 0) await new Promise((done) => setTimeout(done, 1000));
      r = await callTool(running.client, 'whoami');
    }
    expect(text(r!)).toMatch(/^client [0-9a-f-]{36} scopes \[tools:read\]$/);
    expect(running.stderr()).toMatch(/"msg":"upstream \\"secure\\" authorized"/);
    await running.client.close();
  }, 120_000);

  it('serve restarts on the stored tokens, and refreshes an expired access token unattended', async () => {
    // The stored access token has expired: the first request needs a refresh.
    server.provider.expireAccessTokens();
    const refreshesBefore = server.provider.refreshes;
    const { client, stderr } = await serve(config);
    try {
      const r = await callTool(client, 'whoami');
      expect(r.isError, text(r)).toBeFalsy();
      expect(text(r)).toMatch(/^client [0-9a-f-]{36} scopes \[tools:read\]$/);
      expect(server.provider.refreshes).toBeGreaterThan(refreshesBefore);
      expect(server.provider.authorizations).toBe(1);
      expect(stderr()).not.toContain('needs authorization');
    } finally {
      await client.close();
    }
  }, 120_000);

  it('revoked grant: reported as needing authorization again, with the reason', async () => {
    server.provider.revokeAll();
    const secure = (await status(config)).find((u) => u.name === 'secure')!;
    expect(secure.state).toBe('needs_authorization');
    expect(secure.error).toBe('upstream "secure" needs authorization (the authorization server no longer accepts its stored tokens): run tool-curator auth secure');
  }, 120_000);

  it('auth again restores access; --logout deletes what the store holds', async () => {
    expect((await authorize(config, 'secure')).code).toBe(0);
    expect((await status(config)).find((u) => u.name === 'secure')).toMatchObject({ state: 'ready', tools: 2 });
    const out = await run(config, ['auth', 'secure', '--logout']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('removed the tokens and client registration stored for "secure"');
    const db = new Database(store, { readonly: true });
    expect(db.prepare('SELECT COUNT(*) AS n FROM oauth_state WHERE client_information IS NOT NULL OR tokens IS NOT NULL OR discovery IS NOT NULL').get()).toEqual({ n: 0 });
    db.close();
    expect((await status(config)).find((u) => u.name === 'secure')!.state).toBe('needs_authorization');
  }, 180_000);

  it('no token or secret in logs, command output, error messages or audit rows', async () => {
    const audit = await run(config, ['audit', '--tail', '1000', '--json']);
    expect(audit.code).toBe(0);
    const everything = [...outputs, audit.stdout].join('\n');
    // Two authorizations and a refresh: client secret, access and refresh tokens, and the m2m secret.
    expect(server.provider.secrets.length).toBeGreaterThan(5);
    for (const secret of server.provider.secrets) expect(everything).not.toContain(secret);
  });
});

describe('errors and machine-to-machine', () => {
  let server: ProtectedServer;
  let dir: string;

  beforeAll(async () => {
    server = await startProtectedServer();
    dir = mkdtempSync(join(tmpdir(), 'tc-oauth-m2m-'));
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const configWith = (upstream: Record<string, unknown>) => {
    const file = join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, JSON.stringify({ upstreams: { remote: { url: server.mcpUrl, ...upstream } }, curator: { mode: 'none' }, store: join(dir, 'store.db') }));
    return file;
  };

  it('a 401 without auth config is an authorization failure with the challenge, not the SSE fallback error', async () => {
    const [remote] = await status(configWith({}));
    expect(remote!.state).toBe('failed');
    expect(remote!.error).toBe(
      `upstream "remote" refused authorization (HTTP 401, error="invalid_token", resource_metadata="${new URL(server.mcpUrl).origin}/.well-known/oauth-protected-resource/mcp"); ` +
        'the server requires authorization: set auth (oauth or client_credentials) or headers for it in the config',
    );
    expect(remote!.error).not.toContain('Non-200');
  }, 60_000);

  it('auth names what is wrong with the command: unknown upstream, upstream without auth', async () => {
    const config = configWith({});
    const unknown = await run(config, ['auth', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('has no upstream "nope" (upstreams: remote)');
    const noAuth = await run(config, ['auth', 'remote']);
    expect(noAuth.code).toBe(2);
    expect(noAuth.stderr).toContain('upstream "remote" has no auth in');
  }, 60_000);

  it('client_credentials: serve gets a token unattended, no consent, and the secret stays out of every output', async () => {
    const config = configWith({ auth: { client_credentials: { client_id: M2M_CLIENT.id, client_secret: M2M_CLIENT.secret, scopes: ['tools:read'], issuer: new URL(server.mcpUrl).origin } } });
    const { client, stderr } = await serve(config);
    try {
      const r = await callTool(client, 'whoami');
      expect(text(r), stderr()).toBe('client m2m-client scopes [tools:read]');
      expect(server.grants).toContain('client_credentials');
      expect(server.provider.authorizations).toBe(0);
      const log = stderr();
      for (const secret of server.provider.secrets) expect(log).not.toContain(secret);
    } finally {
      await client.close();
    }
    const wrong = await status(configWith({ auth: { client_credentials: { client_id: M2M_CLIENT.id, client_secret: 'not-the-secret-000', issuer: new URL(server.mcpUrl).origin } } }));
    expect(wrong[0]!.state).toBe('failed');
    expect(wrong[0]!.error).not.toContain('not-the-secret-000');
  }, 120_000);
});
