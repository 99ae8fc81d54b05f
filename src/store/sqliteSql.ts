/**
 * The SQL surface (sql.ts) on a better-sqlite3 connection. Statements run synchronously;
 * a transaction spans awaits, so while one is open every other statement of this
 * connection waits for it to end instead of running inside it. Connections of one
 * process to one file share that turn-taking: SQLite's own lock would make the second
 * writer wait synchronously, blocking the event loop the first one needs to finish.
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';
import type { Param, Sql } from './sql.js';

/** Turn-taking of the transactions on one file, in this process. */
interface Turns {
  /** Set while a transaction is open; resolves when it ends. */
  open?: Promise<void>;
  /** The transactions waiting their turn. */
  queue: Promise<unknown>;
}

interface Shared {
  db: Db;
  statements: Map<string, Statement>;
  /** Called before any statement that writes, or before a transaction commits: throws to refuse the write (the file was deleted). */
  beforeWrite: () => void;
  turns: Turns;
}

/** Per file path; an in-memory database is its own. */
const turnsByFile = new Map<string, Turns>();

function turnsOf(db: Db): Turns {
  if (db.memory) return { queue: Promise.resolve() };
  let turns = turnsByFile.get(db.name);
  if (!turns) {
    turns = { queue: Promise.resolve() };
    turnsByFile.set(db.name, turns);
  }
  return turns;
}

export class SqliteSql implements Sql {
  readonly dialect = 'sqlite';
  private readonly shared: Shared;

  /**
   * @param beforeWrite called before every statement that writes outside a transaction, and
   *   before each transaction commits; it may throw to refuse the write.
   * @param inside the transaction this executor runs in (internal).
   */
  constructor(db: Db, beforeWrite: () => void = () => undefined, private readonly inside?: Shared) {
    this.shared = inside ?? { db, statements: new Map(), beforeWrite, turns: turnsOf(db) };
  }

  private prepare(sql: string): Statement {
    let s = this.shared.statements.get(sql);
    if (!s) {
      s = this.shared.db.prepare(sql);
      this.shared.statements.set(sql, s);
    }
    return s;
  }

  /**
   * Runs `use` on the statement once no transaction of another caller is open. The check
   * and the run are one synchronous step: no transaction can begin between them.
   */
  private async exec<R>(sql: string, use: (s: Statement) => R): Promise<R> {
    if (!this.inside) while (this.shared.turns.open) await this.shared.turns.open;
    const s = this.prepare(sql);
    // Inside a transaction, the check before its COMMIT covers every statement (nothing is committed before it).
    if (!s.readonly && !this.inside) this.shared.beforeWrite();
    return use(s);
  }

  all<T>(sql: string, params: readonly Param[] = []): Promise<T[]> {
    return this.exec(sql, (s) => s.all(...params) as T[]);
  }

  get<T>(sql: string, params: readonly Param[] = []): Promise<T | undefined> {
    return this.exec(sql, (s) => s.get(...params) as T | undefined);
  }

  run(sql: string, params: readonly Param[] = []): Promise<number> {
    return this.exec(sql, (s) => s.run(...params).changes);
  }

  /** Resolves once every transaction queued so far has ended. */
  idle(): Promise<void> {
    return this.shared.turns.queue.then(() => undefined);
  }

  tx<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    if (this.inside) return fn(this);
    const { db, turns } = this.shared;
    // Transactions take turns (the queue); `open` holds every other statement back meanwhile.
    const turn = async (): Promise<T> => {
      let end!: () => void;
      turns.open = new Promise((resolve) => (end = resolve));
      try {
        db.exec('BEGIN IMMEDIATE');
        const result = await fn(new SqliteSql(db, this.shared.beforeWrite, this.shared));
        this.shared.beforeWrite();
        db.exec('COMMIT');
        return result;
      } catch (err) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw err;
      } finally {
        turns.open = undefined;
        end();
      }
    };
    const result = turns.queue.then(turn, turn);
    turns.queue = result.catch(() => undefined);
    return result;
  }
}
