/** The used-approvals ledger (usedLedger.ts): what outlives a gateway process, and what happens when it cannot be written. */
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { confirmationGuard } from '../../src/guards/confirmation.js';
import { compose } from '../../src/guards/types.js';
import { fileLedger } from '../../src/guards/usedLedger.js';
import { openStore } from '../../src/store/index.js';
import { approverFixture, byName, config, policy } from './fixtures.js';
import { context, recordingUpstream, text } from './helpers.js';

const fresh = () => join(mkdtempSync(join(tmpdir(), 'tc-ledger-')), 'sub', 'approvals-used');

describe('fileLedger', () => {
  test('a new ledger on the same file reads the uses not yet expired, the latest expiry of each', () => {
    const path = fresh();
    const a = fileLedger(path);
    expect(a.load(1_000)).toEqual(new Map());
    a.add('aaaa', 5_000);
    a.add('bbbb', 2_000);
    a.add('aaaa', 9_000);
    expect(fileLedger(path).load(3_000)).toEqual(new Map([['aaaa', 9_000]]));
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  test('lines it did not write are ignored; past 1 MiB, reading rewrites the file without expired lines', () => {
    const path = fresh();
    fileLedger(path).add('keep', 10_000);
    writeFileSync(path, `${readFileSync(path, 'utf8')}not a line\n${'gone 1\n'.repeat(200_000)}`);
    expect(fileLedger(path).load(5_000)).toEqual(new Map([['keep', 10_000]]));
    expect(readFileSync(path, 'utf8')).toBe('keep 10000\n');
  });

  test('an approval whose use cannot be written does not run', async () => {
    const path = fresh();
    const store = await openStore(':memory:');
    const person = approverFixture();
    const upstream = recordingUpstream();
    try {
      const call = compose([confirmationGuard({ policy, approvals: store.approvals, config, approver: person.approver, usedLedger: fileLedger(path) })], upstream.forward);
      // Once the gateway runs, the ledger's path becomes a folder: every write fails.
      mkdirSync(path, { recursive: true });
      const pay = () => {
        const ctx = context('make_payment', { student_id: 'S0001', amount: 100 });
        ctx.tool = byName('make_payment');
        return call(ctx);
      };
      const id = /approval id ([a-z0-9]+)/.exec(text(await pay()))![1]!;
      await person.decide(store.approvals, id, 'approved');
      await expect(pay()).rejects.toThrow(/EISDIR/);
      expect(upstream.calls).toEqual([]);
      expect((await store.approvals.get(id))?.status).toBe('approved');
    } finally {
      await store.close();
    }
  });
});
