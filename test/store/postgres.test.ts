/**
 * The PostgreSQL backend's own behaviour: a database restarted under a running store
 * (operations fail meanwhile with StoreUnavailableError naming the store, then work again
 * without reopening; the event listener reconnects and delivers again), a database that
 * cannot be reached at all, and the password kept out of every location and error.
 *
 * Runs a server of its own (pgCluster.ts), since it stops it: without the server binaries
 * it is skipped, except in CI (CI=true), where it fails.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openStore, StoreUnavailableError, type Store } from '../../src/store/index.js';
import { pgBinDir, startCluster, type PgCluster } from '../helpers/pgCluster.js';
import { freePort } from '../helpers/process.js';

const SKIP = pgBinDir() === undefined && process.env.CI !== 'true';
if (SKIP) console.warn('postgres.test.ts: SKIPPING, no PostgreSQL server binaries (apt-get install postgresql; with CI=true it runs and fails instead)');

const row = (tool: string) => ({ time: 1, sessionId: 's', tool, requestedName: tool, args: {}, decision: 'allowed' as const, decisions: [], notes: [], outcome: 'ok' as const });

/** Retries `fn` until it resolves (the database is back), at most `tries` times a second apart. */
async function eventually<T>(fn: () => Promise<T>, tries = 120): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= tries) throw err;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

describe.skipIf(SKIP)('PostgreSQL restarted under running stores', () => {
  let cluster: PgCluster;
  let gateway: Store;
  let other: Store;
  const problems: string[] = [];

  beforeAll(async () => {
    cluster = await startCluster();
    gateway = await openStore(cluster.url, { onProblem: (m) => problems.push(m), postgres: { connectTimeoutMs: 2_000 } });
    other = await openStore(cluster.url, { postgres: { connectTimeoutMs: 2_000 } });
  }, 180_000);
  afterAll(async () => {
    await gateway?.close();
    await other?.close();
    cluster?.remove();
  });

  test('errors name the store while it is down; it recovers by itself, events included', async () => {
    await gateway.audit.record(row('before'));
    const heard: string[] = [];
    gateway.events.on('approval', (p) => heard.push(p.id));
    let resyncs = 0;
    gateway.events.on('resync', () => resyncs++);
    await eventually(async () => {
      if (resyncs === 0) throw new Error('listener not connected yet');
    }, 60);

    cluster.stop('immediate');
    const down = await gateway.audit.record(row('during')).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(down).toBeInstanceOf(StoreUnavailableError);
    expect(down!.message).toMatch(new RegExp(`^store postgres://tc@127\\.0\\.0\\.1:\\d+/postgres is unavailable: `));
    await expect(gateway.ping()).rejects.toThrow(StoreUnavailableError);
    await expect(gateway.approvals.list()).rejects.toThrow(StoreUnavailableError);

    cluster.start();
    // Same store objects, no reopening: the pool makes new connections.
    await eventually(() => gateway.ping());
    await gateway.audit.record(row('after'));
    expect((await other.audit.tail(10)).map((r) => r.tool)).toEqual(['before', 'after']);
    // The listener reconnected (a second resync), and events from another replica arrive again.
    await eventually(async () => {
      if (resyncs < 2) throw new Error('listener not reconnected yet');
    });
    const a = await other.approvals.request({ key: 'k', sessionId: 's', tool: 't', args: {}, ttlMs: 60_000 });
    await eventually(async () => {
      if (!heard.includes(a.id)) throw new Error('event not delivered yet');
    }, 30);
    expect(problems.some((p) => p.startsWith('store event listener lost its connection'))).toBe(true);
  }, 240_000);
});

describe('a database that cannot be reached', () => {
  test('opening fails with StoreUnavailableError naming the store, never its password', async () => {
    const port = await freePort();
    const url = `postgres://gateway:s3cret-pw@127.0.0.1:${port}/tc?password=other-secret`;
    const err = await openStore(url, { postgres: { connectTimeoutMs: 1_000 } }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect(err!.message).toMatch(new RegExp(`^store postgres://gateway@127\\.0\\.0\\.1:${port}/tc is unavailable: `));
    expect(err!.message).not.toContain('s3cret-pw');
    expect(err!.message).not.toContain('other-secret');
  });
});
