/**
 * OAuth client state per (upstream, subject): registered client information, tokens, the
 * PKCE code verifier of an authorization in progress, cached discovery, and a scope an
 * upstream asked for (step-up) that still needs consent. Subject `''` is the gateway's
 * own authorization; a user id, a per-user one. Values are stored as the SDK hands them
 * over (JSON), bound to the upstream's URL: state saved for another URL reads back as
 * absent. Every write bumps the row's `version` and emits `oauth`, so a provider can tell
 * that another process refreshed the tokens.
 */
import type { Sql } from './sql.js';
import type { EventsPart, OAuthField, OAuthKey, OAuthPart } from './types.js';

/**
 * The next version: the clock in ms, or one more than the last when that is ahead, so it
 * grows with every write and across a clear (a new row starts from the clock).
 */
const NEXT_VERSION = 'CASE WHEN version >= ? THEN version + 1 ELSE ? END';

const FIELDS: readonly OAuthField[] = ['client_information', 'tokens', 'code_verifier', 'discovery', 'pending_scope'];

function checked(field: OAuthField): OAuthField {
  // The field name is spliced into SQL: only the known ones pass.
  if (!FIELDS.includes(field)) throw new Error(`unknown OAuth field ${field}`);
  return field;
}

type Row = Record<OAuthField, string | null> & { url: string };

export class SqlOAuth implements OAuthPart {
  constructor(
    private readonly sql: Sql,
    private readonly events: EventsPart,
  ) {}

  async get(key: OAuthKey, field: OAuthField): Promise<string | undefined> {
    const row = await this.sql.get<Row>('SELECT * FROM oauth_state WHERE upstream = ? AND subject = ?', [key.upstream, key.subject ?? '']);
    return row && row.url === key.url ? (row[checked(field)] ?? undefined) : undefined;
  }

  async set(key: OAuthKey, field: OAuthField, value: string | undefined): Promise<void> {
    const f = checked(field);
    const subject = key.subject ?? '';
    const now = Date.now();
    await this.sql.tx(async (t) => {
      await t.run('DELETE FROM oauth_state WHERE upstream = ? AND subject = ? AND url <> ?', [key.upstream, subject, key.url]);
      await t.run(
        `INSERT INTO oauth_state (upstream, subject, url, ${f}, version, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (upstream, subject) DO UPDATE SET ${f} = excluded.${f}, version = ${NEXT_VERSION.replaceAll('version', 'oauth_state.version')}, updated_at = excluded.updated_at`,
        [key.upstream, subject, key.url, value ?? null, now, now, now, now],
      );
    });
    await this.events.emit('oauth', { upstream: key.upstream, subject });
  }

  async setIf(key: OAuthKey, field: OAuthField, expected: string | undefined, value: string | undefined): Promise<boolean> {
    const f = checked(field);
    const subject = key.subject ?? '';
    const now = Date.now();
    const update = `UPDATE oauth_state SET ${f} = ?, version = ${NEXT_VERSION}, updated_at = ? WHERE upstream = ? AND subject = ? AND url = ?`;
    const params = [value ?? null, now, now, now, key.upstream, subject, key.url];
    let done =
      expected === undefined
        ? await this.sql.run(`${update} AND ${f} IS NULL`, params)
        : await this.sql.run(`${update} AND ${f} = ?`, [...params, expected]);
    if (done === 0 && expected === undefined && value !== undefined) {
      // No row yet (or one for another URL, which does not count): a first value.
      done = await this.sql.tx(async (t) => {
        await t.run('DELETE FROM oauth_state WHERE upstream = ? AND subject = ? AND url <> ?', [key.upstream, subject, key.url]);
        return t.run(`INSERT INTO oauth_state (upstream, subject, url, ${f}, version, updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (upstream, subject) DO NOTHING`, [
          key.upstream, subject, key.url, value, now, now,
        ]);
      });
    }
    if (done > 0) await this.events.emit('oauth', { upstream: key.upstream, subject });
    return done > 0;
  }

  async version(upstream: string, subject = ''): Promise<number> {
    const row = await this.sql.get<{ version: number }>('SELECT version FROM oauth_state WHERE upstream = ? AND subject = ?', [upstream, subject]);
    return row ? Number(row.version) : 0;
  }

  async clear(upstream: string, subject = ''): Promise<boolean> {
    const gone = (await this.sql.run('DELETE FROM oauth_state WHERE upstream = ? AND subject = ?', [upstream, subject])) > 0;
    if (gone) await this.events.emit('oauth', { upstream, subject });
    return gone;
  }
}
