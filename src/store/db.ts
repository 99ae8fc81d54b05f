/**
 * The gateway's one SQLite file: embeddings cache, audit log, pending approvals.
 * WAL so the CLI (`approvals`, `audit`) can read and write while a gateway serves.
 * Each table lives in its own module, which creates it if absent.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

export type Db = Database.Database;

/** Opens (creating folder and file if needed) the store at `path`; `:memory:` for tests. */
export function openDb(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  return db;
}
