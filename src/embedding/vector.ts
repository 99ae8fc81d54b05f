/** Vector helpers shared by the providers. */

/**
 * Scales `v` in place to unit L2 length and returns it, so inner product = cosine.
 * A zero vector stays zero (there is no direction to keep).
 */
export function l2Normalize(v: Float32Array): Float32Array {
  let sq = 0;
  for (const x of v) sq += x * x;
  if (sq > 0) {
    const inv = 1 / Math.sqrt(sq);
    for (let i = 0; i < v.length; i++) v[i] *= inv;
  }
  return v;
}

/** Splits `items` into consecutive slices of at most `size` items, in order. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Longest text an embedder reads, in characters: 4,000. The USE tokenizer is quadratic in
 * the text length (a 64K-character query took 11 s and blocked the event loop), and no
 * sentence encoder here reads past 512 tokens (~2,000 words) anyway, so the tail of a
 * longer text could only cost time.
 */
export const MAX_EMBED_CHARS = 4000;

/** `text` cut to MAX_EMBED_CHARS. */
export function clip(text: string): string {
  return text.length > MAX_EMBED_CHARS ? text.slice(0, MAX_EMBED_CHARS) : text;
}
