/**
 * Opening the store the configuration names (`store`, `postgres`): a SQLite path
 * relative to the config file, or a PostgreSQL URL. It lives here, not in store/, because
 * reading the key is the configuration's job and store/ knows nothing of the config:
 * errors name the file and the key, problems beside an operation go to the log, and the
 * URL's password appears in neither.
 */
import { log } from '../log.js';
import { isPostgresUrl, openStore, SchemaTooNewError, StoreError, type Store } from '../store/index.js';
import { ConfigError, resolveFrom } from './errors.js';
import type { LoadedConfig } from './load.js';

/** The `store` value as opened: a PostgreSQL URL as written, a SQLite path resolved against the config's folder. */
export function storeLocation(loaded: Pick<LoadedConfig, 'config' | 'baseDir'>): string {
  const { store } = loaded.config;
  return isPostgresUrl(store) ? store : resolveFrom(loaded.baseDir, store);
}

/**
 * The store `store` names, opened and migrated.
 * @throws ConfigError naming `store` for a malformed URL, a corrupt or foreign file, or a
 *   store a newer release wrote; StoreUnavailableError for a database that cannot be reached.
 */
export async function openConfiguredStore(loaded: Pick<LoadedConfig, 'config' | 'baseDir' | 'file'>): Promise<Store> {
  const location = storeLocation(loaded);
  if (isPostgresUrl(location) && !URL.canParse(location)) {
    throw new ConfigError(loaded.file, 'store', 'is not a valid postgres:// URL (postgres://user:password@host:5432/database; characters such as @ : / in the password must be percent-encoded)');
  }
  const { postgres } = loaded.config;
  try {
    return await openStore(location, {
      onProblem: (message, err) => log.error({ err: err instanceof Error ? err.message : err }, message),
      postgres: { poolSize: postgres.pool_size, statementTimeoutMs: postgres.statement_timeout_ms, connectTimeoutMs: postgres.connect_timeout_ms },
    });
  } catch (err) {
    if (err instanceof StoreError || err instanceof SchemaTooNewError) throw new ConfigError(loaded.file, 'store', err.message);
    throw err;
  }
}
