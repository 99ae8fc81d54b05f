/**
 * The embedding interface every provider implements. Knows nothing about tools: it maps
 * text to unit-length vectors.
 */

/** A sentence embedder. Vectors are L2-normalized, so inner product = cosine in [-1, 1]. */
export interface Embedder {
  /**
   * Stable identity of the model and its settings, e.g. `use:lite-512` or
   * `transformers:Xenova/bge-small-en-v1.5:q8:cls`. It is part of the embeddings cache key:
   * two embedders with the same id must produce the same vectors for the same text.
   */
  readonly id: string;
  /** Vector length, e.g. 512 for USE Lite, 384 for bge-small. */
  readonly dim: number;
  /** Embeds documents (tool retrieval texts), in input order. */
  embedDocuments(texts: string[]): Promise<Float32Array[]>;
  /** Embeds a query, with the model's query instruction when its model card gives one. */
  embedQuery(text: string): Promise<Float32Array>;
  /** Releases workers and native sessions. Idempotent. */
  close(): Promise<void>;
}
