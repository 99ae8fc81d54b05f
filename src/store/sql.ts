/**
 * The one SQL surface the store's parts are written against, so each part is one piece
 * of SQL for both backends: `?` placeholders (the PostgreSQL executor numbers them),
 * `INSERT … ON CONFLICT`, `RETURNING`, and the column types the schema maps per dialect
 * (schema.ts). Each backend implements it (sqlite.ts, postgres.ts).
 */

export type Dialect = 'sqlite' | 'postgres';

/** A bound value: text, a number (epoch ms, counts), NULL, or bytes (vectors). */
export type Param = string | number | null | Buffer;

export interface Sql {
  readonly dialect: Dialect;
  /** Every row of `sql`. */
  all<T>(sql: string, params?: readonly Param[]): Promise<T[]>;
  /** The first row of `sql`, or `undefined`. */
  get<T>(sql: string, params?: readonly Param[]): Promise<T | undefined>;
  /** Runs a statement; returns how many rows it changed. */
  run(sql: string, params?: readonly Param[]): Promise<number>;
  /** Runs `fn` in one transaction (committed if it resolves, rolled back if it throws); nested calls join it. */
  tx<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
}

/** `?, ?, ?` for `n` values. */
export function marks(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}

/** Consecutive slices of at most `size` items (statements stay under the engines' parameter limits). */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < items.length; at += size) out.push(items.slice(at, at + size));
  return out;
}
