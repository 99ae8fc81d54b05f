/**
 * The audit part on each backend: rows round-trip, a row begun before a call stays
 * `running` until completed (as after a crash), completions are written behind the
 * caller and never lost at close, rows of several replicas are one ordered log with none lost. (Redaction and bounds are the writer's: test/guards/audit.test.ts.)
 */
import { describe, expect, test } from 'vitest';
import type { AuditEntry } from '../../src/store/index.js';
import { BACKENDS, freshStores, rawQuery, setupBackends } from '../helpers/stores.js';

const entry = (over: Partial<AuditEntry> = {}): AuditEntry => ({
  time: 1_800_000_000_000,
  sessionId: 'sess-1',
  persona: 'student',
  userId: 'S0001',
  tool: 'make_payment',
  requestedName: 'make_paymnt',
  args: { student_id: 'S0001', amount: 100, card: { card_token: '[redacted]', last4: '4242' } },
  decision: 'approved',
  decisions: ['corrected', 'approved'],
  notes: ['corrected from make_paymnt (ratio 0.957)'],
  upstreamMs: 12.5,
  outcome: 'ok',
  ...over,
});

setupBackends();

describe.each(BACKENDS)('audit on $kind', (backend) => {
  const stores = freshStores(backend);
  const another = stores.another;

  test('round-trips every field; optional ones stay absent', async () => {
    const store = await another();
    const id = await store.audit.record(entry());
    await store.audit.record(entry({ persona: undefined, userId: undefined, upstreamMs: undefined, decisions: [], decision: 'allowed', detail: 'refused: no' }));
    const [first, second] = await store.audit.tail(2);
    expect(first).toEqual({ ...entry(), id });
    expect(second).toEqual({ id: id + 1, time: 1_800_000_000_000, sessionId: 'sess-1', tool: 'make_payment', requestedName: 'make_paymnt', args: entry().args, decision: 'allowed', decisions: [], notes: entry().notes, outcome: 'ok', detail: 'refused: no' });
  });

  test('tail returns the last n, oldest first', async () => {
    const store = await another();
    for (const tool of ['a', 'b', 'c', 'd']) await store.audit.record(entry({ tool }));
    expect((await store.audit.tail(2)).map((r) => r.tool)).toEqual(['c', 'd']);
    expect((await store.audit.tail(10)).map((r) => r.tool)).toEqual(['a', 'b', 'c', 'd']);
  });

  test('begin commits a running row that another process sees; complete finishes it once', async () => {
    const gateway = await another();
    const { outcome: _, upstreamMs: __, ...started } = entry({ decision: 'approved' });
    const id = await gateway.audit.begin(started);
    // What `tool-curator audit` shows while the call runs, or after the gateway died in it.
    const cli = await another();
    expect(await cli.audit.tail(1)).toEqual([{ ...started, id, outcome: 'running' }]);
    const done = { outcome: 'ok' as const, decision: 'approved' as const, decisions: ['corrected', 'approved'] as AuditEntry['decisions'], notes: ['approval x by cli'], upstreamMs: 40 };
    expect(await gateway.audit.complete(id, done)).toBe(true);
    expect(await gateway.audit.complete(id, { ...done, outcome: 'error' })).toBe(false);
    expect(await cli.audit.tail(1)).toEqual([{ ...started, id, ...done }]);
  });

  test('completions are written behind the caller; close writes those still waiting', async () => {
    const gateway = await another();
    const { outcome: _, upstreamMs: __, ...started } = entry();
    const ids = [await gateway.audit.begin(started), await gateway.audit.begin(started), await gateway.audit.begin(started)];
    const done = { outcome: 'ok' as const, decision: 'approved' as const, decisions: ['approved'] as AuditEntry['decisions'], notes: [] };
    const found = ids.map((id, i) => gateway.audit.complete(id, { ...done, upstreamMs: i }));
    if (backend.kind === 'sqlite') {
      // In the caller's turn nothing is written yet (this read runs before the turn ends).
      expect((await rawQuery<{ outcome: string }>('sqlite', stores.location, 'SELECT outcome FROM audit')).map((r) => r.outcome)).toEqual(['running', 'running', 'running']);
    }
    await gateway.close();
    expect(await Promise.all(found)).toEqual([true, true, true]);
    const rows = await rawQuery<{ outcome: string; upstream_ms: number }>(backend.kind, stores.location, 'SELECT outcome, upstream_ms FROM audit ORDER BY id');
    expect(rows.map((r) => [r.outcome, Number(r.upstream_ms)])).toEqual([['ok', 0], ['ok', 1], ['ok', 2]]);
  });

  test('a completion waiting is written before tail reads, and by itself when no call follows', async () => {
    const gateway = await another();
    const { outcome: _, upstreamMs: __, ...started } = entry();
    const [a, b] = [await gateway.audit.begin(started), await gateway.audit.begin(started)];
    const done = { outcome: 'error' as const, decision: 'allowed' as const, decisions: [], notes: ['n'], upstreamMs: 3, detail: 'boom' };
    const first = gateway.audit.complete(a, done);
    expect((await gateway.audit.tail(2)).map((r) => r.outcome)).toEqual(['error', 'running']);
    expect(await first).toBe(true);
    expect(await gateway.audit.complete(b, done)).toBe(true);
    expect((await (await another()).audit.tail(2)).map((r) => r.outcome)).toEqual(['error', 'error']);
  });

  test('a completion waiting is committed with the next begin', async () => {
    const gateway = await another();
    const { outcome: _, upstreamMs: __, ...started } = entry();
    const a = await gateway.audit.begin(started);
    const found = gateway.audit.complete(a, { outcome: 'ok', decision: 'allowed', decisions: [], notes: [], upstreamMs: 5 });
    const b = await gateway.audit.begin({ ...started, tool: 'get_fee_dues' });
    if (backend.kind === 'sqlite') {
      // No timer can have run since complete(): the begin's own transaction wrote it.
      const rows = await rawQuery<{ id: number; outcome: string }>('sqlite', stores.location, 'SELECT id, outcome FROM audit ORDER BY id');
      expect(rows.map((r) => [Number(r.id), r.outcome])).toEqual([[a, 'ok'], [b, 'running']]);
    }
    expect(await found).toBe(true);
    expect((await (await another()).audit.tail(2)).map((r) => [r.tool, r.outcome, r.upstreamMs])).toEqual([['make_payment', 'ok', 5], ['get_fee_dues', 'running', undefined]]);
  });

  test.skipIf(backend.kind !== 'sqlite')('a waiting completion that cannot be written fails alone: the next begin still commits its row', async () => {
    const gateway = await another();
    const { outcome: _, upstreamMs: __, ...started } = entry();
    const a = await gateway.audit.begin(started);
    await rawQuery('sqlite', stores.location, "CREATE TRIGGER no_completion BEFORE UPDATE ON audit BEGIN SELECT RAISE(ABORT, 'completion refused'); END");
    const found = gateway.audit.complete(a, { outcome: 'ok', decision: 'allowed', decisions: [], notes: [], upstreamMs: 5 });
    const b = await gateway.audit.begin({ ...started, tool: 'get_fee_dues' });
    await expect(found).rejects.toThrow('completion refused');
    const rows = await rawQuery<{ id: number; tool: string; outcome: string }>('sqlite', stores.location, 'SELECT id, tool, outcome FROM audit ORDER BY id');
    expect(rows.map((r) => [Number(r.id), r.tool, r.outcome])).toEqual([[a, 'make_payment', 'running'], [b, 'get_fee_dues', 'running']]);
  });

  test('three replicas writing at once: one log, ids increasing, no row lost', async () => {
    const replicas = [await another(), await another(), await another()];
    const ids = await Promise.all(replicas.flatMap((r, k) => Array.from({ length: 30 }, (_, i) => r.audit.record(entry({ sessionId: `r${k}`, tool: `t${i}` })))));
    expect(new Set(ids).size).toBe(90);
    const rows = await replicas[0]!.audit.tail(1000);
    expect(rows).toHaveLength(90);
    expect(rows.map((r) => r.id)).toEqual([...ids].sort((a, b) => a - b));
    for (const k of [0, 1, 2]) expect(rows.filter((r) => r.sessionId === `r${k}`)).toHaveLength(30);
  });
});
