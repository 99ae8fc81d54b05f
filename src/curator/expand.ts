/**
 * Growing the shortlist past top_k, for two reasons: the retrievers are unsure
 * (low-confidence expansion) or a selected tool's workflow needs other tools
 * (dependency expansion from dependencies.yaml).
 */

/** Extra slots when the shortlist's confidence is under LOW_CONFIDENCE. */
export const LOW_CONFIDENCE_EXTRA = 5;

/** Slots of a limit kept back from a confident ranking: LOW_CONFIDENCE_EXTRA, at most a third of the limit. */
export function reserveOf(limit: number): number {
  return Math.min(LOW_CONFIDENCE_EXTRA, Math.floor(limit / 3));
}

/**
 * Shortlist confidence (retrieve.ts `shortlistConfidence`: best score-fusion score minus
 * the (top_k + 1)-th, on [0, 1]) under which the shortlist grows by LOW_CONFIDENCE_EXTRA.
 * The scale is the fusion's own, so one value serves every embedder.
 *
 * Source: the university suite (eval/university.yaml, 391 cases, hybrid, score fusion,
 * top_k 12, measured 2026-11-30; docs/CURATOR.md "Confidence"). Confidence of Correct
 * shortlists: p10 0.376, p25 0.550, p50 0.725 (381 cases); of the 10 not Correct: p10
 * 0.138, p25 0.174, p50 0.323. Share not Correct by band: below 0.3, 5 of 26 (19 %);
 * 0.3 – 0.5, 1 of 58 (1.7 %); from 0.5, 4 of 307 (1.3 %). The same cases without
 * domain_synonyms.json and exemplars.json: 15 of 47 (32 %), 11 of 86 (13 %), 2 of 258
 * (0.8 %). 0.3 is where the miss rate jumps tenfold, and below the 10th percentile of
 * Correct shortlists, so the extra slots go to the queries that need them.
 */
export const LOW_CONFIDENCE = 0.3;

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
