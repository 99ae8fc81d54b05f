/**
 * Opens the one fixture database the eight university servers share, creating and
 * seeding it on first start. Eight servers usually start at the same moment against the
 * same file, so creation is serialized by SQLite itself: WAL, a busy timeout, and a
 * `BEGIN IMMEDIATE` transaction that re-checks the schema version before seeding.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCHEMA, SCHEMA_VERSION } from './schema.js';
import { seed } from './seed/index.js';

export type Db = Database.Database;

/** The repository root: the nearest folder above this file holding package.json. */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
  return dir;
}

/** `UNIVERSITY_DB` if set, else `.tool-curator/university.db` under the repository root. */
export function universityDbPath(): string {
  const fromEnv = process.env.UNIVERSITY_DB;
  return fromEnv ? resolve(fromEnv) : join(repoRoot(), '.tool-curator', 'university.db');
}

function currentVersion(db: Db): string | undefined {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
  if (!hasMeta) return undefined;
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
  return row?.value;
}

/**
 * Opens (and if needed creates and seeds) the fixture database.
 * A file seeded by another schema version is emptied and reseeded.
 */
export function openUniversityDb(path = universityDbPath()): Db {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { timeout: 15_000 });
  db.pragma('busy_timeout = 15000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  if (currentVersion(db) === SCHEMA_VERSION) return db;
  db.exec('BEGIN IMMEDIATE');
  try {
    if (currentVersion(db) !== SCHEMA_VERSION) {
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as Array<{ name: string }>;
      for (const { name } of tables) db.exec(`DROP TABLE "${name}"`);
      db.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
      db.exec(SCHEMA);
      seed(db);
      db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?), ('seeded_at', ?)").run(SCHEMA_VERSION, new Date().toISOString());
    }
    db.exec('COMMIT');
  } catch (err) {
    db.exec('ROLLBACK');
    db.close();
    throw err;
  }
  return db;
}
