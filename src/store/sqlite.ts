/**
 * The SQLite store: one file (db.ts), the default for one person's host. Several
 * processes may share the file (a gateway and the CLI, or two gateways): SQLite's write
 * lock orders their writes, a lease row (`store_locks`) is the cross-process lock, and
 * events travel through a table read every second (events.ts).
 *
 * A file deleted or replaced under a running process is noticed before the next write
 * (its inode is compared) and every few seconds, reported once, and written to no more:
 * writes fail with StoreUnavailableError instead of vanishing into the unlinked file.
 */
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { SqlApprovals } from './approvals.js';
import { SqlAudit } from './audit.js';
import { openDb, type Db } from './db.js';
import { SqlDefinitions } from './definitions.js';
import { SqlEmbeddings } from './embeddings.js';
import { StoreUnavailableError } from './errors.js';
import { Events, TableBridge } from './events.js';
import { SqlLearned } from './learned.js';
import { SqlSealing } from './sealing.js';
import { KeyedMutex } from './mutex.js';
import { SqlNames, SqlRelayNames } from './names.js';
import { SqlEraVerdicts, SqlResponseCache } from './upstreamCache.js';
import { SqlOAuth } from './oauth.js';
import { migrate } from './schema.js';
import { SqliteSql } from './sqliteSql.js';
import type { Store } from './types.js';
import type { StoreOptions } from './options.js';

/** A lease lapses this long after its last renewal, so a lock whose holder died frees itself. */
const LEASE_MS = 15_000;
/** How often a running process checks that its store file is still there. */
const FILE_CHECK_MS = 5_000;

export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  readonly audit: SqlAudit;
  readonly approvals: SqlApprovals;
  readonly names: SqlNames;
  readonly relayNames: SqlRelayNames;
  readonly oauth: SqlOAuth;
  readonly embeddings: SqlEmbeddings;
  readonly definitions: SqlDefinitions;
  readonly learned: SqlLearned;
  readonly eras: SqlEraVerdicts;
  readonly responseCache: SqlResponseCache;
  readonly sealing: SqlSealing;
  readonly events: Events;
  private readonly sql: SqliteSql;
  private readonly mutex = new KeyedMutex();
  private readonly file: { dev: number; ino: number } | undefined;
  private gone: string | undefined;
  private readonly watch: NodeJS.Timeout | undefined;
  private readonly onProblem: (message: string, err?: unknown) => void;
  private readonly lockTimeoutMs: number;

  private constructor(
    private readonly db: Db,
    readonly location: string,
    options: StoreOptions,
  ) {
    const now = options.now ?? Date.now;
    this.onProblem = options.onProblem ?? (() => undefined);
    this.lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
    if (location !== ':memory:') {
      const st = statSync(location);
      this.file = { dev: st.dev, ino: st.ino };
      this.watch = setInterval(() => {
        try {
          this.checkFile();
        } catch {
          clearInterval(this.watch);
        }
      }, FILE_CHECK_MS);
      this.watch.unref();
    }
    this.sql = new SqliteSql(db, () => this.checkFile());
    const origin = randomUUID();
    this.events = new Events(origin, location === ':memory:' ? undefined : new TableBridge(this.sql, this.onProblem), this.onProblem);
    this.audit = new SqlAudit(this.sql);
    this.approvals = new SqlApprovals(this.sql, this.events, now);
    this.names = new SqlNames(this.sql, this.events);
    this.relayNames = new SqlRelayNames(this.sql);
    this.oauth = new SqlOAuth(this.sql, this.events);
    this.embeddings = new SqlEmbeddings(this.sql, this.events);
    this.definitions = new SqlDefinitions(this.sql, this.events, now);
    this.learned = new SqlLearned(this.sql, now);
    this.eras = new SqlEraVerdicts(this.sql);
    this.responseCache = new SqlResponseCache(this.sql);
    this.sealing = new SqlSealing(this.sql, now);
  }

  /**
   * Opens (creating if needed) the store file at `path` (`:memory:` for tests) and
   * brings its schema up to date.
   * @throws StoreError for a corrupt or foreign file; SchemaTooNewError for a newer release's store.
   */
  static async open(path: string, options: StoreOptions = {}): Promise<SqliteStore> {
    const db = openDb(path);
    try {
      const store = new SqliteStore(db, path, options);
      await migrate(store.sql, path);
      return store;
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /** Throws (and reports once) when the file was deleted or replaced since it was opened. */
  private checkFile(): void {
    if (!this.file) return;
    if (!this.gone) {
      let st: { dev: number; ino: number } | undefined;
      try {
        st = statSync(this.location);
      } catch {
        st = undefined;
      }
      if (st && st.ino === this.file.ino && st.dev === this.file.dev) return;
      this.gone = st
        ? 'its file was replaced by another while this process ran'
        : 'its file was deleted while this process ran; nothing more is written (audit rows and approvals would be lost with the unlinked file). Restart to create a new store';
      this.onProblem(`store ${this.location} is unavailable: ${this.gone}`);
    }
    throw new StoreUnavailableError(this.location, this.gone);
  }

  async lock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return this.mutex.run(name, async () => {
      const owner = randomUUID();
      const deadline = Date.now() + this.lockTimeoutMs;
      for (let pause = 10; !(await this.lease(name, owner)); pause = Math.min(pause * 2, 250)) {
        if (Date.now() > deadline) throw new StoreUnavailableError(this.location, `lock "${name}" was held by another process for over ${Math.round(this.lockTimeoutMs / 1000)} s`);
        await sleep(pause);
      }
      const renew = setInterval(() => {
        this.sql.run('UPDATE store_locks SET expires_at = ? WHERE name = ? AND owner = ?', [Date.now() + LEASE_MS, name, owner]).catch((err: unknown) => this.onProblem(`renewing the store lock "${name}" failed`, err));
      }, LEASE_MS / 3);
      renew.unref();
      try {
        return await fn();
      } finally {
        clearInterval(renew);
        await this.sql.run('DELETE FROM store_locks WHERE name = ? AND owner = ?', [name, owner]).catch(() => undefined);
      }
    });
  }

  /** Takes the lease `name` for `owner` if it is free or lapsed; true when taken. */
  private async lease(name: string, owner: string): Promise<boolean> {
    const now = Date.now();
    const taken = await this.sql.run(
      `INSERT INTO store_locks (name, owner, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at WHERE store_locks.expires_at < ?`,
      [name, owner, now + LEASE_MS, now],
    );
    return taken === 1;
  }

  async ping(): Promise<void> {
    this.checkFile();
    await this.sql.get('SELECT 1');
  }

  async close(): Promise<void> {
    clearInterval(this.watch);
    this.events.stop();
    // Audit completions written behind, and transactions still queued, finish first.
    await this.audit.flush();
    await this.sql.idle();
    this.db.close();
  }
}
