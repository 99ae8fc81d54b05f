/**
 * An approval's standing (guards/standing.ts) over a real store, on both backends: an
 * approved row counts while the gateway's check verifies it and the tool's definition is
 * the one its statement names; a changed definition, a replaced approver key or a row
 * written without the key voids it, and `approvals list|show` say so with why.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { approverCheck } from '../../src/guards/approver.js';
import { approvalsCommand, type CommandIO } from '../../src/guards/commands.js';
import { approvalStanding } from '../../src/guards/standing.js';
import { parseStatement } from '../../src/guards/statement.js';
import type { Store } from '../../src/store/index.js';
import { BACKENDS, setupBackends } from '../helpers/stores.js';
import { approverFixture, parkedPayment } from './fixtures.js';

setupBackends();

function capture(): CommandIO & { stdout: string; stderr: string } {
  const io = { stdout: '', stderr: '', out: (t: string) => void (io.stdout += t), err: (t: string) => void (io.stderr += t) };
  return io;
}

describe.each(BACKENDS)('approval standing on $kind', (backend) => {
  let store: Store;
  const person = approverFixture();
  beforeEach(async () => {
    store = await backend.open(await backend.fresh());
  });
  afterEach(() => store.close());

  const standingBy = (keyPath = person.keyPath) => approvalStanding(approverCheck(keyPath, () => undefined), store.definitions, () => store.approvals.clock());
  async function approved(amount: number) {
    const a = await store.approvals.request(parkedPayment({ student_id: 'S0001', amount }, person.approver.keyId));
    await person.decide(store.approvals, a.id, 'approved');
    return (await store.approvals.get(a.id))!;
  }

  test('counts while the definition its statement names is the one pinned; a changed definition voids it', async () => {
    const a = await approved(10);
    const s = parseStatement(a.statement)!;
    expect(await standingBy()(a)).toEqual({ status: 'approved' });
    await store.definitions.pinIfAbsent({ server: 'finance', upstreamName: 'make_payment', digest: s.definition, definition: '{}' });
    expect(await standingBy()(a)).toEqual({ status: 'approved' });
    const changed = `sha256:${'9'.repeat(64)}`;
    await store.definitions.markChanged('finance', 'make_payment', changed, '{"description":"now wires it elsewhere"}');
    const why = `the definition of make_payment (upstream finance) changed since the call was made (${s.definition.slice(0, 23)}… then, ${changed.slice(0, 23)}… now): it runs only with a new approval`;
    expect(await standingBy()(a)).toEqual({ status: 'voided', voided: why });

    const list = capture();
    expect(await approvalsCommand(['list', '--all'], store, person.keyPath, list, standingBy())).toBe(0);
    expect(list.stdout.split('\n')[1]!.split(/\s{2,}/).slice(0, 2)).toEqual([a.id, 'voided']);
    const show = capture();
    expect(await approvalsCommand(['show', a.id], store, person.keyPath, show, standingBy())).toBe(0);
    expect(show.stdout.split('\n')[0]).toBe(`approval ${a.id}: voided`);
    expect(show.stdout).toContain(`  voided        the approval no longer counts: ${why}\n`);
    // Without a judge, the row as stored.
    const plain = capture();
    await approvalsCommand(['show', a.id], store, person.keyPath, plain);
    expect(plain.stdout.split('\n')[0]).toBe(`approval ${a.id}: approved`);
  });

  test('another approver key, or a decision written into the store without one, voids it; other states are as stored', async () => {
    const a = await approved(20);
    const other = approverFixture();
    expect(await standingBy(other.keyPath)(a)).toEqual({ status: 'voided', voided: 'no valid approver signature over this call' });
    const b = await store.approvals.request(parkedPayment({ student_id: 'S0001', amount: 21 }, person.approver.keyId));
    const written = await store.approvals.decide(b.id, 'approved', 'cli', 'ed25519:9999999999999:AAAA');
    expect(await standingBy()(written)).toEqual({ status: 'voided', voided: 'no valid approver signature over this call' });

    const c = await store.approvals.request(parkedPayment({ student_id: 'S0001', amount: 22 }, person.approver.keyId));
    expect(await standingBy()(c)).toEqual({ status: 'pending' });
    await person.decide(store.approvals, c.id, 'denied');
    expect(await standingBy()((await store.approvals.get(c.id))!)).toEqual({ status: 'denied' });
    expect(await store.approvals.consume(a.id)).toBe(true);
    expect(await standingBy()((await store.approvals.get(a.id))!)).toEqual({ status: 'used' });
  });
});
