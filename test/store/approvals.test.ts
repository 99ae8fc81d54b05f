/**
 * The approvals part on each backend: states and their clock, single use (also against a
 * row whose status is set back), the statement a person signs, and a decision taken by
 * one replica waking a call parked on another.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ApprovalError, type NewApproval, type Store } from '../../src/store/index.js';
import { BACKENDS, rawQuery, setupBackends } from '../helpers/stores.js';

const MIN = 60_000;

setupBackends();

describe.each(BACKENDS)('approvals on $kind', (backend) => {
  let t: number;
  let location: string;
  let store: Store;
  const open: Store[] = [];
  const req = (key = 'k1'): NewApproval => ({
    key,
    sessionId: 'sess-1',
    persona: 'student',
    userId: 'S0001',
    tool: 'make_payment',
    args: { amount: 100 },
    statement: `tool-curator call v1\nmake_payment\n${key}`,
    ttlMs: 10 * MIN,
  });
  const another = async () => {
    const s = await backend.open(location, { now: () => t });
    open.push(s);
    return s;
  };

  beforeEach(async () => {
    t = 1_000_000;
    location = await backend.fresh();
    store = await another();
  });
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
  });

  test('a request is pending, listed, live for its key, and keeps its statement', async () => {
    const a = await store.approvals.request(req());
    expect(a).toMatchObject({ status: 'pending', tool: 'make_payment', persona: 'student', userId: 'S0001', args: { amount: 100 }, statement: 'tool-curator call v1\nmake_payment\nk1' });
    expect(a.expiresAt - a.createdAt).toBe(10 * MIN);
    expect(a.id).toMatch(/^[a-z2-9]{8}$/);
    expect((await store.approvals.list()).map((x) => x.id)).toEqual([a.id]);
    expect((await store.approvals.live('k1'))?.id).toBe(a.id);
    expect(await store.approvals.live('other')).toBeUndefined();
  });

  test('approved → consumed exactly once', async () => {
    const a = await store.approvals.request(req());
    expect(await store.approvals.consume(a.id)).toBe(false); // pending is not approved
    await store.approvals.decide(a.id, 'approved', 'cli', 'ed25519:sig');
    expect(await store.approvals.consume(a.id)).toBe(true);
    expect(await store.approvals.consume(a.id)).toBe(false);
    expect(await store.approvals.get(a.id)).toMatchObject({ status: 'used', decidedBy: 'cli', proof: 'ed25519:sig', usedAt: t });
    expect(await store.approvals.live('k1')).toBeUndefined();
  });

  test('a used approval whose row is set back to approved is not usable again', async () => {
    const a = await store.approvals.request(req());
    await store.approvals.decide(a.id, 'approved', 'cli');
    expect(await store.approvals.consume(a.id)).toBe(true);
    await rawQuery(backend.kind, location, `UPDATE approvals SET status = 'approved', used_at = NULL WHERE id = '${a.id}'`);
    expect(await store.approvals.consume(a.id)).toBe(false);
    expect((await store.approvals.get(a.id))?.status).toBe('used');
    expect(await store.approvals.live('k1')).toBeUndefined();
  });

  test('an approval is valid for the TTL from when it is given', async () => {
    const a = await store.approvals.request(req());
    t += 9 * MIN;
    const approved = await store.approvals.decide(a.id, 'approved', 'web');
    expect(approved.expiresAt).toBe(t + 10 * MIN);
    t += 9 * MIN; // 18 min after the request
    expect(await store.approvals.consume(a.id)).toBe(true);
  });

  test('an unused approval expires and can no longer be consumed', async () => {
    const a = await store.approvals.request(req());
    await store.approvals.decide(a.id, 'approved', 'cli');
    t += 10 * MIN;
    expect(await store.approvals.consume(a.id)).toBe(false);
    expect((await store.approvals.get(a.id))?.status).toBe('expired');
  });

  test('a pending request expires after the TTL and then cannot be approved', async () => {
    const a = await store.approvals.request(req());
    t += 10 * MIN - 1;
    expect((await store.approvals.live('k1'))?.status).toBe('pending');
    t += 1;
    expect(await store.approvals.live('k1')).toBeUndefined();
    await expect(store.approvals.decide(a.id, 'approved', 'cli')).rejects.toThrow(/expired at/);
    expect((await store.approvals.get(a.id))?.status).toBe('expired');
    expect(await store.approvals.list()).toEqual([]);
  });

  test('a denial stays live for the TTL, blocking the same call, then lapses', async () => {
    const a = await store.approvals.request(req());
    await store.approvals.decide(a.id, 'denied', 'cli');
    expect((await store.approvals.live('k1'))?.status).toBe('denied');
    expect(await store.approvals.consume(a.id)).toBe(false);
    t += 10 * MIN;
    expect(await store.approvals.live('k1')).toBeUndefined();
    expect((await store.approvals.get(a.id))?.status).toBe('denied');
  });

  test('decisions are taken once; unknown ids are named', async () => {
    const a = await store.approvals.request(req());
    await store.approvals.decide(a.id, 'denied', 'cli');
    await expect(store.approvals.decide(a.id, 'approved', 'cli')).rejects.toThrow(`approval request ${a.id} is already denied`);
    await expect(store.approvals.decide('nope', 'approved', 'cli')).rejects.toThrow(ApprovalError);
    await expect(store.approvals.decide('nope', 'approved', 'cli')).rejects.toThrow(/no approval request with id nope/);
  });

  test('live returns the newest request of a key; list --all shows every status, newest first', async () => {
    const first = await store.approvals.request(req());
    await store.approvals.decide(first.id, 'approved', 'cli');
    await store.approvals.consume(first.id);
    const second = await store.approvals.request(req()); // same millisecond: insertion order decides
    expect((await store.approvals.live('k1'))?.id).toBe(second.id);
    t += 1;
    const third = await store.approvals.request(req('b'));
    expect((await store.approvals.list({ all: true })).map((x) => [x.id, x.status])).toEqual([
      [third.id, 'pending'],
      [second.id, 'pending'],
      [first.id, 'used'],
    ]);
  });

  test('two replicas: a decision by one wakes a call waiting on the other; one consume wins', async () => {
    const replica = await another();
    const a = await store.approvals.request(req());
    const waiting = store.approvals.wait(a.id, 60_000);
    await replica.approvals.decide(a.id, 'approved', 'web', 'hmac:sig');
    // Woken by the decision, long before the 60 s wait is over (the test's own timeout is 60 s).
    expect(await waiting).toMatchObject({ id: a.id, status: 'approved', proof: 'hmac:sig' });
    const uses = await Promise.all([store.approvals.consume(a.id), replica.approvals.consume(a.id), store.approvals.consume(a.id)]);
    expect(uses.filter(Boolean)).toHaveLength(1);
  });

  test('wait answers the pending request after its time, and at once for an unknown id', async () => {
    const a = await store.approvals.request(req());
    expect(await store.approvals.wait(a.id, 50)).toMatchObject({ id: a.id, status: 'pending' });
    expect(await store.approvals.wait('nope', 60_000)).toBeUndefined();
  });
});
