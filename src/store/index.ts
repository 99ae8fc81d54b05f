/**
 * store/: what the gateway keeps between calls and shares across replicas, behind one
 * async interface (types.ts) with two backends: SQLite (a file, the default) and
 * PostgreSQL (a URL). It imports nothing from the rest of the gateway. docs/STORE.md.
 */
import { isPostgresUrl } from './location.js';
import type { StoreOptions } from './options.js';
import { PostgresStore } from './postgres.js';
import { SqliteStore } from './sqlite.js';
import type { Store } from './types.js';

export type * from './types.js';
export type { StoreOptions, PostgresOptions } from './options.js';
export { ApprovalError, StoreError, StoreUnavailableError } from './errors.js';
export { SchemaTooNewError, SCHEMA_VERSION } from './schema.js';
export { APPLICATION_ID, openDb, type Db } from './db.js';
export { EmbeddingStore, textHash } from './embeddings.js';
export { isPostgresUrl, safeLocation } from './location.js';

/**
 * Opens the store at `location`: a PostgreSQL URL, or a SQLite file path (created if
 * missing; relative to the working directory; `:memory:` for a throwaway one). The
 * schema is created or migrated before it resolves.
 *
 * ### Usage
 * ```ts
 * const store = await openStore('.tool-curator/store.db');
 * await store.audit.tail(20);
 * await store.close();
 * ```
 * @throws StoreError for a SQLite file that is corrupt or another application's;
 *   StoreUnavailableError for a database that cannot be reached or refuses the login;
 *   SchemaTooNewError for a store a newer release wrote.
 */
export function openStore(location: string, options: StoreOptions = {}): Promise<Store> {
  return isPostgresUrl(location) ? PostgresStore.open(location, options) : SqliteStore.open(location, options);
}
