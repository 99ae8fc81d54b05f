/**
 * A small pool of worker threads, each running its own USE model, so that embedding a
 * catalog uses every core (TF.js wasm runs one thread per model in Node).
 *
 * Workers need compiled JavaScript: the entry is `use-worker.js` beside this module,
 * which exists when the gateway runs from `dist/`. From TypeScript sources (vitest)
 * there is none and `useWorkerScript()` says so; a possibly stale `dist/` copy is never
 * borrowed, so source runs embed on the main thread.
 */
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { UseRequest, UseResponse } from './use-worker.js';

interface Task {
  texts: string[];
  resolve(vectors: Float32Array[]): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  task?: Task;
}

/** The compiled worker entry beside this module, or undefined when running from sources. */
export function useWorkerScript(): URL | undefined {
  const script = new URL('./use-worker.js', import.meta.url);
  return existsSync(script) ? script : undefined;
}

/**
 * Runs batches on up to `size` workers, started on first use and kept for later calls.
 * A worker is ref'ed only while it has a batch in flight: an idle pool never keeps the
 * process alive, and a pending `embed` never lets it exit early.
 */
export class UsePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private closed = false;

  /** @param size number of workers (≥ 1). @param script compiled worker entry, see `useWorkerScript`. */
  constructor(readonly size: number, private readonly script: URL) {}

  /** Embeds each batch on some worker; resolves to the vectors per batch, in batch order. */
  embed(batches: string[][]): Promise<Float32Array[][]> {
    if (this.closed) return Promise.reject(new Error('USE worker pool is closed'));
    const results = batches.map((texts) => new Promise<Float32Array[]>((resolve, reject) => {
      this.queue.push({ texts, resolve, reject });
    }));
    this.dispatch();
    return Promise.all(results);
  }

  /** Terminates every worker; queued and in-flight batches reject. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    const err = new Error('USE worker pool closed');
    for (const task of this.queue.splice(0)) task.reject(err);
    const slots = this.slots.splice(0);
    for (const slot of slots) slot.task?.reject(err);
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((s) => !s.task) ?? (this.slots.length < this.size ? this.spawn() : undefined);
      if (!slot) return;
      const task = this.queue.shift()!;
      slot.task = task;
      slot.worker.ref();
      slot.worker.postMessage({ texts: task.texts } satisfies UseRequest);
    }
  }

  private spawn(): Slot {
    const worker = new Worker(this.script);
    const slot: Slot = { worker };
    this.slots.push(slot);
    worker.on('message', (msg: UseResponse) => {
      const task = slot.task;
      slot.task = undefined;
      worker.unref();
      if ('error' in msg) task?.reject(new Error(`USE worker: ${msg.error}`));
      else task?.resolve(msg.vectors);
      this.dispatch();
    });
    const fail = (err: Error) => {
      const i = this.slots.indexOf(slot);
      if (i < 0) return;
      this.slots.splice(i, 1);
      slot.task?.reject(err);
      slot.task = undefined;
      this.dispatch();
    };
    worker.on('error', (err) => fail(err));
    worker.on('exit', (code) => fail(new Error(`USE worker exited with code ${code}`)));
    return slot;
  }
}
