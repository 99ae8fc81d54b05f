/**
 * The SQLite file of a store. WAL so the CLI (`approvals`, `audit`) can read and write
 * while a gateway serves. The file holds OAuth tokens and approvals, so it is created
 * mode 0600 (and an older, wider one narrowed), before SQLite writes a byte.
 *
 * The file is marked as ours in SQLite's header (`PRAGMA application_id`). Before
 * anything is written, an existing file is checked read-only: a file that is not a
 * SQLite database (corrupt, or some other file), or another application's database, is
 * refused with its path and never touched — not even switched to WAL.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { StoreError } from './errors.js';

export type Db = Database.Database;

/** SQLite header application_id of a Tool Curator store: "TCur" in ASCII. */
export const APPLICATION_ID = 0x54437572;

/** Tables of stores written before the application_id mark: adopted, nothing else is. */
const UNMARKED_TABLES = new Set(['embeddings', 'audit', 'approvals', 'sqlite_sequence']);

/** Refuses `path` unless it is absent, empty, a Tool Curator store, or an unmarked store of ours. */
function checkExisting(path: string): void {
  if (!existsSync(path)) return;
  const st = statSync(path);
  if (!st.isFile()) throw new StoreError(path, 'not a regular file');
  if (st.size === 0) return;
  let probe: Db | undefined;
  try {
    probe = new Database(path, { readonly: true, fileMustExist: true });
    const appId = probe.pragma('application_id', { simple: true }) as number;
    if (appId === APPLICATION_ID) return;
    if (appId !== 0) throw new StoreError(path, `a SQLite database of another application (application_id 0x${appId.toString(16)})`);
    const tables = probe.prepare<[], { name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table'`).all().map((r) => r.name);
    const foreign = tables.filter((t) => !UNMARKED_TABLES.has(t));
    if (foreign.length > 0) throw new StoreError(path, `a SQLite database of another application (tables ${foreign.slice(0, 5).join(', ')})`);
  } catch (err) {
    if (err instanceof StoreError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') throw new StoreError(path, 'not a SQLite database (corrupt, or another kind of file)');
    throw new StoreError(path, `cannot be read: ${(err as Error).message}`);
  } finally {
    probe?.close();
  }
}

/** Creates `path` empty with mode 0600 if absent; narrows it and its WAL/SHM companions to 0600 if wider. */
function ownerOnly(path: string): void {
  if (!existsSync(path)) closeSync(openSync(path, 'wx', 0o600));
  if (process.platform === 'win32') return;
  for (const f of [path, `${path}-wal`, `${path}-shm`]) {
    if (existsSync(f) && (statSync(f).mode & 0o077) !== 0) chmodSync(f, 0o600);
  }
}

/**
 * Opens (creating folder and file if needed) the SQLite file at `path`; `:memory:` for
 * tests. The tables are made by the store's migrations (`openStore`, or `EmbeddingStore`).
 * @throws StoreError for a corrupt or foreign file (see the module comment).
 */
export function openDb(path: string): Db {
  if (path !== ':memory:') {
    checkExisting(path);
    mkdirSync(dirname(path), { recursive: true });
    ownerOnly(path);
  }
  const db = new Database(path);
  if (db.pragma('application_id', { simple: true }) === 0) db.pragma(`application_id = ${APPLICATION_ID}`);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  return db;
}
