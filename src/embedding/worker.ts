/**
 * Worker-thread entry of the embedding pool (pool.ts): loads its own copy of the model
 * named in `workerData` on the first request and answers `EmbedRequest` messages with
 * `EmbedResponse`s. TF.js wasm is single-threaded in Node and ONNX Runtime's `run` holds
 * the calling thread, so a model per worker is how a catalog is embedded on several
 * cores and how a query is embedded without holding up the gateway's event loop.
 * Must be run compiled (`dist/src/embedding/worker.js`); see `pool.ts`.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { TransformersSettings } from './transformers.js';

/** The model a worker loads: USE Lite, or a transformers.js model with the main thread's settings. */
export type WorkerModel = { provider: 'use' } | { provider: 'transformers'; settings: TransformersSettings };

/** What a worker is started with (`workerData`). */
export interface WorkerSetup {
  model: WorkerModel;
  /**
   * Scheduling niceness for this thread (Linux), so that the gateway's event-loop thread
   * takes the CPU first whenever both want it; unset keeps the process's.
   */
  nice?: number;
}

/** One batch to embed. A worker holds one batch at a time, so answers need no id. */
export interface EmbedRequest {
  texts: string[];
  /** Queries: the model's query instruction is applied (transformers; USE has none). */
  query: boolean;
}

/** The vectors of a batch (unit length, input order), or why it failed. */
export type EmbedResponse = { vectors: Float32Array[] } | { error: string };

interface Loaded {
  embed(texts: string[], query: boolean): Promise<Float32Array[]>;
}

if (!parentPort) throw new Error('worker.js is a worker_threads entry; start it with new Worker(...)');
const port = parentPort;
// A worker's stdout is merged into the parent's, which is the MCP protocol channel:
// whatever a library prints here goes to stderr instead. (Reading the worker's stdout
// stream in the parent would keep the process alive.)
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

async function load(model: WorkerModel): Promise<Loaded> {
  if (model.provider === 'use') {
    const { loadUseModel } = await import('./use-model.js');
    const use = await loadUseModel();
    return { embed: (texts) => use.embed(texts) };
  }
  const { loadTransformersModel } = await import('./transformers.js');
  // The main thread has loaded (and, from the hub, cached) this model already.
  const transformers = await loadTransformersModel(model.settings);
  return { embed: (texts, query) => transformers.embed(texts, query) };
}

/**
 * Lowers this thread's priority: on Linux a thread has its own nice value, set through
 * its thread id (`/proc/thread-self`). Elsewhere (or if refused) the thread keeps the
 * process's priority, which only costs the cheap requests some latency under load.
 */
function lowerPriority(nice: number): void {
  if (process.platform !== 'linux') return;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, nice);
  } catch {
    // Keeps the process's priority.
  }
}

const setup = workerData as WorkerSetup;
if (setup.nice !== undefined) lowerPriority(setup.nice);

let loaded: Promise<Loaded> | undefined;

port.on('message', async ({ texts, query }: EmbedRequest) => {
  try {
    loaded ??= load(setup.model);
    const vectors = await (await loaded).embed(texts, query);
    port.postMessage({ vectors } satisfies EmbedResponse, vectors.map((v) => v.buffer as ArrayBuffer));
  } catch (err) {
    loaded = undefined;
    port.postMessage({ error: err instanceof Error ? err.message : String(err) } satisfies EmbedResponse);
  }
});
