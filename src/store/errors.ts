/**
 * The store's errors. Each message names the store (its file, or its URL without the
 * password) and what to do; none carries a secret.
 */

/** An existing store file that is not ours to use; the message names the path and what is wrong. */
export class StoreError extends Error {
  constructor(readonly path: string, reason: string) {
    super(`${path}: ${reason}; the gateway has not written to it. Move it away, or point \`store\` at another file`);
    this.name = 'StoreError';
  }
}

/**
 * The store cannot be used right now: the database is down or unreachable, its file was
 * deleted under the running gateway, a lock could not be had in time. Operations fail
 * with it; a PostgreSQL store recovers by itself when the database returns.
 */
export class StoreUnavailableError extends Error {
  constructor(readonly location: string, reason: string, options?: { cause?: unknown }) {
    super(`store ${location} is unavailable: ${reason}`, options);
    this.name = 'StoreUnavailableError';
  }
}

/** A decision that cannot be taken: unknown id, already decided, expired. The message says which. */
export class ApprovalError extends Error {}
