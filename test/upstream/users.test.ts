/**
 * UserConnections (src/upstream/users.ts) against the OAuth-protected test upstream: one
 * connection per (upstream, user), each with that user's stored tokens; at most
 * `maxConnections` open (least recently used idle one closed first); closed after
 * `idleMs` unused; a user without tokens gets NeedsAuthorizationError, never another
 * user's account; a user's subscription holds across an upstream restart.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteUpstreamSchema } from '../../src/config/schema.js';
import { openStore, type Store } from '../../src/store/index.js';
import { NeedsAuthorizationError } from '../../src/upstream/auth/errors.js';
import { UserConnections } from '../../src/upstream/users.js';
import { startProtectedServer, type ProtectedServer } from './authServer.js';

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/** Resolves once `ok()` holds, looking every 20 ms (no time limit of its own: the test's timeout is the bound). */
async function until(ok: () => boolean): Promise<void> {
  while (!ok()) await new Promise((r) => setTimeout(r, 20));
}

describe('per-user upstream connections', () => {
  let server: ProtectedServer;
  let store: Store;
  const open: UserConnections[] = [];

  beforeAll(async () => {
    server = await startProtectedServer();
    store = await openStore(join(mkdtempSync(join(tmpdir(), 'tc-users-')), 'store.db'));
    // Each user's own tokens, as their consent would have stored them.
    for (const user of ['u1', 'u2', 'u3']) {
      const tokens = server.provider.issue(`client-${user}`, [], undefined, false, `account-${user}`);
      await store.oauth.set({ upstream: 'tracker', subject: user, url: server.mcpUrl }, 'tokens', JSON.stringify(tokens));
    }
  });
  afterAll(async () => {
    for (const u of open) await u.closeAll();
    await store?.close();
    await server?.close();
  });

  const cfg = () => remoteUpstreamSchema.parse({ url: server.mcpUrl, auth: { oauth: {}, per_user: true } });
  const connections = (maxConnections: number, idleMs: number) => {
    const u = new UserConnections({ baseDir: '.', startupMs: 60_000, callMs: 60_000, store, maxConnections, idleMs });
    open.push(u);
    return u;
  };

  it("each user's call carries that user's own account; past the cap the least recently used closes", async () => {
    const users = connections(2, 600_000);
    const seen = [];
    for (const user of ['u1', 'u2', 'u1', 'u3']) seen.push(text(await users.call('tracker', cfg(), user, 'whoami', {})).split(' account ')[1]);
    expect(seen).toEqual(['account-u1', 'account-u2', 'account-u1', 'account-u3']);
    // u2 was the least recently used when u3 came.
    expect(users.size).toBe(2);
    expect(text(await users.call('tracker', cfg(), 'u2', 'whoami', {}))).toMatch(/ account account-u2$/);
  }, 120_000);

  it('a user without tokens is asked to consent, never served with another account', async () => {
    const users = connections(10, 600_000);
    await users.call('tracker', cfg(), 'u1', 'whoami', {});
    await expect(users.call('tracker', cfg(), 'nobody', 'whoami', {})).rejects.toBeInstanceOf(NeedsAuthorizationError);
    expect(users.size).toBe(1);
  }, 120_000);

  it("an upstream restart no request reached: the user's GET stream meets the 404, a new session subscribes again; a read after another restart runs on a new session", async () => {
    const restarting = await startProtectedServer({ stateful: true });
    try {
      const tokens = restarting.provider.issue('client-u1', [], undefined, false, 'account-u1');
      await store.oauth.set({ upstream: 'notes', subject: 'u1', url: restarting.mcpUrl }, 'tokens', JSON.stringify(tokens));
      const notesCfg = remoteUpstreamSchema.parse({ url: restarting.mcpUrl, auth: { oauth: {}, per_user: true } });
      const users = connections(10, 600_000);
      const updates: string[] = [];
      users.on('resource-updated', (upstream: string, user: string, uri: string) => void updates.push(`${upstream} ${user} ${uri}`));
      await users.subscribe('notes', notesCfg, 'u1', 'notes://mine');
      expect(await restarting.touch('notes://mine')).toBe(1);
      await until(() => updates.length === 1);

      await restarting.forgetSessions();
      await until(() => restarting.subscriptions.length === 2);
      expect(await restarting.touch('notes://mine')).toBe(1);
      await until(() => updates.length === 2);
      expect(updates).toEqual(['notes u1 notes://mine', 'notes u1 notes://mine']);
      expect(restarting.subscriptions).toEqual(['account-u1 notes://mine', 'account-u1 notes://mine']);

      await restarting.forgetSessions();
      const read = await users.request('notes', notesCfg, 'u1', (client) => client.readResource({ uri: 'notes://mine' }));
      expect(read.contents).toEqual([{ uri: 'notes://mine', mimeType: 'text/plain', text: 'notes of account-u1' }]);
      await until(() => restarting.subscriptions.length === 3);
      expect(users.size).toBe(1);
    } finally {
      await restarting.close();
    }
  }, 120_000);

  it('a connection unused for idleMs is closed', async () => {
    const users = connections(10, 50);
    expect(text(await users.call('tracker', cfg(), 'u3', 'whoami', {}))).toMatch(/ account account-u3$/);
    await until(() => users.size === 0);
    expect(text(await users.call('tracker', cfg(), 'u3', 'whoami', {}))).toMatch(/ account account-u3$/);
  }, 120_000);
});
