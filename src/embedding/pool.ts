/**
 * A small pool of worker threads, each holding its own copy of a model (worker.ts), for
 * two jobs: embedding a catalog on every core (TF.js wasm runs one thread per model in
 * Node), and embedding queries off the main thread, so that a burst of find_tools never
 * holds up the other requests the gateway's event loop serves: the queries of one batch
 * come back one per turn of the event loop (oneEachTurn).
 *
 * Workers need compiled JavaScript: the entry is `worker.js` beside this module, which
 * exists when the gateway runs from `dist/`. From TypeScript sources (vitest) there is
 * none and `workerScript()` says so; a possibly stale `dist/` copy is never borrowed, so
 * source runs embed on the main thread.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import { log } from '../log.js';
import type { EmbedRequest, EmbedResponse, WorkerModel, WorkerSetup } from './worker.js';

/**
 * The `queryWorkers` setting of the in-process providers (`use`, `transformers`):
 * worker threads that embed queries, each with its own copy of the model (USE ≈ 30 MB).
 * Default max(1, min(4, cores / 2)): 1 on two cores. Queries that arrive while a worker
 * is busy are embedded together in its next call (up to the provider's `batchSize`),
 * so one worker keeps up with a burst. 0 = queries on the main thread: lowest latency
 * for one query at a time (no message hop), but every other request waits meanwhile.
 */
export const queryWorkersSchema = z.number().int().min(0).max(16).optional();

/** The default of `queryWorkers` (see queryWorkersSchema). */
export function defaultQueryWorkers(): number {
  return Math.max(1, Math.min(4, Math.floor(os.availableParallelism() / 2)));
}

/**
 * Niceness of query workers (Linux). At +10 a worker competing with the event-loop thread
 * for a core gets about a tenth of it; the event loop is idle most of the time even in a
 * burst, so searches lose little (`node dist/bench/burst.js`: docs/PERFORMANCE.md).
 * Catalog (document) workers keep the process's priority: start-up is not slowed.
 */
const QUERY_NICE = 10;

interface Task {
  texts: string[];
  resolve(vectors: Float32Array[]): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  /** The tasks whose texts the worker is embedding, in message order; empty when idle. */
  tasks: Task[];
}

export interface PoolOptions {
  /** Which model the workers load. Default USE Lite. */
  model?: WorkerModel;
  /**
   * Queries (the model's query instruction applies) rather than documents. Default false.
   * Query workers run at a lower scheduling priority (QUERY_NICE): during a burst of
   * find_tools the event loop, which serves every other request, wins the CPU from them.
   */
  queries?: boolean;
  /**
   * Most texts sent to a worker in one message: queued tasks smaller than this are
   * joined. Default 1 text (each task alone). The query pool joins up to the provider's batchSize.
   */
  joinUpTo?: number;
}

/** The compiled worker entry beside this module, or undefined when running from sources. */
export function workerScript(): URL | undefined {
  const script = new URL('./worker.js', import.meta.url);
  return existsSync(script) ? script : undefined;
}

/**
 * Runs batches on up to `size` workers, started on first use and kept for later calls.
 * A worker is ref'ed only while it has a batch in flight: an idle pool never keeps the
 * process alive, and a pending `embed` never lets it exit early.
 */
export class EmbedPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private closed = false;
  private readonly model: WorkerModel;
  private readonly queries: boolean;
  private readonly joinUpTo: number;

  /** @param size number of workers (≥ 1). @param script compiled worker entry, see `workerScript`. */
  constructor(readonly size: number, private readonly script: URL, options: PoolOptions = {}) {
    this.model = options.model ?? { provider: 'use' };
    this.queries = options.queries ?? false;
    this.joinUpTo = options.joinUpTo ?? 1;
  }

  /** Embeds each batch on some worker; resolves to the vectors per batch, in batch order. */
  embed(batches: string[][]): Promise<Float32Array[][]> {
    if (this.closed) return Promise.reject(new Error('embedding worker pool is closed'));
    const results = batches.map((texts) => new Promise<Float32Array[]>((resolve, reject) => {
      this.queue.push({ texts, resolve, reject });
    }));
    this.dispatch();
    return Promise.all(results);
  }

  /** Embeds one text (joined with others queued meanwhile, see `joinUpTo`). */
  async embedOne(text: string): Promise<Float32Array> {
    const [[vector]] = await this.embed([[text]]);
    return vector!;
  }

  /** Terminates every worker; queued and in-flight batches reject. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    const err = new Error('embedding worker pool closed');
    for (const task of this.queue.splice(0)) task.reject(err);
    const slots = this.slots.splice(0);
    for (const slot of slots) for (const task of slot.tasks.splice(0)) task.reject(err);
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((s) => s.tasks.length === 0) ?? (this.slots.length < this.size ? this.spawn() : undefined);
      if (!slot) return;
      slot.tasks = [this.queue.shift()!];
      let texts = slot.tasks[0]!.texts.length;
      while (this.queue.length > 0 && texts + this.queue[0]!.texts.length <= this.joinUpTo) {
        texts += this.queue[0]!.texts.length;
        slot.tasks.push(this.queue.shift()!);
      }
      slot.worker.ref();
      const request: EmbedRequest = { texts: slot.tasks.flatMap((t) => t.texts), query: this.queries };
      slot.worker.postMessage(request);
    }
  }

  private spawn(): Slot {
    const setup: WorkerSetup = { model: this.model, ...(this.queries ? { nice: QUERY_NICE } : {}) };
    const worker = new Worker(this.script, { workerData: setup, execArgv: workerExecArgv() });
    const slot: Slot = { worker, tasks: [] };
    this.slots.push(slot);
    log.debug({ model: this.model.provider, queries: this.queries, workers: this.slots.length }, 'embedder: worker started');
    worker.on('message', (msg: EmbedResponse) => {
      const tasks = slot.tasks.splice(0);
      worker.unref();
      if ('error' in msg) {
        const err = new Error(`embedding worker: ${msg.error}`);
        for (const task of tasks) task.reject(err);
      } else {
        let at = 0;
        const done = tasks.map((task) => {
          const vectors = msg.vectors.slice(at, at + task.texts.length);
          at += task.texts.length;
          return () => task.resolve(vectors);
        });
        oneEachTurn(done);
      }
      this.dispatch();
    });
    const fail = (err: Error) => {
      const i = this.slots.indexOf(slot);
      if (i < 0) return;
      this.slots.splice(i, 1);
      for (const task of slot.tasks.splice(0)) task.reject(err);
      this.dispatch();
    };
    worker.on('error', (err) => fail(err));
    worker.on('exit', (code) => fail(new Error(`embedding worker exited with code ${code}`)));
    return slot;
  }
}

/**
 * Runs `steps` one per turn of the event loop: the first now, each next from a
 * setImmediate queued by the one before, which Node runs only after the next poll for
 * I/O. A batch of joined queries resolves this way, so the rankings that wait for their
 * vectors run one at a time with the other requests served between them, rather than
 * back to back (50 rankings of the university catalog held the event loop ≈ 50 × 5 ms).
 */
function oneEachTurn(steps: (() => void)[]): void {
  const [first, ...rest] = steps;
  if (!first) return;
  first();
  if (rest.length > 0) setImmediate(() => oneEachTurn(rest));
}

/**
 * The parent's Node options minus `--input-type`: a worker starts from a file, and Node
 * refuses `--input-type` there (ERR_INPUT_TYPE_NOT_ALLOWED), which would kill the worker of
 * a host run as `node --input-type=module -e …`.
 */
function workerExecArgv(): string[] {
  return process.execArgv.filter((arg) => !arg.startsWith('--input-type'));
}
