/**
 * How much of the limit a ranking uses: a confident one keeps back a reserve, a flat one
 * (confidence under LOW_CONFIDENCE) fills it (low-confidence expansion). Workflow
 * dependencies fill the rest of the limit (limit.ts).
 */

/**
 * Extra slots a flat ranking may use (the reserve, for a limit of 15 and up). 5: the
 * reference design's top_k 12 + 5.
 */
export const LOW_CONFIDENCE_EXTRA = 5;

/**
 * Slots of a limit kept back from a confident ranking: LOW_CONFIDENCE_EXTRA, at most a
 * third of the limit, so a limit of 5 still returns 4 confident tools.
 *
 * ### Usage
 * ```ts
 * reserveOf(17)  // 5: a confident list holds 12
 * reserveOf(5)   // 1
 * ```
 */
export function reserveOf(limit: number): number {
  return Math.min(LOW_CONFIDENCE_EXTRA, Math.floor(limit / 3));
}

/**
 * Shortlist confidence (retrieve.ts `shortlistConfidence`: best score-fusion score minus
 * the first tool a confident list leaves out, on [0, 1]) under which the shortlist fills its reserve.
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
