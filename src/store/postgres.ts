/**
 * The PostgreSQL store, for a fleet of replicas: node-postgres (`pg`) with a pool of
 * connections, statement timeouts, events by LISTEN/NOTIFY on one dedicated connection
 * that reconnects by itself, and fleet-wide locks as session advisory locks, each on a
 * connection of its own. A database that goes away fails the operations meanwhile with
 * StoreUnavailableError naming the store; the pool makes new connections once it is back.
 */
import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { SqlApprovals } from './approvals.js';
import { SqlAudit } from './audit.js';
import { SqlDefinitions } from './definitions.js';
import { SqlEmbeddings } from './embeddings.js';
import { StoreUnavailableError } from './errors.js';
import { Events, type EventBridge } from './events.js';
import { SqlLearned } from './learned.js';
import { SqlSealing } from './sealing.js';
import { safeLocation } from './location.js';
import { KeyedMutex } from './mutex.js';
import { SqlNames, SqlRelayNames } from './names.js';
import { SqlEraVerdicts, SqlResponseCache } from './upstreamCache.js';
import { SqlOAuth } from './oauth.js';
import type { StoreOptions } from './options.js';
import { migrate } from './schema.js';
import type { Param, Sql } from './sql.js';
import type { Store, StoreTopic } from './types.js';

/** The NOTIFY channel of every Tool Curator store in a database. */
const CHANNEL = 'tool_curator';
const INT8_OID = 20;

/** Whether `err` means the database cannot be reached (rather than a statement that is wrong). */
function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (typeof e.code === 'string') {
    // SQLSTATE classes 08 (connection), 53 (resources), 57P (operator intervention: shutdown, crash, cannot connect now).
    if (/^(08|53|57P)/.test(e.code)) return true;
    // Node's own: ECONNREFUSED, ECONNRESET, ETIMEDOUT, ENOTFOUND, EPIPE, EHOSTUNREACH, ...
    if (/^E[A-Z]+$/.test(e.code)) return true;
  }
  return /Connection terminated|timeout exceeded when trying to connect|connection error|Client has encountered|not queryable/i.test(e.message ?? '');
}

class PgSql implements Sql {
  readonly dialect = 'postgres';
  private static readonly numbered = new Map<string, string>();

  constructor(
    private readonly client: pg.Pool | pg.PoolClient,
    private readonly wrap: (err: unknown) => unknown,
    private readonly pool?: pg.Pool,
  ) {}

  /** `?` placeholders numbered `$1, $2, …` (the store's SQL has no `?` inside literals). */
  private static text(sql: string): string {
    let text = PgSql.numbered.get(sql);
    if (text === undefined) {
      let n = 0;
      text = sql.replace(/\?/g, () => `$${++n}`);
      PgSql.numbered.set(sql, text);
    }
    return text;
  }

  private async query<T>(sql: string, params: readonly Param[]): Promise<pg.QueryResult<T & pg.QueryResultRow>> {
    try {
      return await this.client.query<T & pg.QueryResultRow>(PgSql.text(sql), params as Param[]);
    } catch (err) {
      throw this.wrap(err);
    }
  }

  async all<T>(sql: string, params: readonly Param[] = []): Promise<T[]> {
    return (await this.query<T>(sql, params)).rows;
  }

  async get<T>(sql: string, params: readonly Param[] = []): Promise<T | undefined> {
    return (await this.query<T>(sql, params)).rows[0];
  }

  async run(sql: string, params: readonly Param[] = []): Promise<number> {
    return (await this.query(sql, params)).rowCount ?? 0;
  }

  async tx<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    if (!this.pool) return fn(this);
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw this.wrap(err);
    }
    let broken: unknown;
    try {
      await client.query('BEGIN');
      const result = await fn(new PgSql(client, this.wrap));
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch((e: unknown) => (broken = e));
      throw this.wrap(err);
    } finally {
      // A connection that failed its ROLLBACK is dropped, not returned to the pool.
      client.release(broken instanceof Error ? broken : undefined);
    }
  }
}

/** LISTEN/NOTIFY on a connection of its own, reconnecting with backoff (1 s doubling to 30 s) when it is lost. */
class NotifyBridge implements EventBridge {
  private client: pg.Client | undefined;
  private deliver: ((origin: string, topic: string, payload: string) => void) | undefined;
  private resync: (() => void) | undefined;
  private retry: NodeJS.Timeout | undefined;
  private backoffMs = 1_000;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly sql: Sql,
    private readonly onProblem: (message: string, err: unknown) => void,
  ) {}

  async publish(origin: string, topic: StoreTopic, payload: string): Promise<void> {
    await this.sql.run('SELECT pg_notify(?, ?)', [CHANNEL, JSON.stringify({ o: origin, t: topic, p: payload })]);
  }

  start(deliver: (origin: string, topic: string, payload: string) => void, resync: () => void): void {
    if (this.deliver) return;
    this.deliver = deliver;
    this.resync = resync;
    this.connect();
  }

  private connect(): void {
    if (!this.deliver) return;
    const client = new pg.Client(this.config);
    let lost = false;
    const reconnect = (err?: unknown) => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = undefined;
      client.end().catch(() => undefined);
      if (!this.deliver) return;
      this.onProblem(`store event listener lost its connection; reconnecting in ${this.backoffMs / 1000} s`, err);
      this.retry = setTimeout(() => this.connect(), this.backoffMs);
      this.retry.unref();
      this.backoffMs = Math.min(this.backoffMs * 2, 30_000);
    };
    client.on('error', reconnect);
    client.on('end', () => reconnect());
    client.on('notification', (n) => {
      try {
        const m = JSON.parse(n.payload ?? '') as { o: string; t: string; p: string };
        this.deliver?.(m.o, m.t, m.p);
      } catch {
        // Not one of ours.
      }
    });
    client
      .connect()
      .then(() => client.query(`LISTEN ${CHANNEL}`))
      .then(() => {
        if (lost) return;
        if (!this.deliver) return void client.end().catch(() => undefined);
        this.client = client;
        this.backoffMs = 1_000;
        this.resync?.();
      }, reconnect);
  }

  stop(): void {
    this.deliver = undefined;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    client?.end().catch(() => undefined);
  }
}

/** The advisory lock key of `name`: 64 bits of its SHA-256, as PostgreSQL's signed bigint. */
function lockKey(name: string): string {
  return createHash('sha256').update(`tool-curator lock\0${name}`).digest().readBigInt64BE(0).toString();
}

export class PostgresStore implements Store {
  readonly kind = 'postgres';
  readonly location: string;
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
  private readonly pool: pg.Pool;
  /** Connections that hold (or wait for) advisory locks, apart from the pool that runs statements. */
  private readonly lockPool: pg.Pool;
  private readonly sql: PgSql;
  private readonly mutex = new KeyedMutex();
  private readonly lockTimeoutMs: number;

  private constructor(url: string, options: StoreOptions) {
    this.location = safeLocation(url);
    const now = options.now ?? Date.now;
    const onProblem = options.onProblem ?? (() => undefined);
    const p = options.postgres ?? {};
    this.lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
    const config: pg.ClientConfig = {
      connectionString: url,
      application_name: 'tool-curator',
      connectionTimeoutMillis: p.connectTimeoutMs ?? 5_000,
      statement_timeout: p.statementTimeoutMs ?? 15_000,
      idle_in_transaction_session_timeout: 60_000,
      keepAlive: true,
      // Epoch ms and counts are BIGINT: numbers, not strings (all stay below 2^53).
      types: { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser },
    };
    this.pool = new pg.Pool({ ...config, max: p.poolSize ?? 10, idleTimeoutMillis: 30_000 });
    // Waiting for a lock is one statement, bounded by the lock timeout; the lock lives as long as its session.
    this.lockPool = new pg.Pool({ ...config, statement_timeout: this.lockTimeoutMs, max: 20, idleTimeoutMillis: 30_000 });
    // A pooled connection that dies (the server restarted) is dropped by its pool, which makes new ones as needed.
    // Its error is reported here, whether it was idle (the pool's event) or in use (the connection's own).
    const lost = (err: Error) => onProblem('store connection lost; the pool reconnects on the next operation', err);
    for (const each of [this.pool, this.lockPool]) {
      each.on('error', lost);
      each.on('connect', (client) => client.on('error', lost));
    }
    const wrap = (err: unknown) => (!(err instanceof StoreUnavailableError) && isConnectionError(err) ? new StoreUnavailableError(this.location, (err as Error).message, { cause: err }) : err);
    this.sql = new PgSql(this.pool, wrap, this.pool);
    this.events = new Events(randomUUID(), new NotifyBridge(config, this.sql, onProblem), onProblem);
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
   * Connects to the database at `url` and brings its schema up to date (under an
   * advisory lock: replicas starting together migrate once).
   * @throws StoreUnavailableError when the database cannot be reached or refuses the login.
   */
  static async open(url: string, options: StoreOptions = {}): Promise<PostgresStore> {
    const store = new PostgresStore(url, options);
    try {
      await store.lock('migrate', () => migrate(store.sql, store.location));
      return store;
    } catch (err) {
      await store.close();
      throw err;
    }
  }

  async lock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return this.mutex.run(name, async () => {
      // A connection of the lock pool: waiting for the lock ties up none of the statements' pool.
      const key = lockKey(name);
      let client: pg.PoolClient | undefined;
      try {
        client = await this.lockPool.connect();
        await client.query('SELECT pg_advisory_lock($1::bigint)', [key]);
      } catch (err) {
        client?.release(true);
        if ((err as { code?: string }).code === '57014') {
          throw new StoreUnavailableError(this.location, `lock "${name}" was held by another process for over ${Math.round(this.lockTimeoutMs / 1000)} s`);
        }
        throw isConnectionError(err) ? new StoreUnavailableError(this.location, (err as Error).message, { cause: err }) : err;
      }
      try {
        return await fn();
      } finally {
        // A session whose unlock fails is closed, which releases its locks too.
        const unlocked = await client.query('SELECT pg_advisory_unlock($1::bigint)', [key]).then(() => true, () => false);
        client.release(!unlocked);
      }
    });
  }

  async ping(): Promise<void> {
    await this.sql.get('SELECT 1');
  }

  async close(): Promise<void> {
    this.events.stop();
    // Audit completions written behind go out before the connections end.
    await this.audit.flush();
    await Promise.all([this.pool.end(), this.lockPool.end()]).catch(() => undefined);
  }
}
