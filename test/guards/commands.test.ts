import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { approverCheck } from '../../src/guards/approver.js';
import { approvalsCommand, auditCommand, type CommandIO } from '../../src/guards/commands.js';
import { AuditWriter } from '../../src/guards/audit.js';
import { openStore, type ApprovalsPart, type Store } from '../../src/store/index.js';

function capture(): CommandIO & { stdout: string; stderr: string } {
  const io = { stdout: '', stderr: '', out: (t: string) => void (io.stdout += t), err: (t: string) => void (io.stderr += t) };
  return io;
}

describe('approvals command', () => {
  let db: Store;
  let store: ApprovalsPart;
  let keyPath: string;
  beforeEach(async () => {
    db = await openStore(':memory:');
    store = db.approvals;
    keyPath = join(mkdtempSync(join(tmpdir(), 'tc-cmd-')), 'approver.key');
    expect(await await approvalsCommand(['init-key'], db, keyPath, capture())).toBe(0);
  });
  afterEach(() => db.close());
  const request = (amount: number) =>
    store.request({ key: `k${amount}`, sessionId: 's', persona: 'student', userId: 'S0001', tool: 'make_payment', args: { amount }, ttlMs: 600_000 });

  test('list shows pending requests as a table', async () => {
    const a = await request(100);
    const io = capture();
    expect(await approvalsCommand(['list'], db, keyPath, io)).toBe(0);
    const [header, row, ...rest] = io.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID\s+STATUS\s+TOOL\s+PERSONA\s+USER\s+AGE\s+EXPIRES IN\s+ARGUMENTS$/);
    expect(row!.split(/\s{2,}/)).toEqual([a.id, 'pending', 'make_payment', 'student', 'S0001', '0m', '10m', '{"amount":100}']);
    expect(rest).toEqual([]);
  });

  test('list with nothing pending says so; --json gives the records', async () => {
    const io = capture();
    await approvalsCommand(['list'], db, keyPath, io);
    expect(io.stdout).toBe('no pending approvals\n');
    const a = await request(1);
    const json = capture();
    await approvalsCommand(['list', '--json'], db, keyPath, json);
    expect(JSON.parse(json.stdout)).toMatchObject([{ id: a.id, status: 'pending', args: { amount: 1 } }]);
  });

  test('approve and deny decide; --all lists them', async () => {
    const a = await request(1);
    const b = await request(2);
    const io = capture();
    expect(await approvalsCommand(['approve', a.id], db, keyPath, io)).toBe(0);
    expect(await approvalsCommand(['deny', b.id], db, keyPath, io)).toBe(0);
    expect(io.stdout).toBe(
      `approved ${a.id}: make_payment for student S0001; the next identical call runs once (within 10m)\n` +
        `denied ${b.id}: make_payment for student S0001; it will not run\n`,
    );
    expect(await store.get(a.id)).toMatchObject({ status: 'approved', decidedBy: 'cli' });
    const all = capture();
    await approvalsCommand(['list', '--all'], db, keyPath, all);
    expect(all.stdout).toContain(`${b.id}  denied`);
    expect(all.stdout).toContain(`${a.id}  approved`);
  });

  test('a second decision fails with exit 1 and the reason on stderr', async () => {
    const a = await request(1);
    await approvalsCommand(['deny', a.id], db, keyPath, capture());
    const io = capture();
    expect(await approvalsCommand(['approve', a.id], db, keyPath, io)).toBe(1);
    expect(io.stderr).toBe(`approval request ${a.id} is already denied\n`);
    expect(io.stdout).toBe('');
  });

  test('init-key makes a 0600 private key and its public half, and never overwrites them', async () => {
    expect(statSync(keyPath).mode & 0o777).toBe(0o600);
    expect(readFileSync(`${keyPath}.pub`, 'utf8')).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    const io = capture();
    expect(await approvalsCommand(['init-key'], db, keyPath, io)).toBe(1);
    expect(io.stderr).toBe(`an approver key already exists at ${keyPath}; it is never overwritten (delete it and its .pub first to make a new one)\n`);
  });

  test('approve without the approver key fails with the reason, and decides nothing', async () => {
    const a = await request(1);
    const missing = join(mkdtempSync(join(tmpdir(), 'tc-cmd-')), 'approver.key');
    const io = capture();
    expect(await approvalsCommand(['approve', a.id], db, missing, io)).toBe(1);
    expect(io.stderr).toMatch(new RegExp(`^approving needs the approver key, and there is none at ${missing}\\. The person who approves creates it once`));
    expect((await store.get(a.id))?.status).toBe('pending');
  });

  test('a key others may read is refused; --key-file picks another key, which must match the .pub the gateway checks', async () => {
    const a = await request(1);
    chmodSync(keyPath, 0o644);
    const io = capture();
    expect(await approvalsCommand(['approve', a.id], db, keyPath, io)).toBe(1);
    expect(io.stderr).toBe(`the approver key ${keyPath} is readable by other users; run \`chmod 600 ${keyPath}\` (only the approving person may hold it)\n`);
    chmodSync(keyPath, 0o600);
    const other = join(mkdtempSync(join(tmpdir(), 'tc-cmd-')), 'approver.key');
    await approvalsCommand(['init-key'], db, other, capture());
    const wrong = capture();
    expect(await approvalsCommand(['approve', a.id, '--key-file', other], db, keyPath, wrong)).toBe(1);
    expect(wrong.stderr).toBe(`the approver key ${other} does not match ${keyPath}.pub, which the gateway checks approvals against\n`);
    expect((await store.get(a.id))?.status).toBe('pending');
    // The approver may keep the key elsewhere (their own home) and leave only the .pub beside the store.
    const moved = join(mkdtempSync(join(tmpdir(), 'tc-cmd-')), 'my.key');
    writeFileSync(moved, readFileSync(keyPath), { mode: 0o600 });
    rmSync(keyPath);
    expect(await approvalsCommand(['approve', a.id, '--key-file', moved], db, keyPath, capture())).toBe(0);
    expect(approverCheck(keyPath, () => undefined).verifies((await store.get(a.id))!)).toBe(true);
  });

  test('an approval by the CLI carries a signature the gateway verifies', async () => {
    const a = await request(1);
    await approvalsCommand(['approve', a.id], db, keyPath, capture());
    expect((await store.get(a.id))!.proof).toMatch(/^ed25519:/);
    expect(approverCheck(keyPath, () => undefined).verifies((await store.get(a.id))!)).toBe(true);
  });

  test('bad usage exits 2 with the usage line', async () => {
    const io = capture();
    expect(await approvalsCommand(['approve'], db, keyPath, io)).toBe(2);
    expect(io.stderr).toMatch(/^usage: tool-curator approvals list/);
  });
});

describe('audit command', () => {
  let db: Store;
  beforeEach(async () => {
    db = await openStore(':memory:');
    const log = new AuditWriter(db.audit, ['token']);
    for (const [i, tool] of ['get_fee_dues', 'admin_delete_student', 'make_payment'].entries()) {
      await log.record({
        time: Date.UTC(2026, 10, 29, 12, 0, i),
        sessionId: 's',
        persona: 'student',
        userId: 'S0001',
        tool,
        requestedName: tool,
        args: { card_token: 'tok' },
        decision: i === 1 ? 'refused' : 'allowed',
        decisions: i === 1 ? ['refused'] : [],
        notes: [],
        outcome: i === 1 ? 'not_run' : 'ok',
        ...(i !== 1 && { upstreamMs: 12 }),
      });
    }
  });
  afterEach(() => db.close());

  test('--tail N prints the last N as a table, oldest first', async () => {
    const io = capture();
    expect(await auditCommand(['--tail', '2', '--config', 'x.yaml'], db, io)).toBe(0);
    const lines = io.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]!.split(/\s{2,}/)).toEqual(['2026-11-29 12:00:01', 'student', 'S0001', 'admin_delete_student', 'refused', 'not_run', '-', '{"card_token":"[redacted]"}']);
    expect(lines[2]).toContain('make_payment');
    expect(lines[2]).toContain('12ms');
  });

  test('--json prints records', async () => {
    const io = capture();
    await auditCommand(['--json'], db, io);
    const records = JSON.parse(io.stdout) as { tool: string }[];
    expect(records.map((r) => r.tool)).toEqual(['get_fee_dues', 'admin_delete_student', 'make_payment']);
  });

  test('a bad --tail exits 2', async () => {
    const io = capture();
    expect(await auditCommand(['--tail', 'x'], db, io)).toBe(2);
    expect(io.stderr).toMatch(/--tail needs a positive integer, got "x"/);
  });
});
