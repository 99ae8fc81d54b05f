/**
 * OAuth client state per (upstream, subject): registered client information, tokens, the
 * PKCE code verifier of an authorization in progress, cached discovery, and a scope an
 * upstream asked for (step-up) that still needs consent. Subject `''` is the gateway's
 * own authorization; a user id, a per-user one. Values are stored as the SDK hands them
 * over (JSON), bound to the upstream's URL: state saved for another URL reads back as
 * absent. Every write bumps the row's `version` and emits `oauth`, so a provider can tell
 * that another process refreshed the tokens. A row is never deleted, only emptied (its
 * version keeps growing across a logout). Beside the state, the steps of OAuth flows in
 * progress (`oauth_flows`): taken once, expiring.
 */
import type { Sql } from './sql.js';
import type { EventsPart, OAuthField, OAuthFlow, OAuthKey, OAuthPart } from './types.js';

const FIELDS: readonly OAuthField[] = ['client_information', 'tokens', 'code_verifier', 'discovery', 'pending_scope'];

function checked(field: OAuthField): OAuthField {
  // The field name is spliced into SQL: only the known ones pass.
  if (!FIELDS.includes(field)) throw new Error(`unknown OAuth field ${field}`);
  return field;
}

type Row = Record<OAuthField, string | null> & { url: string };

/** Empties the row of (upstream, subject) when it is bound to another URL than the third parameter. */
const REBIND = `UPDATE oauth_state SET url = ?, ${FIELDS.map((f) => `${f} = NULL`).join(', ')}, version = version + 1, updated_at = ?
  WHERE upstream = ? AND subject = ? AND url <> ?`;

export class SqlOAuth implements OAuthPart {
  constructor(
    private readonly sql: Sql,
    private readonly events: EventsPart,
  ) {}

  async get(key: OAuthKey, field: OAuthField): Promise<string | undefined> {
    const row = await this.sql.get<Row>('SELECT * FROM oauth_state WHERE upstream = ? AND subject = ?', [key.upstream, key.subject ?? '']);
    return row && row.url === key.url ? (row[checked(field)] ?? undefined) : undefined;
  }

  set(key: OAuthKey, field: OAuthField, value: string | undefined): Promise<void> {
    return this.setAll(key, { [field]: value });
  }

  async setAll(key: OAuthKey, values: Partial<Record<OAuthField, string | undefined>>): Promise<void> {
    const fields = (Object.keys(values) as OAuthField[]).map(checked);
    if (fields.length === 0) return;
    const subject = key.subject ?? '';
    const now = Date.now();
    const params = fields.map((f) => values[f] ?? null);
    await this.sql.tx(async (t) => {
      await t.run(REBIND, [key.url, now, key.upstream, subject, key.url]);
      await t.run(
        `INSERT INTO oauth_state (upstream, subject, url, ${fields.join(', ')}, version, updated_at) VALUES (?, ?, ?, ${fields.map(() => '?').join(', ')}, 1, ?)
         ON CONFLICT (upstream, subject) DO UPDATE SET ${fields.map((f) => `${f} = excluded.${f}`).join(', ')}, version = oauth_state.version + 1, updated_at = excluded.updated_at`,
        [key.upstream, subject, key.url, ...params, now],
      );
    });
    await this.events.emit('oauth', { upstream: key.upstream, subject });
  }

  async setIf(key: OAuthKey, field: OAuthField, expected: string | undefined, value: string | undefined): Promise<boolean> {
    const f = checked(field);
    const subject = key.subject ?? '';
    const now = Date.now();
    const done = await this.sql.tx(async (t) => {
      await t.run(REBIND, [key.url, now, key.upstream, subject, key.url]);
      const update = `UPDATE oauth_state SET ${f} = ?, version = version + 1, updated_at = ? WHERE upstream = ? AND subject = ? AND url = ?`;
      const params = [value ?? null, now, key.upstream, subject, key.url];
      if (expected !== undefined) return t.run(`${update} AND ${f} = ?`, [...params, expected]);
      const changed = await t.run(`${update} AND ${f} IS NULL`, params);
      // No row yet: a first value.
      if (changed > 0 || value === undefined) return changed;
      return t.run(`INSERT INTO oauth_state (upstream, subject, url, ${f}, version, updated_at) VALUES (?, ?, ?, ?, 1, ?) ON CONFLICT (upstream, subject) DO NOTHING`, [
        key.upstream, subject, key.url, value, now,
      ]);
    });
    if (done > 0) await this.events.emit('oauth', { upstream: key.upstream, subject });
    return done > 0;
  }

  async version(upstream: string, subject = ''): Promise<number> {
    const row = await this.sql.get<{ version: number }>('SELECT version FROM oauth_state WHERE upstream = ? AND subject = ?', [upstream, subject]);
    return row ? Number(row.version) : 0;
  }

  async clear(upstream: string, subject = ''): Promise<boolean> {
    const emptied = await this.sql.run(
      `UPDATE oauth_state SET ${FIELDS.map((f) => `${f} = NULL`).join(', ')}, version = version + 1, updated_at = ?
       WHERE upstream = ? AND subject = ? AND (${FIELDS.map((f) => `${f} IS NOT NULL`).join(' OR ')})`,
      [Date.now(), upstream, subject],
    );
    if (emptied > 0) await this.events.emit('oauth', { upstream, subject });
    return emptied > 0;
  }

  async adopt(upstream: string, from: string, to: string): Promise<boolean> {
    const moved = await this.sql.tx(async (t) => {
      const held = await t.get<{ n: number }>('SELECT COUNT(*) AS n FROM oauth_state WHERE upstream = ? AND subject = ? AND tokens IS NOT NULL', [upstream, to]);
      if (Number(held?.n) > 0) return 0;
      await t.run('DELETE FROM oauth_state WHERE upstream = ? AND subject = ?', [upstream, to]);
      return t.run('UPDATE oauth_state SET subject = ?, version = version + 1, updated_at = ? WHERE upstream = ? AND subject = ? AND tokens IS NOT NULL', [to, Date.now(), upstream, from]);
    });
    if (moved > 0) await this.events.emit('oauth', { upstream, subject: to });
    return moved > 0;
  }

  async consented(upstream: string, limit = 10_000): Promise<{ subject: string; updatedAt: number }[]> {
    const rows = await this.sql.all<{ subject: string; updated_at: number }>(
      'SELECT subject, updated_at FROM oauth_state WHERE upstream = ? AND tokens IS NOT NULL ORDER BY subject LIMIT ?',
      [upstream, limit],
    );
    return rows.map((r) => ({ subject: r.subject, updatedAt: Number(r.updated_at) }));
  }

  async putFlow(id: string, flow: OAuthFlow, expiresAt: number, keep?: number): Promise<void> {
    await this.sql.tx(async (t) => {
      await t.run('DELETE FROM oauth_flows WHERE expires_at <= ?', [Date.now()]);
      await t.run('INSERT INTO oauth_flows (id, upstream, subject, data, expires_at) VALUES (?, ?, ?, ?, ?)', [id, flow.upstream, flow.subject, flow.data, expiresAt]);
      if (keep === undefined) return;
      await t.run(
        `DELETE FROM oauth_flows WHERE upstream = ? AND subject = ? AND id NOT IN
          (SELECT id FROM oauth_flows WHERE upstream = ? AND subject = ? ORDER BY expires_at DESC, id LIMIT ?)`,
        [flow.upstream, flow.subject, flow.upstream, flow.subject, keep],
      );
    });
  }

  async takeFlow(id: string): Promise<OAuthFlow | undefined> {
    // One statement: of two callers taking the same id, only one gets the row.
    const row = await this.sql.get<OAuthFlow & { expires_at: number }>('DELETE FROM oauth_flows WHERE id = ? RETURNING upstream, subject, data, expires_at', [id]);
    return row && Number(row.expires_at) > Date.now() ? { upstream: row.upstream, subject: row.subject, data: row.data } : undefined;
  }

  async readFlow(id: string): Promise<OAuthFlow | undefined> {
    const row = await this.sql.get<OAuthFlow & { expires_at: number }>('SELECT upstream, subject, data, expires_at FROM oauth_flows WHERE id = ?', [id]);
    return row && Number(row.expires_at) > Date.now() ? { upstream: row.upstream, subject: row.subject, data: row.data } : undefined;
  }
}
