/**
 * The store backends a store test runs against, for `describe.each(BACKENDS)`: SQLite
 * always; PostgreSQL through TOOL_CURATOR_TEST_PG, a postgres:// URL whose role may
 * create databases. Each test file that uses PostgreSQL gets a fresh database of its own
 * (random name), dropped after; each test, an emptied one.
 *
 * Without TOOL_CURATOR_TEST_PG the PostgreSQL cases are skipped with a warning, except in
 * CI (CI=true), where they run and fail: .ci/run starts a server and sets the variable.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { openStore, type Store, type StoreKind, type StoreOptions } from '../../src/store/index.js';
import type { AuditRecord } from '../../src/store/types.js';
import { createDatabase, dropDatabase, PG_URL } from './pgDatabase.js';

export { adminQuery, createDatabase, dropDatabase, PG_URL, pgUrlFor } from './pgDatabase.js';

const IN_CI = process.env.CI === 'true';
export const SKIP_PG = PG_URL === undefined && !IN_CI;
if (SKIP_PG) console.warn('store tests: SKIPPING PostgreSQL, TOOL_CURATOR_TEST_PG is not set (with CI=true they run and fail instead)');

/** The tables a test empties on PostgreSQL (the SQLite ones get a new file). */
const TABLES = ['audit', 'approvals', 'approval_uses', 'tool_names', 'relay_names', 'oauth_state', 'oauth_flows', 'embeddings', 'embedding_claims', 'tool_definitions', 'learned_evidence', 'store_locks', 'store_events', 'sealing_keys', 'sealed_uses', 'upstream_eras', 'response_cache'];

export interface Backend {
  kind: StoreKind;
  /** An empty store location for one test: a new SQLite file, or this file's database emptied. */
  fresh(): Promise<string>;
  /** Opens a store at `location` (another instance on the same location is another replica). */
  open(location: string, options?: StoreOptions): Promise<Store>;
}

let database: { name: string; url: string } | undefined;

const sqlite: Backend = {
  kind: 'sqlite',
  fresh: async () => join(mkdtempSync(join(tmpdir(), 'tc-store-')), 'store.db'),
  open: (location, options) => openStore(location, options),
};

const postgres: Backend = {
  kind: 'postgres',
  async fresh() {
    if (!database) throw new Error('the PostgreSQL backend needs setupBackends() in the test file');
    await adminTruncate(database.url);
    return database.url;
  },
  open: (location, options) => openStore(location, options),
};

async function adminTruncate(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`TRUNCATE ${TABLES.join(', ')} RESTART IDENTITY`);
  } finally {
    await client.end();
  }
}

/** The backends to run: SQLite, and PostgreSQL unless skipped (see the module comment). */
export const BACKENDS: Backend[] = SKIP_PG ? [sqlite] : [sqlite, postgres];

/**
 * Inside a `describe.each(BACKENDS)`: a fresh store location before each test, and
 * `another()` opening one more store (a replica) on it; every store opened is closed after the test.
 */
export function freshStores(backend: Backend): { readonly location: string; another: () => Promise<Store> } {
  let location = '';
  const open: Store[] = [];
  beforeEach(async () => {
    location = await backend.fresh();
  });
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
  });
  return {
    get location() {
      return location;
    },
    another: async () => {
      const s = await backend.open(location);
      open.push(s);
      return s;
    },
  };
}

/** Creates this file's PostgreSQL database before its tests and drops it after (call once at the top of the file). */
export function setupBackends(): void {
  if (SKIP_PG) return;
  beforeAll(async () => {
    database = await createDatabase();
    // Migrated once, so that each test only empties the tables.
    await (await openStore(database.url)).close();
  });
  afterAll(async () => {
    if (database) await dropDatabase(database.name);
  });
}

/**
 * Runs `sql` on the store's database directly, as someone with write access to it would
 * (an attacker rewriting rows, a test checking what is stored); returns the rows.
 */
export async function rawQuery<T = Record<string, unknown>>(kind: StoreKind, location: string, sql: string): Promise<T[]> {
  if (kind === 'sqlite') {
    const db = new Database(location);
    try {
      const stmt = db.prepare(sql);
      return stmt.reader ? (stmt.all() as T[]) : (stmt.run(), []);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: location });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

/**
 * The last `limit` audit rows of `tool`, once none is still `running`: a gateway writes a
 * call's completion after its answer (with its next call's row, or alone a moment later),
 * and a store opened by the test is another process's view. No time limit of its own: the
 * test's timeout is the bound.
 */
export async function finishedRows(store: Store, tool: string, limit = 50): Promise<AuditRecord[]> {
  for (;;) {
    const rows = (await store.audit.tail(limit)).filter((r) => r.tool === tool);
    if (rows.every((r) => r.outcome !== 'running')) return rows;
    await new Promise((r) => setTimeout(r, 50));
  }
}
