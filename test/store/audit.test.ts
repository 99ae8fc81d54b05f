import { describe, expect, test } from 'vitest';
import { AuditLog, type AuditEntry } from '../../src/store/audit.js';
import { openDb } from '../../src/store/db.js';

const entry = (over: Partial<AuditEntry> = {}): AuditEntry => ({
  time: 1_800_000_000_000,
  sessionId: 'sess-1',
  persona: 'student',
  userId: 'S0001',
  tool: 'make_payment',
  requestedName: 'make_paymnt',
  args: { student_id: 'S0001', amount: 100, card: { card_token: 'tok_live_1', last4: '4242' } },
  decision: 'approved',
  decisions: ['corrected', 'approved'],
  notes: ['corrected from make_paymnt (ratio 0.957)'],
  upstreamMs: 12.5,
  outcome: 'ok',
  ...over,
});

describe('AuditLog', () => {
  test('round-trips every field, redacting the configured ones at any depth', () => {
    const log = new AuditLog(openDb(':memory:'), ['token', 'password']);
    const id = log.record(entry());
    expect(log.tail(1)).toEqual([
      { ...entry(), id, args: { student_id: 'S0001', amount: 100, card: { card_token: '[redacted]', last4: '4242' } } },
    ]);
  });

  test('optional fields stay absent', () => {
    const log = new AuditLog(openDb(':memory:'));
    log.record(entry({ persona: undefined, userId: undefined, upstreamMs: undefined, decisions: [], decision: 'allowed' }));
    const [r] = log.tail(1);
    expect(r).not.toHaveProperty('persona');
    expect(r).not.toHaveProperty('userId');
    expect(r).not.toHaveProperty('upstreamMs');
    expect(r).not.toHaveProperty('detail');
    expect(r!.decisions).toEqual([]);
  });

  test('tail returns the last n, oldest first', () => {
    const log = new AuditLog(openDb(':memory:'));
    for (const tool of ['a', 'b', 'c', 'd']) log.record(entry({ tool }));
    expect(log.tail(2).map((r) => r.tool)).toEqual(['c', 'd']);
    expect(log.tail(10).map((r) => r.tool)).toEqual(['a', 'b', 'c', 'd']);
  });

  test('names, argument values, notes and details are stored bounded, with markers', () => {
    const db = openDb(':memory:');
    const log = new AuditLog(db, [], 256);
    const huge = 'n'.repeat(3_000_000);
    log.record(entry({ tool: huge, requestedName: huge, args: { blob: 'x'.repeat(1_000_000), list: Array.from({ length: 10_000 }, (_, i) => i) }, notes: [huge], detail: huge }));
    const [r] = log.tail(1);
    expect(r!.tool).toBe(`${'n'.repeat(128)}…[3000000 chars]`);
    expect(r!.requestedName).toBe(r!.tool);
    expect(r!.args.blob).toBe(`${'x'.repeat(256)}…[truncated 999744 bytes]`);
    expect((r!.args.list as unknown[]).at(-1)).toBe('…[9984 more items]');
    expect(r!.notes[0]).toBe(`${'n'.repeat(256)}…[truncated 2999744 bytes]`);
    expect(r!.detail).toHaveLength(256);
    const row = db.prepare<[], { n: number }>('SELECT SUM(LENGTH(args_json) + LENGTH(notes_json) + LENGTH(tool) + LENGTH(requested_name) + LENGTH(detail)) AS n FROM audit').get()!;
    expect(row.n).toBeLessThan(2_000);
  });
});
