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
