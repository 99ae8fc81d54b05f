/**
 * Events between the processes sharing a store. Delivery in this process is immediate
 * (an EventEmitter); a bridge carries each event to the other processes: PostgreSQL
 * NOTIFY (postgres.ts), or for SQLite a table the listening processes read every second
 * (`TableBridge`: SQLite cannot notify another process). Best effort: a failed publish is
 * reported, not thrown, since the row it announces is already written.
 */
import { EventEmitter } from 'node:events';
import type { Sql } from './sql.js';
import type { EventsPart, StoreEvents, StoreTopic } from './types.js';

/** Carries events to and from other processes. */
export interface EventBridge {
  publish(origin: string, topic: StoreTopic, payload: string): Promise<void>;
  /**
   * Starts delivering other processes' events to `deliver` (idempotent); calls `resync`
   * each time it starts listening (at first and after a reconnection), when events may
   * have been missed.
   */
  start(deliver: (origin: string, topic: string, payload: string) => void, resync: () => void): void;
  stop(): void;
}

/** The topics other processes may send (`resync` is this process's own). */
const TOPICS = new Set<string>(['approval', 'oauth', 'definition', 'names', 'embeddings'] satisfies StoreTopic[]);

export class Events implements EventsPart {
  private readonly emitter = new EventEmitter();
  private listening = false;

  /**
   * @param origin this process's store instance (its own events come back through some bridges and are skipped).
   * @param onProblem receives a failed publish.
   */
  constructor(
    private readonly origin: string,
    private readonly bridge: EventBridge | undefined,
    private readonly onProblem: (message: string, err: unknown) => void,
  ) {
    this.emitter.setMaxListeners(0);
  }

  on<T extends StoreTopic>(topic: T, fn: (payload: StoreEvents[T]) => void): () => void {
    this.emitter.on(topic, fn);
    if (!this.listening) {
      this.listening = true;
      this.bridge?.start(
        (origin, t, payload) => this.deliver(origin, t, payload),
        () => this.emitter.emit('resync', {}),
      );
    }
    return () => void this.emitter.off(topic, fn);
  }

  async emit<T extends StoreTopic>(topic: T, payload: StoreEvents[T]): Promise<void> {
    this.emitter.emit(topic, payload);
    try {
      await this.bridge?.publish(this.origin, topic, JSON.stringify(payload));
    } catch (err) {
      this.onProblem(`store event ${topic} not sent to other processes`, err);
    }
  }

  /** An event from a bridge: delivered here unless it is this process's own or not ours to know. */
  private deliver(origin: string, topic: string, payload: string): void {
    if (origin === this.origin || !TOPICS.has(topic)) return;
    try {
      this.emitter.emit(topic, JSON.parse(payload));
    } catch {
      // A malformed payload is nobody's event.
    }
  }

  stop(): void {
    this.bridge?.stop();
    this.emitter.removeAllListeners();
  }
}

/** How often a SQLite process that listens reads the events of others. */
const READ_EVERY_MS = 1_000;
/** Events older than this are deleted (a reader that was away longer re-reads its rows anyway). */
const KEEP_MS = 10 * 60_000;

/** SQLite's bridge: one row per event, read every second by the processes that listen. */
export class TableBridge implements EventBridge {
  private timer: NodeJS.Timeout | undefined;
  private last: number | undefined;
  private prunedAt = 0;

  constructor(
    private readonly sql: Sql,
    private readonly onProblem: (message: string, err: unknown) => void,
  ) {}

  async publish(origin: string, topic: StoreTopic, payload: string): Promise<void> {
    const now = Date.now();
    await this.sql.run('INSERT INTO store_events (origin, topic, payload, at) VALUES (?, ?, ?, ?)', [origin, topic, payload, now]);
    if (now - this.prunedAt > KEEP_MS / 10) {
      this.prunedAt = now;
      await this.sql.run('DELETE FROM store_events WHERE at < ?', [now - KEEP_MS]);
    }
  }

  start(deliver: (origin: string, topic: string, payload: string) => void, resync: () => void): void {
    if (this.timer) return;
    const read = async () => {
      if (this.last === undefined) {
        this.last = Number((await this.sql.get<{ id: number | null }>('SELECT MAX(id) AS id FROM store_events'))?.id ?? 0);
        resync();
        return;
      }
      const rows = await this.sql.all<{ id: number; origin: string; topic: string; payload: string }>(
        'SELECT id, origin, topic, payload FROM store_events WHERE id > ? ORDER BY id LIMIT 1000',
        [this.last],
      );
      for (const r of rows) {
        this.last = Number(r.id);
        deliver(r.origin, r.topic, r.payload);
      }
    };
    const tick = () => void read().catch((err: unknown) => this.onProblem('reading store events failed', err));
    tick();
    this.timer = setInterval(tick, READ_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.last = undefined;
  }
}
