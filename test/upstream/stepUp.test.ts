/**
 * OAuth step-up, end to end with the built CLI against the local authorization server and
 * protected MCP server (authServer.ts): consent for `tools:read`; then, with the access
 * token expired so that the gateway refreshes first, `write_note` answers 403
 * `insufficient_scope` (`notes:write`). The gateway keeps the tokens, records the scope,
 * says "needs authorization (more scope: notes:write)" in the call error, the upstream's
 * status and doctor, and keeps serving the read-only tool; `auth` then asks for the union
 * of the old and new scopes, and the running gateway uses the new tokens.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorize, callTool, outputs, run, serve, status, text } from './authFlow.js';
import { startProtectedServer, type ProtectedServer } from './authServer.js';

describe('step-up authorization (403 insufficient_scope after a refresh)', () => {
  let server: ProtectedServer;
  let dir: string;
  let config: string;
  let store: string;
  let running: Awaited<ReturnType<typeof serve>>;

  const stored = () => {
    const db = new Database(store, { readonly: true });
    try {
      const row = db.prepare('SELECT tokens, pending_scope FROM oauth_state WHERE upstream = ?').get('secure') as { tokens: string | null; pending_scope: string | null };
      return { scope: row.tokens ? (JSON.parse(row.tokens) as { scope?: string }).scope : undefined, pending: row.pending_scope ? (JSON.parse(row.pending_scope) as string) : undefined };
    } finally {
      db.close();
    }
  };

  const storedClient = () => {
    const db = new Database(store, { readonly: true });
    try {
      const row = db.prepare('SELECT client_information FROM oauth_state WHERE upstream = ?').get('secure') as { client_information: string | null };
      return row.client_information ? (JSON.parse(row.client_information) as { client_id: string }).client_id : undefined;
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    server = await startProtectedServer();
    dir = mkdtempSync(join(tmpdir(), 'tc-stepup-'));
    config = join(dir, 'gateway.config.yaml');
    store = join(dir, 'store.db');
    // write_note is an action: this persona runs actions without a person's approval, so the test sees the upstream's answer.
    writeFileSync(join(dir, 'personas.yaml'), JSON.stringify({ writer: { allow: ['*'], confirm: 'none' } }));
    writeFileSync(
      config,
      JSON.stringify({
        upstreams: { secure: { url: server.mcpUrl, auth: 'oauth' } },
        curator: { mode: 'none' },
        store,
        policy: { personas: 'personas.yaml' },
        session: { persona: 'writer' },
        timeouts: { startup_ms: 120_000 },
      }),
    );
    const consent = await authorize(config, 'secure');
    expect(consent.code, consent.stderr).toBe(0);
    expect(new URL(consent.visited[0]!).searchParams.get('scope')).toBe('tools:read');
  }, 180_000);

  afterAll(async () => {
    await running?.client.close().catch(() => undefined);
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the call needing more scope fails with "needs authorization (more scope: notes:write)"; the tokens stay; the read-only tool keeps working', async () => {
    running = await serve(config);
    expect(text(await callTool(running.client, 'whoami'))).toMatch(/scopes \[tools:read\]$/);
    // The next request meets an expired access token: refresh first, then the 403.
    server.provider.expireAccessTokens();
    const refreshes = server.provider.refreshes;
    const denied = await callTool(running.client, 'write_note');
    expect(denied.isError).toBe(true);
    expect(text(denied)).toBe('write_note: upstream "secure" needs authorization (more scope: notes:write), which only a person can give; ask the user');
    expect(server.provider.refreshes).toBe(refreshes + 1);
    expect(stored()).toEqual({ scope: 'tools:read', pending: 'tools:read notes:write' });

    const read = await callTool(running.client, 'whoami');
    expect(read.isError, text(read)).toBeFalsy();
    expect(text(read)).toMatch(/scopes \[tools:read\]$/);
    // Asking again changes nothing: no refresh, no lost tokens.
    expect(text(await callTool(running.client, 'write_note'))).toContain('needs authorization (more scope: notes:write)');
    expect(server.provider.refreshes).toBe(refreshes + 1);
    expect(stored().scope).toBe('tools:read');
    expect(running.stderr()).not.toContain('refused authorization');
  }, 180_000);

  it('the upstream status and doctor say so; the upstream stays ready with all its tools', async () => {
    const secure = (await status(config)).find((u) => u.name === 'secure')!;
    expect(secure).toMatchObject({ state: 'ready', tools: 2, auth: { method: 'oauth', state: 'ok', moreScope: 'notes:write' } });
    const doctor = await run(config, ['doctor']);
    expect(doctor.stdout).toContain('upstream WARN   upstreams.secure: secure: needs authorization (more scope: notes:write) for some of its tools; the others work. Run tool-curator auth secure');
    expect(doctor.stdout).toMatch(/upstream ok {5}secure: 2 tools, protocol 2025, start \d+ ms, ping \d+ ms, auth oauth/);
  }, 180_000);

  it('an auth that never completes (the URL not opened, the command interrupted) changes nothing: client, tokens and pending scope stay, and the gateway keeps refreshing with them', async () => {
    const clientBefore = storedClient();
    const abandoned = await authorize(config, 'secure', {}, true);
    expect(abandoned.visited).toHaveLength(1);
    expect(new URL(abandoned.visited[0]!).searchParams.get('scope')).toBe('tools:read notes:write');
    expect(storedClient()).toBe(clientBefore);
    expect(stored()).toEqual({ scope: 'tools:read', pending: 'tools:read notes:write' });
    server.provider.expireAccessTokens();
    const refreshes = server.provider.refreshes;
    expect(text(await callTool(running.client, 'whoami'))).toBe(`client ${clientBefore} scopes [tools:read]`);
    expect(server.provider.refreshes).toBe(refreshes + 1);
  }, 180_000);

  it('auth asks for the union of the granted and the new scope; the running gateway then runs the call', async () => {
    const again = await authorize(config, 'secure');
    expect(again.code, again.stderr).toBe(0);
    expect(again.visited).toHaveLength(1);
    expect(new URL(again.visited[0]!).searchParams.get('scope')).toBe('tools:read notes:write');
    expect(stored()).toEqual({ scope: 'tools:read notes:write', pending: undefined });
    const written = await callTool(running.client, 'write_note');
    expect(written.isError, text(written)).toBeFalsy();
    expect(text(written)).toBe('note written with scopes [tools:read notes:write]');
    expect((await status(config)).find((u) => u.name === 'secure')!.auth).toEqual({ method: 'oauth', state: 'ok' });
  }, 180_000);

  it('auth run again while the gateway serves keeps the client and every granted scope; each tool keeps working, before and after a refresh', async () => {
    const clientBefore = storedClient();
    const authorizations = server.provider.authorizations;
    const again = await authorize(config, 'secure');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('authorized "secure": 2 tools');
    // Tokens that already cover every scope asked for need no new consent.
    expect(server.provider.authorizations).toBe(authorizations);
    expect(storedClient()).toBe(clientBefore);
    expect(stored()).toEqual({ scope: 'tools:read notes:write', pending: undefined });
    for (const tool of ['whoami', 'write_note']) {
      const r = await callTool(running.client, tool);
      expect(r.isError, text(r)).toBeFalsy();
    }
    // The running gateway refreshes with the client it was given (the same one).
    server.provider.expireAccessTokens();
    const refreshes = server.provider.refreshes;
    expect(text(await callTool(running.client, 'write_note'))).toBe('note written with scopes [tools:read notes:write]');
    expect(text(await callTool(running.client, 'whoami'))).toBe(`client ${clientBefore} scopes [tools:read notes:write]`);
    expect(server.provider.refreshes).toBe(refreshes + 1);
  }, 180_000);

  it('auth after the grant was withdrawn asks again for every scope granted before (step-up ones included), with the same client', async () => {
    const clientBefore = storedClient();
    server.provider.revokeAll();
    const again = await authorize(config, 'secure');
    expect(again.code, again.stderr).toBe(0);
    expect(again.visited).toHaveLength(1);
    expect(new URL(again.visited[0]!).searchParams.get('scope')).toBe('tools:read notes:write');
    expect(storedClient()).toBe(clientBefore);
    expect(text(await callTool(running.client, 'write_note'))).toBe('note written with scopes [tools:read notes:write]');
  }, 180_000);

  it('no token or secret in any output', () => {
    const everything = outputs.join('\n');
    for (const secret of server.provider.secrets) expect(everything).not.toContain(secret);
  });
});
