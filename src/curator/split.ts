/**
 * Compound query splitting: "show my fee dues and then pay them" asks for two tools, and a
 * single embedding of the whole sentence lands between them. Each part retrieves on its
 * own with a share of the shortlist; the whole query tops the list up.
 */
import { contentTerms } from './tokenize.js';

/**
 * Markers that join two requests. Deliberately narrow: bare "and"/"or" join objects of
 * one request far more often ("name and email", "read or write") and are never split on.
 * Longest first so "and then" is not cut at "then".
 */
export const SPLIT_MARKERS = [
  'and then', 'and also', 'after that', 'additionally', 'as well as', 'along with', 'then', 'also', 'plus',
] as const;

/** A query splits into at most this many parts; more markers join the rest to the last. */
export const MAX_PARTS = 4;

const MARKER = new RegExp(`\\s*[,;]?\\s*\\b(?:${SPLIT_MARKERS.join('|')})\\b\\s*[,;]?\\s*`, 'giu');

/**
 * The parts of a compound query, trimmed; parts without a content word ("also, please")
 * are dropped. A query with no marker, or with one meaningful part, gives `[query]`.
 *
 * ### Usage
 * ```ts
 * splitQuery('Check my fee dues and then pay them')  // ['Check my fee dues', 'pay them']
 * splitQuery('Show name and email')                  // ['Show name and email']
 * ```
 */
export function splitQuery(query: string): string[] {
  const parts = query
    .split(MARKER)
    .map((p) => p.trim())
    .filter((p) => contentTerms(p).length > 0);
  if (parts.length <= 1) return [query.trim()];
  if (parts.length <= MAX_PARTS) return parts;
  return [...parts.slice(0, MAX_PARTS - 1), parts.slice(MAX_PARTS - 1).join(' ')];
}

/**
 * Slots each part retrieves: max(⌊top_k / parts⌋ + 2, 7). The +2 overlap and the floor of 7
 * keep a part's second-best tools in reach, since a part's first hit is often a near twin.
 */
export function partBudget(topK: number, parts: number): number {
  return Math.max(Math.floor(topK / parts) + 2, 7);
}

/**
 * Union of the parts' rankings, interleaved rank by rank (part 1's first, part 2's first,
 * part 1's second, ...) so every part is represented near the top; each part contributes
 * at most `budget` tools and duplicates count once.
 */
export function interleave(rankings: readonly (readonly number[])[], budget: number): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  for (let r = 0; r < budget; r++) {
    for (const ranking of rankings) {
      const i = ranking[r];
      if (i !== undefined && !seen.has(i)) {
        seen.add(i);
        out.push(i);
      }
    }
  }
  return out;
}
