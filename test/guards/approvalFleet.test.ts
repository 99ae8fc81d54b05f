/**
 * A fleet whose store forgets uses: two replicas (each its own store connection, events
 * bridge and confirmation guard, as two `serve` processes have) on one store, on SQLite and
 * (with TOOL_CURATOR_TEST_PG) PostgreSQL. An attacker writes the store with SQL — deletes
 * use rows, re-arms approvals, adds triggers — and calls the same approved call through
 * each replica; the upstream must receive it at most once.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { approvalsCommand } from '../../src/guards/commands.js';
import { confirmationGuard } from '../../src/guards/confirmation.js';
import { compose, type CallContext, type CallHandler } from '../../src/guards/types.js';
import type { Store } from '../../src/store/index.js';
import { BACKENDS, rawQuery, setupBackends } from '../helpers/stores.js';
import { approverFixture, byName, config, policy } from './fixtures.js';
import { context, recordingUpstream, text } from './helpers.js';

setupBackends();

describe.each(BACKENDS)('two replicas on one $kind store that forgets uses', (backend) => {
  let location: string;
  let stores: Store[];
  let upstream: ReturnType<typeof recordingUpstream>;
  let replicas: CallHandler[];
  const person = approverFixture();
  const quiet = { out: () => undefined, err: () => undefined };
  const sql = (q: string) => rawQuery(backend.kind, location, q);

  const pay = (replica: CallHandler, amount: number): Promise<CallContext & { result: string }> => {
    const ctx = context('make_payment', { student_id: 'S0001', amount });
    ctx.tool = byName('make_payment');
    return replica(ctx).then((result) => Object.assign(ctx, { result: text(result) }));
  };
  const idIn = (ctx: { result: string }) => /approval id ([a-z0-9]+)/.exec(ctx.result)![1]!;

  /** Resolves once `store` has heard that approval `id` was used (its events, from the other replica). */
  const heardUse = (store: Store, id: string) =>
    new Promise<void>((resolve) => {
      const off = store.events.on('approval', (p) => {
        if (p.id === id && p.status === 'used') {
          off();
          resolve();
        }
      });
    });

  const forgetEveryUse = () =>
    sql(
      backend.kind === 'sqlite'
        ? `CREATE TRIGGER forget_use AFTER INSERT ON approval_uses BEGIN DELETE FROM approval_uses WHERE id = NEW.id; UPDATE approvals SET status = 'approved' WHERE id = NEW.id; END`
        : `CREATE FUNCTION forget_use() RETURNS trigger AS $$ BEGIN DELETE FROM approval_uses WHERE id = NEW.id; UPDATE approvals SET status = 'approved' WHERE id = NEW.id; RETURN NULL; END $$ LANGUAGE plpgsql;
           CREATE TRIGGER forget_use AFTER INSERT ON approval_uses FOR EACH ROW EXECUTE FUNCTION forget_use()`,
    );
  const remember = () => sql(backend.kind === 'sqlite' ? 'DROP TRIGGER IF EXISTS forget_use' : 'DROP TRIGGER IF EXISTS forget_use ON approval_uses; DROP FUNCTION IF EXISTS forget_use()');

  beforeEach(async () => {
    location = await backend.fresh();
    stores = [await backend.open(location), await backend.open(location)];
    // Each replica listens to the other's events before it serves (a `serve` process does so at start).
    await Promise.all(stores.map((s) => new Promise<void>((resolve) => {
      const off = s.events.on('resync', () => {
        off();
        resolve();
      });
    })));
    upstream = recordingUpstream();
    replicas = stores.map((s) => compose([confirmationGuard({ policy, approvals: s.approvals, config, approver: person.approver })], upstream.forward));
  });
  afterEach(async () => {
    await remember();
    for (const s of stores) await s.close();
  });

  /** A make_payment parked on replica A and approved by the person with their key. */
  const approved = async (amount: number) => {
    const id = idIn(await pay(replicas[0]!, amount));
    expect(await approvalsCommand(['approve', id], stores[0]!, person.keyPath, quiet)).toBe(0);
    return id;
  };

  test('a use row deleted (and the approval re-armed) after replica A ran the call: replica B does not run it again', async () => {
    const id = await approved(100);
    const heard = heardUse(stores[1]!, id);
    expect((await pay(replicas[0]!, 100)).decisions).toEqual(['approved']);
    await heard;
    await sql(`DELETE FROM approval_uses WHERE id = '${id}'`);
    await sql(`UPDATE approvals SET status = 'approved', used_at = NULL WHERE id = '${id}'`);
    expect((await stores[1]!.approvals.get(id))?.status).toBe('approved');

    const again = await pay(replicas[1]!, 100);
    expect(again.decisions).toEqual(['awaiting_approval']);
    expect(again.notes[0]).toBe(`approval ${id} ignored: already used`);
    expect(upstream.calls).toHaveLength(1);
  });

  test('a trigger that deletes each use row as it is written: no replica runs the call, one after the other or both at once', async () => {
    const id = await approved(100);
    await forgetEveryUse();
    const first = await pay(replicas[0]!, 100);
    expect(first.decisions).toEqual(['awaiting_approval']);
    expect(first.notes[0]).toBe(`approval ${id} ignored: its use was not kept by the store`);
    const both = await Promise.all([pay(replicas[0]!, 100), pay(replicas[1]!, 100)]);
    expect(both.map((c) => c.decisions)).toEqual([['awaiting_approval'], ['awaiting_approval']]);
    expect(upstream.calls).toEqual([]);

  });
});
