/**
 * UserConnections (src/upstream/users.ts) against the OAuth-protected test upstream: one
 * connection per (upstream, user), each with that user's stored tokens; at most
 * `maxConnections` open (least recently used idle one closed first); closed after
 * `idleMs` unused; a user without tokens gets NeedsAuthorizationError, never another
 * user's account; a user's subscription holds across an upstream restart and across a
 * connection that closes under it; when no new connection opens, the subscriptions end
 * with a warning and the relay's holder counts drop (subscriptions-ended).
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteUpstreamSchema } from '../../src/config/schema.js';
import { openStore, type Store } from '../../src/store/index.js';
import { log, setLogger } from '../../src/log.js';
import { PerUserRelay } from '../../src/relay/perUser.js';
import { Subscriptions } from '../../src/relay/subscriptions.js';
import { NeedsAuthorizationError } from '../../src/upstream/auth/errors.js';
import type { UpstreamPool } from '../../src/upstream/pool.js';
import { RENEW_ATTEMPTS, userKey, UserConnections, type UserConnectionsOptions } from '../../src/upstream/users.js';
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
  const connections = (maxConnections: number, idleMs: number, more: Partial<UserConnectionsOptions> = {}) => {
    const u = new UserConnections({ baseDir: '.', startupMs: 60_000, callMs: 60_000, store, maxConnections, idleMs, ...more });
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

  /** A stateful upstream `notes` with u1's tokens stored, and its config. */
  async function notesUpstream(): Promise<{ notes: ProtectedServer; notesCfg: ReturnType<typeof cfg> }> {
    const notes = await startProtectedServer({ stateful: true });
    const tokens = notes.provider.issue('client-u1', [], undefined, false, 'account-u1');
    await store.oauth.set({ upstream: 'notes', subject: 'u1', url: notes.mcpUrl }, 'tokens', JSON.stringify(tokens));
    return { notes, notesCfg: remoteUpstreamSchema.parse({ url: notes.mcpUrl, auth: { oauth: {}, per_user: true } }) };
  }

  it('a connection holding a subscription that closes without the gateway closing it is renewed: a new connection subscribes again', async () => {
    const { notes, notesCfg } = await notesUpstream();
    try {
      const clients: Client[] = [];
      const users = connections(10, 600_000, { onConnected: (_key, client) => void clients.push(client) });
      const updates: string[] = [];
      users.on('resource-updated', (upstream: string, user: string, uri: string) => void updates.push(`${upstream} ${user} ${uri}`));
      await users.subscribe('notes', notesCfg, 'u1', 'notes://mine');
      expect(clients).toHaveLength(1);

      // The transport closes under the connection (what a dropped stdio pipe or SSE stream does).
      await clients[0]!.close();
      await until(() => notes.subscriptions.length === 2);
      expect(clients).toHaveLength(2);
      expect(await notes.touch('notes://mine')).toBe(2);
      await until(() => updates.length === 1);
      expect(updates).toEqual(['notes u1 notes://mine']);
      expect(notes.subscriptions).toEqual(['account-u1 notes://mine', 'account-u1 notes://mine']);
      expect(users.size).toBe(1);
    } finally {
      await notes.close();
    }
  }, 120_000);

  it('no new connection opens (the upstream comes back refusing every new session): the subscriptions end with a warning, and the relay stops counting their holders', async () => {
    const { notes, notesCfg } = await notesUpstream();
    const warnings: Record<string, unknown>[] = [];
    const before = log;
    setLogger(pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line) as Record<string, unknown>) }));
    try {
      const users = connections(10, 600_000, { renewBaseMs: 10 });
      const relayed = new PerUserRelay({ users, upstreams: { notes: notesCfg }, offer: async () => 'no consent during this test' });
      const subscriptions = new Subscriptions(new EventEmitter() as unknown as UpstreamPool);
      const ended: string[] = [];
      relayed.listen(() => undefined, (server, user, uri) => subscriptions.updated(userKey(server, user), uri), (server, user, uris) => {
        ended.push(`${server} ${user} ${uris.join(' ')}`);
        subscriptions.ended(userKey(server, user), uris);
      });
      const channel = { via: userKey('notes', 'u1'), subscribe: (uri: string) => relayed.subscribe({ persona: 'staff', userId: 'u1' }, 'notes', uri), unsubscribe: (uri: string) => relayed.unsubscribe('notes', 'u1', uri) };
      const holder = { notify: () => undefined, mayRead: () => true };
      await subscriptions.subscribe('session-1', { server: 'notes', uri: 'notes://mine', exposed: 'notes://mine' }, holder, channel);
      await subscriptions.subscribe('session-2', { server: 'notes', uri: 'notes://mine', exposed: 'notes://mine' }, holder, channel);
      expect(subscriptions.holders(channel.via, 'notes://mine')).toBe(2);

      await notes.stop();
      await notes.restart(Number.POSITIVE_INFINITY);
      await until(() => ended.length === 1);
      expect(ended).toEqual(['notes u1 notes://mine']);
      expect(subscriptions.holders(channel.via, 'notes://mine')).toBe(0);
      const attempts = warnings.filter((w) => w.msg === 'could not open a new per-user connection');
      expect(attempts.map((w) => [w.upstream, w.user, w.attempt, w.of])).toEqual(Array.from({ length: RENEW_ATTEMPTS }, (_, i) => ['notes', 'u1', i + 1, RENEW_ATTEMPTS]));
      const gaveUp = warnings.filter((w) => String(w.msg).startsWith('per-user connection not renewed'));
      expect(gaveUp.map((w) => [w.upstream, w.user, w.subscriptions])).toEqual([['notes', 'u1', 1]]);
      expect(notes.subscriptions).toEqual(['account-u1 notes://mine']);
      expect(users.size).toBe(0);
    } finally {
      setLogger(before);
      await notes.close();
    }
  }, 120_000);

  it('a connection unused for idleMs is closed', async () => {
    const users = connections(10, 50);
    expect(text(await users.call('tracker', cfg(), 'u3', 'whoami', {}))).toMatch(/ account account-u3$/);
    await until(() => users.size === 0);
    expect(text(await users.call('tracker', cfg(), 'u3', 'whoami', {}))).toMatch(/ account account-u3$/);
  }, 120_000);
});
