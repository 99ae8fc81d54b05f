/**
 * Fleet-wide locks on each backend: one holder at a time across store instances (each a
 * replica), in-process callers queued, a lock of a holder that died freed, and a lock held
 * too long reported as the store being unavailable, naming the lock.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { StoreUnavailableError, type Store } from '../../src/store/index.js';
import { BACKENDS, rawQuery, setupBackends } from '../helpers/stores.js';

setupBackends();

describe.each(BACKENDS)('lock on $kind', (backend) => {
  let location: string;
  const open: Store[] = [];
  const another = async (lockTimeoutMs?: number) => {
    const s = await backend.open(location, lockTimeoutMs === undefined ? {} : { lockTimeoutMs });
    open.push(s);
    return s;
  };
  beforeEach(async () => {
    location = await backend.fresh();
  });
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
  });

  test('one holder at a time across replicas and within one; other names do not wait', async () => {
    const replicas = [await another(), await another(), await another()];
    let inside = 0;
    let most = 0;
    const order: string[] = [];
    const hold = (r: Store, who: string) =>
      r.lock('oauth:notes:', async () => {
        inside++;
        most = Math.max(most, inside);
        order.push(`${who}+`);
        await new Promise((resolve) => setTimeout(resolve, 20));
        order.push(`${who}-`);
        inside--;
        return who;
      });
    const other = replicas[0]!.lock('names', async () => 'names');
    const results = await Promise.all([...replicas.map((r, i) => hold(r, `r${i}`)), hold(replicas[0]!, 'r0again'), other]);
    expect(results).toEqual(['r0', 'r1', 'r2', 'r0again', 'names']);
    expect(most).toBe(1);
    // Every enter is followed by its own exit.
    for (let i = 0; i < order.length; i += 2) expect(order[i + 1]).toBe(order[i]!.replace('+', '-'));
  });

  test('an error inside releases the lock', async () => {
    const [a, b] = [await another(), await another()];
    await expect(a.lock('x', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await b.lock('x', async () => 'free')).toBe('free');
  });

  test('held past the lock timeout: StoreUnavailableError naming the lock', async () => {
    const [holder, waiter] = [await another(), await another(1_000)];
    let release!: () => void;
    const held = holder.lock('names', () => new Promise<void>((resolve) => (release = resolve)));
    await new Promise((r) => setTimeout(r, 100));
    const err = await waiter.lock('names', async () => 'got it').then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect(err!.message).toMatch(/lock "names" was held by another process for over 1 s$/);
    release();
    await held;
    expect(await waiter.lock('names', async () => 'got it')).toBe('got it');
  });

  test('the lock of a holder that died is freed', async () => {
    const holder = await another();
    let release!: () => void;
    const held = holder.lock('names', () => new Promise<void>((resolve) => (release = resolve)));
    await new Promise((r) => setTimeout(r, 100));
    if (backend.kind === 'sqlite') {
      // The process died: its lease is no longer renewed and lapses.
      await rawQuery('sqlite', location, `UPDATE store_locks SET expires_at = 0 WHERE name = 'names'`);
    } else {
      // The process died: its session ends, and with it the advisory lock.
      await rawQuery('postgres', location, `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND pid <> pg_backend_pid()`);
    }
    const survivor = await another(10_000);
    expect(await survivor.lock('names', async () => 'taken over')).toBe('taken over');
    release();
    await held;
  });
});
