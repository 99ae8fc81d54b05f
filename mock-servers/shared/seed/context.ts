/**
 * What every seed step shares: a seeded PRNG, an insert helper with cached statements,
 * and date arithmetic on ISO dates. Deterministic by construction: no wall clock, no
 * Math.random.
 */
import type { Db } from '../db.js';

/** mulberry32: small, fast, and the same sequence on every platform. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class SeedContext {
  private readonly statements = new Map<string, import('better-sqlite3').Statement>();
  readonly random: () => number;

  constructor(readonly db: Db, seed = 20251110) {
    this.random = prng(seed);
  }

  /** Inserts one row; returns its rowid. */
  insert(table: string, row: Record<string, unknown>): number {
    const keys = Object.keys(row);
    const key = `${table}(${keys.join(',')})`;
    let stmt = this.statements.get(key);
    if (!stmt) {
      stmt = this.db.prepare(`INSERT INTO ${table} (${keys.join(', ')}) VALUES (${keys.map((k) => '@' + k).join(', ')})`);
      this.statements.set(key, stmt);
    }
    return Number(stmt.run(row).lastInsertRowid);
  }

  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.random() * (hi - lo + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)];
  }

  chance(p: number): boolean {
    return this.random() < p;
  }
}

export const pad = (n: number, width: number): string => String(n).padStart(width, '0');
export const studentId = (i: number): string => 'S' + pad(i, 4);
export const facultyId = (i: number): string => 'F' + pad(i, 3);
