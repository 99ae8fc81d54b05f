/**
 * The OAuth refresh race across a fleet: two `serve --http` replicas on one PostgreSQL
 * database behind HAProxy, one remote upstream behind a local authorization server that
 * issues single-use refresh tokens (test/upstream/authServer.ts). After the access token
 * expires, six hosts (three sessions on each replica) call at once: every call succeeds,
 * the fleet refreshes once, and the stored tokens survive for the calls after, on both
 * replicas. Consent is given once, with `tool-curator auth`, before the replicas start.
 * Needs the `haproxy` binary and TOOL_CURATOR_TEST_PG (.ci/run provides both).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { Fleet, skipFleet, type FleetHost } from '../helpers/fleet.js';
import { createDatabase, dropDatabase } from '../helpers/pgDatabase.js';
import { authorize, callTool, text } from '../upstream/authFlow.js';
import { startProtectedServer, type ProtectedServer } from '../upstream/authServer.js';

const skip = skipFleet('oauth.test.ts', { postgres: true });
const WHOAMI = /^client [0-9a-f-]{36} scopes \[tools:read\]$/;

describe.skipIf(skip)('single-use refresh tokens, two replicas behind HAProxy on PostgreSQL', () => {
  let server: ProtectedServer;
  let fleet: Fleet;
  let database: { name: string; url: string };
  const hosts: FleetHost[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'tc-fleet-oauth-'));

  beforeAll(async () => {
    server = await startProtectedServer();
    database = await createDatabase();
    const personas = join(dir, 'personas.yaml');
    writeFileSync(personas, JSON.stringify({ student: { allow: ['secure.*'], confirm: 'actions' } }));
    fleet = await Fleet.start({
      store: database.url,
      config: { upstreams: { secure: { url: server.mcpUrl, auth: 'oauth' } }, curator: { mode: 'none' }, policy: { personas } },
      beforeReplicas: async (f) => {
        const consent = await authorize(f.configPath, 'secure', f.env);
        if (consent.code !== 0) throw new Error(`tool-curator auth secure failed: ${consent.stderr}`);
      },
    });
  }, 400_000);
  afterAll(async () => {
    await Promise.all(hosts.map((h) => h.close()));
    await fleet?.stop();
    await server?.close();
    if (database) await dropDatabase(database.name);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const storedRefreshToken = async () => {
    const store = await openStore(database.url);
    try {
      const tokens = await store.oauth.get({ upstream: 'secure', url: server.mcpUrl }, 'tokens');
      return tokens && (JSON.parse(tokens) as { refresh_token?: string }).refresh_token;
    } finally {
      await store.close();
    }
  };
  const outputs = () => fleet.replicas.map((r) => `${r.name}:\n${r.process.tail}`).join('\n');

  it('6 parallel calls after expiry across two replicas: all succeed, one refresh, tokens kept', async () => {
    for (let i = 0; i < 6; i++) {
      const host = await fleet.host();
      hosts.push(host);
      expect(text(await callTool(host.client, 'whoami'))).toMatch(WHOAMI);
    }
    const perReplica = fleet.replicas.map((r) => hosts.filter((h) => h.servedBy[0] === r.name).length);
    expect(perReplica.every((n) => n > 0), `sessions per replica: ${perReplica.join(', ')}`).toBe(true);
    const before = await storedRefreshToken();
    expect(before).toMatch(/^rt-/);

    server.provider.expireAccessTokens();
    const refreshes = server.provider.refreshes;
    const results = await Promise.all(hosts.map((h) => callTool(h.client, 'whoami')));
    for (const r of results) expect(text(r), outputs()).toMatch(WHOAMI);
    expect(server.provider.refreshes).toBe(refreshes + 1);
    expect(server.provider.authorizations).toBe(1);

    const after = await storedRefreshToken();
    expect(after).toMatch(/^rt-/);
    expect(after).not.toBe(before);
    for (const h of hosts) expect(text(await callTool(h.client, 'whoami'))).toMatch(WHOAMI);
    for (const r of fleet.replicas) expect(r.process.matches(/needs authorization/)).toEqual([]);
  }, 300_000);
});
