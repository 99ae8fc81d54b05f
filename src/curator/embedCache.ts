/**
 * Document embeddings through the EmbeddingStore: only texts missing from the cache are
 * sent to the embedder, each text once however many tools share it (copies of one
 * description across servers), and what it returns is stored batch by batch as it is
 * computed, so a restart in the middle of a cold build resumes where it stopped and a
 * restart with an unchanged catalog embeds nothing.
 */
import type { Embedder } from '../embedding/types.js';
import type { EmbeddingStore } from '../store/embeddings.js';
import { ProgressMeter, yieldToEventLoop, type ProgressListener } from './progress.js';

/**
 * Texts per embedder call, stored and reported (progress) after each call. Large enough
 * to keep every worker of the USE pool busy (it splits a call into batches of 32 across
 * up to 4 workers), small enough that the first progress line comes soon (128 USE texts:
 * under 1 s idle at 161 texts/s; 40 s on the 2-core machine at load 27, where 512 took
 * 190 s) and a restart loses little work.
 */
export const EMBED_BATCH = 128;
/** Cache lookups per synchronous chunk before giving the event loop back. */
const READ_CHUNK = 2_000;

/** Unit vectors for `texts`, in order; duplicates are embedded once. */
export async function embedDocuments(
  embedder: Embedder,
  texts: readonly string[],
  cache?: EmbeddingStore,
  onProgress?: ProgressListener,
): Promise<{ vectors: Float32Array[]; embedded: number }> {
  const unique = [...new Set(texts)];
  const byText = new Map<string, Float32Array>();
  const missing: string[] = [];
  for (let at = 0; at < unique.length; at += READ_CHUNK) {
    const part = unique.slice(at, at + READ_CHUNK);
    const cached = cache ? cache.get(embedder.id, part) : [];
    part.forEach((t, i) => (cached[i] ? byText.set(t, cached[i]) : missing.push(t)));
    if (at + READ_CHUNK < unique.length) await yieldToEventLoop();
  }
  const meter = new ProgressMeter(missing.length, { embedder: embedder.id, cached: unique.length - missing.length }, onProgress);
  for (let at = 0; at < missing.length; at += EMBED_BATCH) {
    const batch = missing.slice(at, at + EMBED_BATCH);
    const fresh = await embedder.embedDocuments(batch);
    if (fresh.length !== batch.length) {
      throw new Error(`Embedder ${embedder.id} returned ${fresh.length} vectors for ${batch.length} texts.`);
    }
    cache?.put(embedder.id, batch.map((text, i) => ({ text, vector: fresh[i]! })));
    batch.forEach((t, i) => byText.set(t, fresh[i]!));
    meter.advance(batch.length);
    // An in-process embedder resolves without ever leaving the microtask queue: serve requests between batches.
    await yieldToEventLoop();
  }
  return { vectors: texts.map((t) => byText.get(t)!), embedded: missing.length };
}
