/**
 * Learned evidence: a user's query that led to a tool, one row each. The counting is
 * SQL (distinct users, uses, the latest time per pair); how many users make a pair
 * trusted, how old evidence decays and how many pairs count are the retrieval's business.
 */
import type { Param, Sql } from './sql.js';
import type { LearnedEvidence, LearnedPair, LearnedPart } from './types.js';

export class SqlLearned implements LearnedPart {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => number,
  ) {}

  async add(e: LearnedEvidence): Promise<void> {
    await this.sql.run('INSERT INTO learned_evidence (persona, tenant, user_id, query, tool, at) VALUES (?, ?, ?, ?, ?, ?)', [
      e.persona, e.tenant ?? '', e.userId, e.query, e.tool, e.at ?? this.now(),
    ]);
  }

  async pairs(options: { persona: string; tenant?: string; minUsers: number; since?: number }): Promise<LearnedPair[]> {
    const rows = await this.sql.all<{ query: string; tool: string; users: number; uses: number; last_at: number }>(
      `SELECT query, tool, COUNT(DISTINCT user_id) AS users, COUNT(*) AS uses, MAX(at) AS last_at FROM learned_evidence
       WHERE persona = ? AND tenant = ? AND at >= ? GROUP BY query, tool HAVING COUNT(DISTINCT user_id) >= ?
       ORDER BY users DESC, uses DESC, query, tool`,
      [options.persona, options.tenant ?? '', options.since ?? 0, options.minUsers],
    );
    return rows.map((r) => ({ query: r.query, tool: r.tool, users: Number(r.users), count: Number(r.uses), lastAt: Number(r.last_at) }));
  }

  async scopes(options: { since?: number } = {}): Promise<{ persona: string; tenant: string }[]> {
    return this.sql.all<{ persona: string; tenant: string }>('SELECT DISTINCT persona, tenant FROM learned_evidence WHERE at >= ? ORDER BY persona, tenant', [options.since ?? 0]);
  }

  async forget(options: { persona?: string; tenant?: string; tool?: string; query?: string; before?: number }): Promise<number> {
    const where: string[] = [];
    const params: Param[] = [];
    if (options.before !== undefined) {
      where.push('at < ?');
      params.push(options.before);
    }
    for (const [column, value] of [['persona', options.persona], ['tenant', options.tenant], ['tool', options.tool], ['query', options.query]] as const) {
      if (value === undefined) continue;
      where.push(`${column} = ?`);
      params.push(value);
    }
    return this.sql.run(`DELETE FROM learned_evidence${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, params);
  }
}
