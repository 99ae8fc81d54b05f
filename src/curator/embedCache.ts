/**
 * Document embeddings through the EmbeddingStore: only texts missing from the cache are
 * sent to the embedder, and what it returns is stored, so a restart with an unchanged
 * catalog embeds nothing.
 */
import type { Embedder } from '../embedding/types.js';
import type { EmbeddingStore } from '../store/embeddings.js';

/** Unit vectors for `texts`, in order; duplicates are embedded once. */
export async function embedDocuments(
  embedder: Embedder,
  texts: readonly string[],
  cache?: EmbeddingStore,
): Promise<{ vectors: Float32Array[]; embedded: number }> {
  const unique = [...new Set(texts)];
  const cached = cache ? cache.get(embedder.id, unique) : unique.map(() => undefined);
  const missing = unique.filter((_, i) => cached[i] === undefined);
  const fresh = missing.length > 0 ? await embedder.embedDocuments(missing) : [];
  if (fresh.length !== missing.length) {
    throw new Error(`Embedder ${embedder.id} returned ${fresh.length} vectors for ${missing.length} texts.`);
  }
  if (cache && fresh.length > 0) cache.put(embedder.id, missing.map((text, i) => ({ text, vector: fresh[i]! })));
  const byText = new Map<string, Float32Array>();
  unique.forEach((t, i) => cached[i] && byText.set(t, cached[i]));
  missing.forEach((t, i) => byText.set(t, fresh[i]!));
  return { vectors: texts.map((t) => byText.get(t)!), embedded: missing.length };
}
