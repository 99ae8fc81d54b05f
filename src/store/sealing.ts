/**
 * What the gateway's sealed `requestState` (guards/sealed.ts) needs from the store: one
 * sealing key shared by every replica (made by whichever asks first, never changed), and
 * the single-use record of each sealed state's nonce, so a state echoed twice, to this
 * replica or another, is spent once. Spent nonces are kept until their state's expiry.
 */
import { randomBytes } from 'node:crypto';
import type { Sql } from './sql.js';
import type { SealingPart } from './types.js';

/** The one key's row name (the table could hold more, for a rotation later). */
const KEY_NAME = 'request-state';

export class SqlSealing implements SealingPart {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => number,
  ) {}

  async key(): Promise<Buffer> {
    // Insert-if-absent, then read back: two replicas starting at once agree on the first key written.
    await this.sql.run('INSERT INTO sealing_keys (name, secret, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING', [
      KEY_NAME,
      randomBytes(32).toString('base64'),
      this.now(),
    ]);
    const row = await this.sql.get<{ secret: string }>('SELECT secret FROM sealing_keys WHERE name = ?', [KEY_NAME]);
    if (!row) throw new Error('the store did not keep the sealing key it was given');
    return Buffer.from(row.secret, 'base64');
  }

  async spend(nonce: string, expiresAt: number): Promise<boolean> {
    const now = this.now();
    await this.sql.run('DELETE FROM sealed_uses WHERE expires_at <= ?', [now]);
    const inserted = await this.sql.run('INSERT INTO sealed_uses (nonce, expires_at) VALUES (?, ?) ON CONFLICT (nonce) DO NOTHING', [nonce, expiresAt]);
    return inserted === 1;
  }
}
