/**
 * Issue 18, item 3: with write access to the store, no rewrite of the approvals rows makes
 * a call run that a person did not sign. Each test writes the rows directly with SQL, as an
 * attacker would, on SQLite and (with TOOL_CURATOR_TEST_PG) PostgreSQL, then makes the
 * call through the confirmation guard and asserts the upstream received nothing.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { approvalsCommand } from '../../src/guards/commands.js';
import { confirmationGuard } from '../../src/guards/confirmation.js';
import { compose, type CallContext, type CallHandler } from '../../src/guards/types.js';
import { fileLedger } from '../../src/guards/usedLedger.js';
import type { Store } from '../../src/store/index.js';
import { BACKENDS, rawQuery, setupBackends } from '../helpers/stores.js';
import { approverFixture, byName, config, policy } from './fixtures.js';
import { context, recordingUpstream, text } from './helpers.js';

const MIN = 60_000;

setupBackends();

describe.each(BACKENDS)('rewritten approval rows on $kind run nothing', (backend) => {
  let t: number;
  let location: string;
  let store: Store;
  let upstream: ReturnType<typeof recordingUpstream>;
  let call: CallHandler;
  const person = approverFixture();
  const quiet = { out: () => undefined, err: () => undefined };
  /** What the person does: `tool-curator approvals approve ID` with their key. */
  const approve = async (id: string) => expect(await approvalsCommand(['approve', id], store, person.keyPath, quiet)).toBe(0);
  const sql = (q: string) => rawQuery(backend.kind, location, q);

  const pay = (amount: number): Promise<CallContext> => {
    const ctx = context('make_payment', { student_id: 'S0001', amount });
    ctx.tool = byName('make_payment');
    return call(ctx).then((result) => Object.assign(ctx, { result: text(result) }));
  };
  const idIn = (ctx: CallContext) => /approval id ([a-z0-9]+)/.exec((ctx as CallContext & { result: string }).result)![1]!;

  let ledgerPath: string;
  /** A gateway process: its own guard (and memory of used approvals, kept in its ledger file) over the shared store. */
  const gateway = () =>
    compose([confirmationGuard({ policy, approvals: store.approvals, config, approver: person.approver, usedLedger: fileLedger(ledgerPath) })], upstream.forward);

  beforeEach(async () => {
    t = 5_000_000;
    location = await backend.fresh();
    store = await backend.open(location, { now: () => t });
    upstream = recordingUpstream();
    ledgerPath = join(mkdtempSync(join(tmpdir(), 'tc-ledger-')), 'approvals-used');
    call = gateway();
  });
  afterEach(() => store.close());

  test('a used approval re-armed (status approved, used_at NULL; then its use row deleted too) does not run again', async () => {
    const id = idIn(await pay(100));
    await approve(id);
    expect((await pay(100)).decisions).toEqual(['approved']);
    expect(upstream.calls).toHaveLength(1);

    await sql(`UPDATE approvals SET status = 'approved', used_at = NULL WHERE id = '${id}'`);
    // Its use row still says it was used: the row is not even looked at, the call is parked anew.
    const rearmed = await pay(100);
    expect(rearmed.decisions).toEqual(['awaiting_approval']);
    expect(idIn(rearmed)).not.toBe(id);

    // The use row deleted too (and the request the retry made): this process remembers what it ran.
    await sql(`DELETE FROM approvals WHERE id = '${idIn(rearmed)}'`);
    await sql(`UPDATE approvals SET status = 'approved', used_at = NULL WHERE id = '${id}'`);
    await sql(`DELETE FROM approval_uses WHERE id = '${id}'`);
    const deleted = await pay(100);
    expect(deleted.decisions).toEqual(['awaiting_approval']);
    expect(deleted.notes[0]).toBe(`approval ${id} ignored: already used`);
    expect(upstream.calls).toHaveLength(1);
  });

  test('a used approval re-armed with its use row deleted, then the gateway restarted, does not run again: its ledger outlives it', async () => {
    const id = idIn(await pay(100));
    await approve(id);
    expect((await pay(100)).decisions).toEqual(['approved']);
    await sql(`UPDATE approvals SET status = 'approved', used_at = NULL WHERE id = '${id}'`);
    await sql(`DELETE FROM approval_uses WHERE id = '${id}'`);
    // A new process over the same store and config folder: no memory but the ledger file.
    call = gateway();
    const restarted = await pay(100);
    expect(restarted.decisions).toEqual(['awaiting_approval']);
    expect(restarted.notes[0]).toBe(`approval ${id} ignored: already used`);
    expect(upstream.calls).toHaveLength(1);
  });

  test('an expired approval revived (status approved, expires_at moved on) does not run: the expiry that counts is the signed one', async () => {
    const id = idIn(await pay(100));
    await approve(id);
    t += 11 * MIN;
    expect((await store.approvals.get(id))?.status).toBe('expired');
    await sql(`UPDATE approvals SET status = 'approved', expires_at = ${t + 60 * MIN} WHERE id = '${id}'`);
    expect((await store.approvals.live((await store.approvals.get(id))!.key))?.status).toBe('approved');
    const revived = await pay(100);
    expect(revived.decisions).toEqual(['awaiting_approval']);
    expect(revived.notes[0]).toMatch(new RegExp(`^approval ${id} ignored: the signed approval expired at `));
    expect(upstream.calls).toEqual([]);
  });

  test('a harmless pending request given another call\'s key runs nothing once approved; the approved harmless call still runs', async () => {
    const harmless = idIn(await pay(1));
    const harmful = idIn(await pay(9999));
    const { key } = (await store.approvals.get(harmful))!;
    await sql(`DELETE FROM approvals WHERE id = '${harmful}'`);
    await sql(`UPDATE approvals SET key = '${key}' WHERE id = '${harmless}'`);
    // The person reviews the harmless request (its statement and arguments are intact) and approves it.
    await approve(harmless);

    const swapped = await pay(9999);
    expect(swapped.notes[0]).toBe(`approval ${harmless} ignored: no valid approver signature over this call`);
    expect(swapped.decisions).toEqual(['awaiting_approval']);
    expect(upstream.calls).toEqual([]);
  });

  test('a pending request given another call\'s key and statement cannot be approved: its arguments are not the statement\'s', async () => {
    const harmless = idIn(await pay(1));
    const harmful = idIn(await pay(9999));
    const row = (await store.approvals.get(harmful))!;
    await sql(`DELETE FROM approvals WHERE id = '${harmful}'`);
    await sql(`UPDATE approvals SET key = '${row.key}', statement = '${row.statement}' WHERE id = '${harmless}'`);
    const err: string[] = [];
    expect(await approvalsCommand(['approve', harmless], store, person.keyPath, { out: () => undefined, err: (s) => void err.push(s) })).toBe(1);
    expect(err.join('')).toContain(`approval request ${harmless} cannot be approved: its stored arguments are not the ones its statement covers`);
    expect((await pay(9999)).decisions).toEqual(['awaiting_approval']);
    expect(upstream.calls).toEqual([]);
  });

  test('a pending request given another call\'s key, statement and arguments after the person read it cannot be approved: its id names its statement', async () => {
    const harmless = idIn(await pay(1));
    const harmful = idIn(await pay(9999));
    const row = (await store.approvals.get(harmful))!;
    const out: string[] = [];
    expect(await approvalsCommand(['show', harmless], store, person.keyPath, { out: (s) => void out.push(s), err: () => undefined })).toBe(0);
    expect(out.join('')).toMatch(/"amount": 1\n/);
    // Between the person's `show` and `approve`, every column the CLI reads is made the harmful call's.
    await sql(`DELETE FROM approvals WHERE id = '${harmful}'`);
    await sql(`UPDATE approvals SET key = '${row.key}', statement = '${row.statement}', args_json = '${JSON.stringify(row.args)}' WHERE id = '${harmless}'`);
    const err: string[] = [];
    expect(await approvalsCommand(['approve', harmless], store, person.keyPath, { out: () => undefined, err: (s) => void err.push(s) })).toBe(1);
    expect(err.join('')).toContain(`approval request ${harmless} cannot be approved: its id was not made for its statement`);
    expect((await pay(9999)).decisions).toEqual(['awaiting_approval']);
    expect(upstream.calls).toEqual([]);
  });

  test('with the store made to forget every use (a trigger), an approval does not run, also for two identical calls at once: its use was not kept', async () => {
    const id = idIn(await pay(100));
    await approve(id);
    await sql(
      backend.kind === 'sqlite'
        ? `CREATE TRIGGER forget_use AFTER INSERT ON approval_uses BEGIN DELETE FROM approval_uses WHERE id = NEW.id; UPDATE approvals SET status = 'approved' WHERE id = NEW.id; END`
        : `CREATE FUNCTION forget_use() RETURNS trigger AS $$ BEGIN DELETE FROM approval_uses WHERE id = NEW.id; RETURN NULL; END $$ LANGUAGE plpgsql; CREATE TRIGGER forget_use AFTER INSERT ON approval_uses FOR EACH ROW EXECUTE FUNCTION forget_use()`,
    );
    try {
      const both = await Promise.all([pay(100), pay(100)]);
      expect(both.map((c) => c.decisions[0])).toEqual(['awaiting_approval', 'awaiting_approval']);
      expect(both.map((c) => c.notes[0])).toContain(`approval ${id} ignored: its use was not kept by the store`);
      expect((await pay(100)).decisions).toEqual(['awaiting_approval']);
      expect(upstream.calls).toEqual([]);
    } finally {
      await sql(backend.kind === 'sqlite' ? 'DROP TRIGGER forget_use' : 'DROP TRIGGER forget_use ON approval_uses; DROP FUNCTION forget_use()');
    }
  });

  test('a decision written without the key, or with a signature copied from another request, runs nothing', async () => {
    const signed = idIn(await pay(1));
    await approve(signed);
    const proof = (await store.approvals.get(signed))!.proof!;
    const forged = idIn(await pay(9999));
    await sql(`UPDATE approvals SET status = 'approved', decided_by = 'cli', decided_at = ${t}, proof = '${proof}' WHERE id = '${forged}'`);
    const copied = await pay(9999);
    expect(copied.notes[0]).toBe(`approval ${forged} ignored: no valid approver signature over this call`);
    const unsigned = idIn(await pay(5000));
    await sql(`UPDATE approvals SET status = 'approved', decided_by = 'cli', decided_at = ${t} WHERE id = '${unsigned}'`);
    expect((await pay(5000)).notes[0]).toBe(`approval ${unsigned} ignored: no approver signature`);
    expect(upstream.calls).toEqual([]);
  });
});
