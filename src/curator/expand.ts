/**
 * Growing the shortlist past top_k, for two reasons: the retrievers are unsure
 * (low-confidence expansion) or a selected tool's workflow needs other tools
 * (dependency expansion from dependencies.yaml).
 */

/** Extra slots when the best dense similarity is under the embedder's threshold. */
export const LOW_CONFIDENCE_EXTRA = 5;

/**
 * Best-match cosine similarity under which a query is "low confidence", per embedder id.
 * Similarity scales differ per model (USE Lite's related pairs sit near 0.5, bge's near
 * 0.8), so each value is measured, never carried over: `tool-curator eval calibrate`
 * prints, for on-topic and off-topic dev queries (src/eval/dev/, written for this
 * project), the distribution of the best similarity over a catalog, and the cut that
 * separates them best.
 *
 * use:lite-512, measured 2026-11-29 (docs/CURATOR.md has the table): best similarity
 * over the 40-tool dev catalog, on-topic (43 queries) p10 0.415 / p50 0.545, off-topic
 * (40) p50 0.284 / p90 0.418; the best cut, 0.388, classifies 92.8 % correctly → 0.39.
 * Off-topic similarity rises with catalog size (p50 0.456 over toollens' 464 tools), so
 * on big catalogs the expansion fires less often than on the dev catalog.
 */
export const LOW_CONFIDENCE_THRESHOLDS: Readonly<Record<string, number>> = {
  'use:lite-512': 0.39,
};

/**
 * The threshold for an embedder: the explicit option if given, else the calibrated
 * table's entry, else undefined (expansion off: an uncalibrated threshold would fire on
 * every query or on none).
 */
export function lowConfidenceThreshold(embedderId: string, explicit?: number): number | undefined {
  return explicit ?? LOW_CONFIDENCE_THRESHOLDS[embedderId];
}

/**
 * Appends, after `shortlist`, the tools its members depend on (transitively, breadth
 * first, in rule order), skipping tools already present and those `usable` rejects
 * (not allowed, pinned).
 *
 * ### Usage
 * ```ts
 * // deps: 5 → [2, 3], 3 → [9]
 * withDependencies([5, 1], deps, () => true) // { tools: [5, 1, 2, 3, 9], added: [2, 3, 9] }
 * ```
 */
export function withDependencies(
  shortlist: readonly number[],
  deps: ReadonlyMap<number, readonly number[]>,
  usable: (index: number) => boolean,
): { tools: number[]; added: number[] } {
  const tools = [...shortlist];
  const present = new Set(tools);
  const added: number[] = [];
  for (let q = 0; q < tools.length; q++) {
    for (const d of deps.get(tools[q]!) ?? []) {
      if (present.has(d) || !usable(d)) continue;
      present.add(d);
      tools.push(d);
      added.push(d);
    }
  }
  return { tools, added };
}
