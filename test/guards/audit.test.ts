/**
 * AuditWriter, the one way rows reach the audit log: values are redacted at any depth and
 * bounded before the store sees them, on `record`, `begin` and `complete` alike.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { AuditWriter } from '../../src/guards/audit.js';
import { openStore, type AuditEntry, type Store } from '../../src/store/index.js';
import { rawQuery } from '../helpers/stores.js';

const entry = (over: Partial<AuditEntry> = {}): AuditEntry => ({
  time: 1_800_000_000_000,
  sessionId: 'sess-1',
  tool: 'make_payment',
  requestedName: 'make_payment',
  args: { student_id: 'S0001', amount: 100, card: { card_token: 'tok_live_1', last4: '4242' } },
  decision: 'allowed',
  decisions: [],
  notes: [],
  outcome: 'ok',
  ...over,
});

describe('AuditWriter', () => {
  let file: string;
  let store: Store;
  beforeEach(async () => {
    file = join(mkdtempSync(join(tmpdir(), 'tc-audit-')), 'store.db');
    store = await openStore(file);
  });
  afterEach(() => store.close());

  test('redacts the configured fields at any depth, on record and begin', async () => {
    const writer = new AuditWriter(store.audit, ['token', 'password']);
    await writer.record(entry());
    const { outcome: _, ...started } = entry({ args: { password: 'hunter2', nested: [{ api_token: 'x' }] } });
    await writer.begin(started);
    const [recorded, begun] = await store.audit.tail(2);
    expect(recorded!.args).toEqual({ student_id: 'S0001', amount: 100, card: { card_token: '[redacted]', last4: '4242' } });
    expect(begun!.args).toEqual({ password: '[redacted]', nested: [{ api_token: '[redacted]' }] });
    const stored = JSON.stringify(await rawQuery('sqlite', file, 'SELECT * FROM audit'));
    expect(stored).not.toContain('tok_live_1');
    expect(stored).not.toContain('hunter2');
  });

  test('names, argument values, notes and details are stored bounded, with markers', async () => {
    const writer = new AuditWriter(store.audit, [], 256);
    const huge = 'n'.repeat(3_000_000);
    await writer.record(entry({ tool: huge, requestedName: huge, args: { blob: 'x'.repeat(1_000_000), list: Array.from({ length: 10_000 }, (_, i) => i) }, notes: [huge], detail: huge }));
    const [r] = await store.audit.tail(1);
    expect(r!.tool).toBe(`${'n'.repeat(128)}…[3000000 chars]`);
    expect(r!.requestedName).toBe(r!.tool);
    expect(r!.args.blob).toBe(`${'x'.repeat(256)}…[truncated 999744 bytes]`);
    expect((r!.args.list as unknown[]).at(-1)).toBe('…[9984 more items]');
    expect(r!.notes[0]).toBe(`${'n'.repeat(256)}…[truncated 2999744 bytes]`);
    expect(r!.detail).toHaveLength(256);
    const [row] = await rawQuery<{ n: number }>('sqlite', file, 'SELECT SUM(LENGTH(args_json) + LENGTH(notes_json) + LENGTH(tool) + LENGTH(requested_name) + LENGTH(detail)) AS n FROM audit');
    expect(row!.n).toBeLessThan(2_000);
  });

  test('complete bounds its notes and detail too', async () => {
    const writer = new AuditWriter(store.audit, [], 100);
    const { outcome: _, ...started } = entry();
    const id = await writer.begin(started);
    await writer.complete(id, { outcome: 'error', decision: 'allowed', decisions: [], notes: ['m'.repeat(1000)], detail: 'e'.repeat(10_000) });
    const [r] = await store.audit.tail(1);
    expect(r).toMatchObject({ outcome: 'error', notes: [`${'m'.repeat(100)}…[truncated 900 bytes]`] });
    expect(r!.detail).toHaveLength(100);
  });
});
