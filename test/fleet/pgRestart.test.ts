/**
 * PostgreSQL restarted under a loaded fleet: two `serve --http` replicas behind HAProxy on
 * a PostgreSQL server of the test's own (test/helpers/pgCluster.ts, so stopping it touches
 * no other test), four hosts calling through HAProxy.
 * - While the server is down: every action call is refused with an error naming the store
 *   (actions never run unaudited), read-only calls and find_tools still answer, and the
 *   hosts' sessions stay on their replicas (HAProxy's force-persist while no replica is ready).
 * - Once it is back: the same gateway processes and the same sessions run actions again,
 *   audited, with no restart; a new host initializes.
 * Needs the `haproxy` binary and the PostgreSQL server binaries (initdb, pg_ctl).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fleet, recordsUpstream, skipFleet, waitFor, type FleetHost } from '../helpers/fleet.js';
import { pgBinDir, startCluster, type PgCluster } from '../helpers/pgCluster.js';
import { text } from '../upstream/authFlow.js';

const noServer = pgBinDir() === undefined && process.env.CI !== 'true';
if (noServer) console.warn('pgRestart.test.ts: SKIPPING, no PostgreSQL server binaries (initdb, pg_ctl: apt-get install postgresql, or PG_BINDIR); with CI=true it runs and fails instead');
const skip = skipFleet('pgRestart.test.ts') || noServer;
const HOSTS = 4;
const ROUNDS = 3;

/** Until HAProxy answers `url` itself with 503 (no `X-Served-By`: no replica is up); rejects after `ms`. */
async function allDown(url: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  let last = '';
  while (Date.now() < deadline) {
    const res = await fetch(url, { signal: AbortSignal.timeout(10_000) }).catch((err: Error) => err);
    if (!(res instanceof Error) && res.status === 503 && !res.headers.has('x-served-by')) return;
    last = res instanceof Error ? res.message : `${res.status} from ${res.headers.get('x-served-by')}`;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`HAProxy still routes ${url} after ${ms / 1000} s (last: ${last})`);
}

describe.skipIf(skip)('PostgreSQL restarted under a fleet behind HAProxy', () => {
  let cluster: PgCluster;
  let fleet: Fleet;
  const hosts: FleetHost[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'tc-fleet-pg-'));

  beforeAll(async () => {
    cluster = await startCluster();
    const personas = join(dir, 'personas.yaml');
    // confirm: none, so that an action needs nothing but its audit row from the store.
    writeFileSync(personas, JSON.stringify({ student: { allow: ['*'], confirm: 'none' } }));
    fleet = await Fleet.start({
      store: cluster.url,
      config: {
        upstreams: { alpha: recordsUpstream('alpha') },
        policy: { personas },
        postgres: { connect_timeout_ms: 2_000, statement_timeout_ms: 10_000 },
      },
    });
  }, 400_000);
  afterAll(async () => {
    await Promise.all(hosts.map((h) => h.close()));
    await fleet?.stop();
    cluster?.remove();
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  /** ROUNDS rounds of an action, a read-only call and a find_tools on every host at once; what each answered. */
  const load = (tag: string) =>
    Promise.all(hosts.map(async (h, i) => {
      const answers: { tool: string; session: string; isError: boolean; text: string }[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const id = `${tag}-${i}-${r}`;
        for (const [tool, args] of [['update_record', { id, field: 'status', value: tag }], ['lookup_record', { id }]] as const) {
          const result = (await h.client.callTool({ name: tool, arguments: args }, { timeout: 120_000 })) as CallToolResult;
          answers.push({ tool, session: h.transport.sessionId!, isError: result.isError === true, text: text(result) });
        }
        const found = (await h.client.callTool({ name: 'find_tools', arguments: { query: 'archive a record' } }, { timeout: 120_000 })) as CallToolResult;
        answers.push({ tool: 'find_tools', session: h.transport.sessionId!, isError: found.isError === true, text: JSON.stringify(found.structuredContent) });
      }
      return answers;
    })).then((a) => a.flat());

  it('errors name the store while it is down; the same processes and sessions recover by themselves', async () => {
    for (let i = 0; i < HOSTS; i++) hosts.push(await fleet.host());
    expect(new Set(hosts.map((h) => h.servedBy[0])).size).toBe(2);
    const pids = fleet.replicas.map((r) => r.process.pid);

    const before = await load('before');
    expect(before.filter((a) => a.isError)).toEqual([]);

    cluster.stop('fast');
    // Each replica has noticed (its /readyz turns 503 on the store check) before the load.
    await Promise.all(fleet.replicas.map((r) => waitFor(`http://${r.address}/readyz`, 503, 60_000, `${r.name} unready without its store`)));
    // And HAProxy has marked both down (it answers a new request itself, 503): the load below goes through force-persist.
    await allDown(fleet.url.replace(/\/mcp$/, '/readyz'), 60_000);
    const during = await load('during');
    for (const a of during.filter((x) => x.tool === 'update_record')) {
      expect(a.isError, a.text).toBe(true);
      expect(a.text).toMatch(/^update_record has not run: the gateway's audit log cannot be written \(store postgres:\/\/tc@127\.0\.0\.1:\d+\/postgres is unavailable: .+\), and actions never run unaudited/);
      expect(a.text).toContain(new URL(cluster.url).host);
    }
    for (const a of during.filter((x) => x.tool === 'lookup_record')) expect(a.text).toMatch(/^alpha: record during-/);
    for (const a of during.filter((x) => x.tool === 'find_tools')) expect(a.text).toContain('archive_record');

    cluster.start();
    await Promise.all(fleet.replicas.map((r) => waitFor(`http://${r.address}/readyz`, 200, 180_000, `${r.name} ready again`)));
    await fleet.routesToAll(60_000);
    const after = await load('after');
    expect(after.filter((a) => a.isError)).toEqual([]);
    expect(fleet.replicas.map((r) => r.process.pid)).toEqual(pids);
    expect(fleet.live()).toHaveLength(2);
    // The sessions never changed replica, and never changed id.
    for (const h of hosts) {
      expect(new Set(h.servedBy).size).toBe(1);
      expect(h.sessionIds.size).toBe(1);
    }
    const fresh = await fleet.host();
    hosts.push(fresh);
    expect(text((await fresh.client.callTool({ name: 'lookup_record', arguments: { id: 'new' } })) as CallToolResult)).toBe('alpha: record new');

    // Every action answered before and after is audited; none of those refused while the store was down ran.
    const audit = await fleet.audit();
    const audited = new Set(audit.filter((a) => a.tool === 'update_record' && a.outcome === 'ok').map((a) => `${a.sessionId} ${String(a.args.value)} ${String(a.args.id)}`));
    const key = (tag: string, i: number, r: number) => `${hosts[i]!.transport.sessionId} ${tag} ${tag}-${i}-${r}`;
    for (const tag of ['before', 'after']) for (let i = 0; i < HOSTS; i++) for (let r = 0; r < ROUNDS; r++) expect(audited.has(key(tag, i, r)), key(tag, i, r)).toBe(true);
    expect(audit.filter((a) => a.tool === 'update_record' && String(a.args.value) === 'during')).toEqual([]);
  }, 600_000);
});
