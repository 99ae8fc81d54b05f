/** How a store is opened (`openStore`); every field is optional. */
export interface StoreOptions {
  /** Clock in epoch ms for approvals, definitions and evidence; tests inject one. Default `Date.now`. */
  now?: () => number;
  /**
   * Receives what goes wrong beside an operation (a lost connection, a deleted file, an
   * event not sent): the gateway logs it as an error. Default: ignored.
   */
  onProblem?: (message: string, err?: unknown) => void;
  /** How long `lock` waits for a lock another process holds before failing, in ms. Default 30 000. */
  lockTimeoutMs?: number;
  /** PostgreSQL only. */
  postgres?: PostgresOptions;
}

export interface PostgresOptions {
  /** Connections in the pool (besides one for events and one per lock held). Default 10. */
  poolSize?: number;
  /** Longest a statement may run before the server cancels it, in ms. Default 15 000. */
  statementTimeoutMs?: number;
  /** Longest a new connection may take, in ms. Default 5 000. */
  connectTimeoutMs?: number;
}
