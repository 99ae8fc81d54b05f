import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, test } from 'vitest';
import { ApprovalError, ApprovalStore, type NewApproval } from '../../src/store/approvals.js';
import { openDb } from '../../src/store/db.js';

const MIN = 60_000;

describe('ApprovalStore', () => {
  let t: number;
  let store: ApprovalStore;
  const req = (key = 'k1'): NewApproval => ({
    key,
    sessionId: 'sess-1',
    persona: 'student',
    userId: 'S0001',
    tool: 'make_payment',
    args: { amount: 100 },
    ttlMs: 10 * MIN,
  });

  beforeEach(() => {
    t = 1_000_000;
    store = new ApprovalStore(openDb(':memory:'), { now: () => t });
  });

  test('a request is pending, listed, and live for its key', () => {
    const a = store.request(req());
    expect(a).toMatchObject({ status: 'pending', tool: 'make_payment', persona: 'student', userId: 'S0001', args: { amount: 100 } });
    expect(a.expiresAt - a.createdAt).toBe(10 * MIN);
    expect(a.id).toMatch(/^[a-z2-9]{8}$/);
    expect(store.list().map((x) => x.id)).toEqual([a.id]);
    expect(store.live('k1')?.id).toBe(a.id);
    expect(store.live('other')).toBeUndefined();
  });

  test('approved → consumed exactly once', () => {
    const a = store.request(req());
    expect(store.consume(a.id)).toBe(false); // pending is not approved
    store.decide(a.id, 'approved', 'cli');
    expect(store.consume(a.id)).toBe(true);
    expect(store.consume(a.id)).toBe(false);
    expect(store.get(a.id)).toMatchObject({ status: 'used', decidedBy: 'cli', usedAt: t });
    expect(store.live('k1')).toBeUndefined();
  });

  test('an approval is valid for the TTL from when it is given', () => {
    const a = store.request(req());
    t += 9 * MIN;
    const approved = store.decide(a.id, 'approved', 'web');
    expect(approved.expiresAt).toBe(t + 10 * MIN);
    t += 9 * MIN; // 18 min after the request
    expect(store.consume(a.id)).toBe(true);
  });

  test('an unused approval expires and can no longer be consumed', () => {
    const a = store.request(req());
    store.decide(a.id, 'approved', 'cli');
    t += 10 * MIN;
    expect(store.consume(a.id)).toBe(false);
    expect(store.get(a.id)?.status).toBe('expired');
  });

  test('a pending request expires after the TTL and then cannot be approved', () => {
    const a = store.request(req());
    t += 10 * MIN - 1;
    expect(store.live('k1')?.status).toBe('pending');
    t += 1;
    expect(store.live('k1')).toBeUndefined();
    expect(() => store.decide(a.id, 'approved', 'cli')).toThrow(/expired at/);
    expect(store.get(a.id)?.status).toBe('expired');
    expect(store.list()).toEqual([]);
  });

  test('a denial stays live for the TTL, blocking the same call, then lapses', () => {
    const a = store.request(req());
    store.decide(a.id, 'denied', 'cli');
    expect(store.live('k1')?.status).toBe('denied');
    expect(store.consume(a.id)).toBe(false);
    t += 10 * MIN;
    expect(store.live('k1')).toBeUndefined();
    expect(store.get(a.id)?.status).toBe('denied');
  });

  test('decisions are taken once; unknown ids are named', () => {
    const a = store.request(req());
    store.decide(a.id, 'denied', 'cli');
    expect(() => store.decide(a.id, 'approved', 'cli')).toThrow(`approval request ${a.id} is already denied`);
    expect(() => store.decide('nope', 'approved', 'cli')).toThrow(ApprovalError);
    expect(() => store.decide('nope', 'approved', 'cli')).toThrow(/no approval request with id nope/);
  });

  test('live returns the newest request of a key', () => {
    const first = store.request(req());
    store.decide(first.id, 'approved', 'cli');
    store.consume(first.id);
    t += 1;
    const second = store.request(req());
    expect(store.live('k1')?.id).toBe(second.id);
  });

  test('list --all shows every status, newest first', () => {
    const a = store.request(req('a'));
    t += 1;
    const b = store.request(req('b'));
    store.decide(a.id, 'denied', 'cli');
    expect(store.list({ all: true }).map((x) => [x.id, x.status])).toEqual([
      [b.id, 'pending'],
      [a.id, 'denied'],
    ]);
  });

  test('two stores on one file (gateway and CLI) see each other; one consume wins', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'approvals-')), 'store.db');
    const gateway = new ApprovalStore(openDb(file));
    const cli = new ApprovalStore(openDb(file));
    const a = gateway.request(req());
    cli.decide(a.id, 'approved', 'cli');
    expect([gateway.consume(a.id), cli.consume(a.id)]).toEqual([true, false]);
  });
});
