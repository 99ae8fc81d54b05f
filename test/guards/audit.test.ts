/**
 * AuditWriter, the one way rows reach the audit log: values are redacted at any depth and
 * bounded before the store sees them, on `record`, `begin` and `complete` alike.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { auditGuards, AuditWriter } from '../../src/guards/audit.js';
import { HeldSecrets } from '../../src/guards/secrets/held.js';
import { SecretRedactor } from '../../src/guards/secrets/redactor.js';
import { compose, type CallHandler } from '../../src/guards/types.js';
import { gatewayConfigSchema } from '../../src/config/schema.js';
import { context } from './helpers.js';
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

  test('held secrets are removed from arguments, notes and error detail, whatever field or text carries them (issue 29)', async () => {
    const held = new HeldSecrets();
    held.set('config', [{ value: 'postgres://svc:db-pass-8e4a2c6f@db/x', label: 'env DB_URL of upstream db' }]);
    const writer = new AuditWriter(store.audit, ['token'], 4096, new SecretRedactor(held, 'off'));
    const m = '[secret removed: env DB_URL of upstream db]';
    await writer.record(entry({ args: { query: 'login db-pass-8e4a2c6f' }, notes: ['seen db-pass-8e4a2c6f'], outcome: 'error', detail: 'DB_URL: postgres://svc:db-pass-8e4a2c6f@db/x refused' }));
    const [row] = await store.audit.tail(1);
    expect(row!.args).toEqual({ query: `login ${m}` });
    expect(row!.notes).toEqual([`seen ${m}`]);
    expect(row!.detail).toBe(`DB_URL: ${m} refused`);
    expect(JSON.stringify(await rawQuery('sqlite', file, 'SELECT * FROM audit'))).not.toContain('db-pass-8e4a2c6f');
  });

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
    await writer.complete(id, { outcome: 'error', decision: 'allowed', decisions: [], notes: ['m'.repeat(1000)], detail: 'e'.repeat(10_000) }, started.args);
    const [r] = await store.audit.tail(1);
    expect(r).toMatchObject({ outcome: 'error', notes: [`${'m'.repeat(100)}…[truncated 900 bytes]`] });
    expect(r!.detail).toHaveLength(100);
  });

  test('the default list hides authorization, cookies, credentials and keys at any depth, whatever the case', async () => {
    const writer = new AuditWriter(store.audit, gatewayConfigSchema.shape.audit.parse(undefined).redact);
    const args = {
      url: 'https://api.example/v1',
      headers: { Authorization: 'Bearer sk-live-AAAA', Cookie: 'sid=cookie-BBBB', 'Set-Cookie': 'sid=cookie-CCCC', 'X-Api-Key': 'key-DDDD' },
      auth: { credentials: { user: 'ana', pass: 'pw-EEEE' }, private_key: 'pk-FFFF', client_secret: 'cs-GGGG', access_token: 'at-HHHH', refresh_token: 'rt-IIII', PASSWORD: 'pw-JJJJ' },
    };
    await writer.record(entry({ args }));
    const [r] = await store.audit.tail(1);
    expect(r!.args).toEqual({
      url: 'https://api.example/v1',
      headers: { Authorization: '[redacted]', Cookie: '[redacted]', 'Set-Cookie': '[redacted]', 'X-Api-Key': '[redacted]' },
      auth: { credentials: '[redacted]', private_key: '[redacted]', client_secret: '[redacted]', access_token: '[redacted]', refresh_token: '[redacted]', PASSWORD: '[redacted]' },
    });
    const stored = JSON.stringify(await rawQuery('sqlite', file, 'SELECT * FROM audit'));
    for (const secret of ['AAAA', 'BBBB', 'CCCC', 'DDDD', 'EEEE', 'FFFF', 'GGGG', 'HHHH', 'IIII', 'JJJJ']) expect(stored).not.toContain(secret);
  });

  test('an upstream error echoing a secret, and an exception naming one, are stored redacted', async () => {
    const writer = new AuditWriter(store.audit, gatewayConfigSchema.shape.audit.parse(undefined).redact);
    const { around, beforeForward } = auditGuards(writer);
    const echoing: CallHandler = async (ctx) => {
      ctx.upstreamMs = 3;
      const token = (ctx.args.headers as Record<string, string>).Authorization;
      return { isError: true, content: [{ type: 'text', text: `401 Unauthorized: ${token} was revoked; refresh_token=rt-SECRET-2, {"client_secret": "cs-SECRET-3"}` }] };
    };
    const throwing: CallHandler = async () => {
      throw new Error('fetch failed for https://u:pw@host (Authorization: Basic dXNlcjpwdy1TRUNSRVQtNA==)');
    };
    const args = { headers: { Authorization: 'Bearer sk-SECRET-1' } };
    await compose([around, beforeForward], echoing)(context('fetch', args));
    await expect(compose([around, beforeForward], throwing)(context('fetch', args))).rejects.toThrow(/fetch failed/);
    const [echoed, thrown] = await store.audit.tail(2);
    expect(echoed!.detail).toBe('401 Unauthorized: [redacted] was revoked; refresh_token=[redacted], {"client_secret": "[redacted]"}');
    expect(thrown!.detail).toBe('fetch failed for https://u:pw@host (Authorization: [redacted])');
    const stored = JSON.stringify(await rawQuery('sqlite', file, 'SELECT * FROM audit'));
    expect(stored).not.toMatch(/SECRET|dXNlcjpw/);
  });
});
