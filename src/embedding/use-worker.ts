/**
 * Worker-thread entry of the USE pool: loads its own USE model on the first request
 * (TF.js wasm is single-threaded in Node, so one model per worker is how a catalog is
 * embedded on several cores) and answers `UseRequest` messages with `UseResponse`s.
 * Must be run compiled (`dist/src/embedding/use-worker.js`); see `use-pool.ts`.
 */
import { parentPort } from 'node:worker_threads';
import { loadUseModel, type UseModel } from './use-model.js';

/** One batch to embed. A worker holds one batch at a time, so answers need no id. */
export interface UseRequest {
  texts: string[];
}

/** The vectors of a batch (unit length, input order), or why it failed. */
export type UseResponse = { vectors: Float32Array[] } | { error: string };

if (!parentPort) throw new Error('use-worker.js is a worker_threads entry; start it with new Worker(...)');
const port = parentPort;
// A worker's stdout is merged into the parent's, which is the MCP protocol channel:
// whatever a library prints here goes to stderr instead. (Reading the worker's stdout
// stream in the parent would keep the process alive.)
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
let model: Promise<UseModel> | undefined;

port.on('message', async ({ texts }: UseRequest) => {
  try {
    model ??= loadUseModel();
    const vectors = await (await model).embed(texts);
    port.postMessage({ vectors } satisfies UseResponse, vectors.map((v) => v.buffer as ArrayBuffer));
  } catch (err) {
    model = undefined;
    port.postMessage({ error: err instanceof Error ? err.message : String(err) } satisfies UseResponse);
  }
});
