import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { approverCheck } from '../../src/guards/approver.js';
import { approvalsCommand, auditCommand, type CommandIO } from '../../src/guards/commands.js';
import { AuditWriter } from '../../src/guards/audit.js';
import { openStore, type ApprovalsPart, type Store } from '../../src/store/index.js';
import { parkedPayment } from './fixtures.js';

function capture(): CommandIO & { stdout: string; stderr: string } {
  const io = { stdout: '', stderr: '', out: (t: string) => void (io.stdout += t), err: (t: string) => void (io.stderr += t) };
  return io;
}

/** A person at a terminal: answers `init-key`'s question with `answer(code shown)`. */
function terminal(answer: (code: string) => string = (code) => code): ReturnType<typeof capture> & { asked: string[] } {
  const io = Object.assign(capture(), { asked: [] as string[] });
  io.ask = async (question: string) => {
    io.asked.push(question);
    return answer(/Type (\d{6}) to create it/.exec(question)![1]!);
  };
  return io;
}

const CALL = { student_id: 'S0001', amount: 1 };

describe('approvals command', () => {
  let db: Store;
  let store: ApprovalsPart;
  let keyPath: string;
  let keyId: string;
  beforeEach(async () => {
    db = await openStore(':memory:');
    store = db.approvals;
    keyPath = join(mkdtempSync(join(tmpdir(), 'tc-cmd-')), 'approver.key');
    expect(await approvalsCommand(['init-key'], db, keyPath, terminal())).toBe(0);
    keyId = approverCheck(keyPath, () => undefined).keyId;
  });
  afterEach(() => db.close());
  const request = (amount: number) => store.request(parkedPayment({ student_id: 'S0001', amount }, keyId));
  /** The gateway's check of the stored decision over the statement of the call `args` makes now. */
  const verdict = async (id: string, args = CALL) => approverCheck(keyPath, () => undefined).verify(parkedPayment(args, keyId).statement!, (await store.get(id))!, Date.now());

  test('list shows pending requests as a table, with the upstream and caller the statement names', async () => {
    const a = await request(100);
    const io = capture();
    expect(await approvalsCommand(['list'], db, keyPath, io)).toBe(0);
    const [header, row, ...rest] = io.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID\s+STATUS\s+TOOL\s+UPSTREAM\s+PERSONA\s+CALLER\s+AGE\s+EXPIRES IN\s+DECIDED BY\s+ARGUMENTS$/);
    expect(row!.split(/\s{2,}/)).toEqual([a.id, 'pending', 'make_payment', 'finance.make_payment', 'student', 'user S0001', '0m', '10m', '-', '{"student_id":"S0001","amount":100}']);
    expect(rest).toEqual([]);
  });

  test('list with nothing pending says so; --json gives the records with their statements', async () => {
    const io = capture();
    await approvalsCommand(['list'], db, keyPath, io);
    expect(io.stdout).toBe('no pending approvals\n');
    const a = await request(1);
    const json = capture();
    await approvalsCommand(['list', '--json'], db, keyPath, json);
    expect(JSON.parse(json.stdout)).toMatchObject([{ id: a.id, status: 'pending', args: CALL, statement: { tool: 'make_payment', upstream: 'finance', approverKey: keyId } }]);
  });

  test('show prints every part of the statement a person signs', async () => {
    const a = await request(1);
    const io = capture();
    expect(await approvalsCommand(['show', a.id], db, keyPath, io)).toBe(0);
    expect(io.stdout).toContain(`approval ${a.id}: pending, expires in 10m`);
    expect(io.stdout).toContain('  upstream      finance, its tool make_payment');
    expect(io.stdout).toContain('  caller        student, user S0001');
    expect(io.stdout).toContain(`  approver key  ${keyId}`);
    expect(io.stdout).toMatch(/ {2}definition {4}sha256:[0-9a-f]{16}… /);
  });

  test('approve and deny decide; --all lists them', async () => {
    const a = await request(1);
    const b = await request(2);
    const io = capture();
    expect(await approvalsCommand(['approve', a.id], db, keyPath, io)).toBe(0);
    expect(await approvalsCommand(['deny', b.id], db, keyPath, io)).toBe(0);
    expect(io.stdout).toBe(
      `approved ${a.id}: make_payment (upstream finance, its tool make_payment) for student, user S0001, arguments {"student_id":"S0001","amount":1}; the next identical call runs once (within 10m)\n` +
        `denied ${b.id}: make_payment (upstream finance, its tool make_payment) for student, user S0001, arguments {"student_id":"S0001","amount":2}; it will not run\n`,
    );
    expect(await store.get(a.id)).toMatchObject({ status: 'approved', decidedBy: 'cli' });
    const all = capture();
    await approvalsCommand(['list', '--all'], db, keyPath, all);
    expect(all.stdout).toContain(`${b.id}  denied`);
    expect(all.stdout).toContain(`${a.id}  approved`);
  });

  test('--statement signs only the statement that was shown, named by its whole digest or at least 32 hex digits of it', async () => {
    const a = await request(1);
    const show = capture();
    await approvalsCommand(['show', a.id], db, keyPath, show);
    const shown = /statement {5}(sha256:[0-9a-f]{64})\n/.exec(show.stdout)![1]!;
    // A prefix of 8 hex digits (32 bits) can be matched by a made-up statement in seconds: refused, even the real one's.
    for (const short of [shown.slice(0, 15), shown.slice(0, 7 + 31), 'sha256:00000000', 'sha256:zz' + shown.slice(9)]) {
      const io = capture();
      expect(await approvalsCommand(['approve', a.id, '--statement', short], db, keyPath, io), short).toBe(1);
      expect(io.stderr).toBe(
        `--statement takes the statement's digest as \`approvals show ${a.id}\` prints it: sha256: and its 64 hex digits (at least the first 32); got ${short}; nothing was decided\n`,
      );
    }
    const other = `sha256:${'0'.repeat(64)}`;
    const io = capture();
    expect(await approvalsCommand(['approve', a.id, '--statement', other], db, keyPath, io)).toBe(1);
    expect(io.stderr).toBe(`approval request ${a.id} is not the statement ${other} (its statement is ${shown}); nothing was decided\n`);
    expect((await store.get(a.id))!.status).toBe('pending');
    expect(await approvalsCommand(['approve', a.id, '--statement', shown.slice(0, 7 + 32).toUpperCase().replace('SHA256', 'sha256')], db, keyPath, capture())).toBe(0);
    expect((await verdict(a.id)).valid).toBe(true);
  });

  test('--statement with the whole digest as show prints it approves', async () => {
    const a = await request(2);
    const show = capture();
    await approvalsCommand(['show', a.id], db, keyPath, show);
    const shown = /statement {5}(sha256:[0-9a-f]{64})\n/.exec(show.stdout)![1]!;
    expect(await approvalsCommand(['approve', a.id, '--statement', shown], db, keyPath, capture())).toBe(0);
    expect((await verdict(a.id, { ...CALL, amount: 2 })).valid).toBe(true);
  });

  test('a request without a statement, or whose stored arguments are not its statement\'s, cannot be approved', async () => {
    const bare = await store.request({ key: 'k', sessionId: 's', tool: 'make_payment', args: CALL, ttlMs: 600_000 });
    const io = capture();
    expect(await approvalsCommand(['approve', bare.id], db, keyPath, io)).toBe(1);
    expect(io.stderr).toMatch(/cannot be approved: it carries no statement of the call/);
    const shown = parkedPayment({ student_id: 'S0001', amount: 9999 }, keyId);
    const mismatched = await store.request({ ...shown, args: CALL });
    const io2 = capture();
    expect(await approvalsCommand(['approve', mismatched.id], db, keyPath, io2)).toBe(1);
    expect(io2.stderr).toMatch(/cannot be approved: its stored arguments are not the ones its statement covers/);
    expect((await store.get(mismatched.id))?.status).toBe('pending');
  });

  test('a second decision fails with exit 1 and the reason on stderr', async () => {
    const a = await request(1);
    await approvalsCommand(['deny', a.id], db, keyPath, capture());
    const io = capture();
    expect(await approvalsCommand(['approve', a.id], db, keyPath, io)).toBe(1);
    expect(io.stderr).toBe(`approval request ${a.id} is already denied\n`);
    expect(io.stdout).toBe('');
  });

  test('init-key at a terminal makes a 0600 private key and its public half once the shown code is typed back, and never overwrites them', async () => {
    expect(statSync(keyPath).mode & 0o777).toBe(0o600);
    expect(readFileSync(`${keyPath}.pub`, 'utf8')).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    const io = terminal();
    expect(await approvalsCommand(['init-key'], db, keyPath, io)).toBe(1);
    expect(io.stderr).toBe(`an approver key already exists at ${keyPath}; it is never overwritten (delete it and its .pub first to make a new one)\n`);
  });

  test('init-key without a terminal, or with the wrong code typed, creates nothing', async () => {
    const fresh = join(mkdtempSync(join(tmpdir(), 'tc-cmd-')), 'approver.key');
    const piped = capture();
    expect(await approvalsCommand(['init-key'], db, fresh, piped)).toBe(1);
    expect(piped.stderr).toBe('approvals init-key makes the key that lets its holder approve calls; it runs only in an interactive terminal, for the person who approves. Nothing was created.\n');
    const wrong = terminal(() => '123');
    expect(await approvalsCommand(['init-key'], db, fresh, wrong)).toBe(1);
    expect(wrong.asked).toHaveLength(1);
    expect(wrong.stderr).toBe('the code did not match; nothing was created\n');
    expect(existsSync(fresh)).toBe(false);
    expect(existsSync(`${fresh}.pub`)).toBe(false);
  });

  test('approve without the approver key fails with the reason, names no command, and decides nothing', async () => {
    const a = await request(1);
    const missing = join(mkdtempSync(join(tmpdir(), 'tc-cmd-')), 'approver.key');
    const io = capture();
    expect(await approvalsCommand(['approve', a.id], db, missing, io)).toBe(1);
    expect(io.stderr).toBe(`approving needs the approver key, and there is none at ${missing}: only the person who approves holds it (docs/SAFETY.md, "The approver key")\n`);
    expect(io.stderr).not.toMatch(/init-key|tool-curator /);
    expect((await store.get(a.id))?.status).toBe('pending');
  });

  test('a request made under another approver key cannot be decided with this one', async () => {
    const a = await store.request(parkedPayment(CALL, 'none'));
    const io = capture();
    expect(await approvalsCommand(['approve', a.id], db, keyPath, io)).toBe(1);
    expect(io.stderr).toMatch(new RegExp(`^approval request ${a.id} was made when the gateway honoured no approver key, and this key is ${keyId}`));
  });

  test('a key others may read is refused; --key-file picks another key, which must match the .pub the gateway checks', async () => {
    const a = await request(1);
    chmodSync(keyPath, 0o644);
    const io = capture();
    expect(await approvalsCommand(['approve', a.id], db, keyPath, io)).toBe(1);
    expect(io.stderr).toBe(`the approver key ${keyPath} is readable by other users; run \`chmod 600 ${keyPath}\` (only the approving person may hold it)\n`);
    chmodSync(keyPath, 0o600);
    const other = join(mkdtempSync(join(tmpdir(), 'tc-cmd-')), 'approver.key');
    await approvalsCommand(['init-key'], db, other, terminal());
    const wrong = capture();
    expect(await approvalsCommand(['approve', a.id, '--key-file', other], db, keyPath, wrong)).toBe(1);
    expect(wrong.stderr).toBe(`the approver key ${other} does not match ${keyPath}.pub, which the gateway checks approvals against\n`);
    expect((await store.get(a.id))?.status).toBe('pending');
    // The approver may keep the key elsewhere (their own home) and leave only the .pub beside the store.
    const moved = join(mkdtempSync(join(tmpdir(), 'tc-cmd-')), 'my.key');
    writeFileSync(moved, readFileSync(keyPath), { mode: 0o600 });
    rmSync(keyPath);
    expect(await approvalsCommand(['approve', a.id, '--key-file', moved], db, keyPath, capture())).toBe(0);
    expect((await verdict(a.id)).valid).toBe(true);
  });

  test('an approval by the CLI is a signature over the statement of that call only', async () => {
    const a = await request(1);
    await approvalsCommand(['approve', a.id], db, keyPath, capture());
    expect((await store.get(a.id))!.proof).toMatch(/^ed25519:\d+:/);
    expect(await verdict(a.id)).toMatchObject({ valid: true });
    expect(await verdict(a.id, { student_id: 'S0001', amount: 2 })).toEqual({ valid: false, reason: 'no valid approver signature over this call' });
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
