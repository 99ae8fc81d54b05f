/**
 * Assembling the shortlist from rankings, in the pipeline's order: compound-query union
 * (or the whole query's top), top-up to the target size, low-confidence extra slots,
 * name-token anchors. Pure: catalog indices in, catalog indices and reasons out.
 */
import { interleave, partBudget } from './split.js';

export interface ShortlistInput {
  /** The whole query's ranking, best first. */
  whole: readonly number[];
  /** Each part's ranking when the query was split (≥ 2 parts); empty otherwise. */
  parts: readonly (readonly number[])[];
  topK: number;
  /** Low-confidence expansion fired: LOW_CONFIDENCE_EXTRA more slots. */
  extra: number;
  /** Tools the query names (anchor.ts), strongest first. */
  anchored: readonly number[];
  /** Allowed pool in caller order: fills the list when the rankings run short. */
  pool: readonly number[];
}

export interface Shortlist {
  tools: number[];
  /** Per tool: 'retrieval' | 'split' | 'expansion' | 'anchor' | 'fallback'. */
  addedBy: string[];
}

/**
 * Size of the list is `topK + extra`, or the parts' union when that is larger. Anchored
 * tools already in it stay where they are; missing ones take the last non-anchored slots
 * of the first topK (the entries there move down, the list's last entries fall off).
 * At most ⌈topK / 2⌉ anchors are forced, so a generic name token ("search") matching
 * many tools cannot take over the list.
 *
 * ### Usage
 * ```ts
 * assembleShortlist({ whole: [4, 2, 9, 7], parts: [], topK: 2, extra: 0, anchored: [7], pool: [] })
 * // { tools: [4, 7], addedBy: ['retrieval', 'anchor'] }
 * ```
 */
export function assembleShortlist(input: ShortlistInput): Shortlist {
  const { whole, parts, topK, extra, anchored, pool } = input;
  const target = topK + extra;
  const list: Entry[] = [];
  const present = new Set<number>();
  const add = (index: number, why: string): void => {
    if (present.has(index)) return;
    present.add(index);
    list.push({ index, why });
  };

  const wholeTop = new Set(whole.slice(0, target));
  if (parts.length > 1) {
    for (const i of interleave(parts, partBudget(topK, parts.length))) add(i, wholeTop.has(i) ? 'retrieval' : 'split');
  }
  for (let r = 0; r < whole.length && list.length < target; r++) add(whole[r]!, r < topK ? 'retrieval' : 'expansion');
  for (let r = 0; r < pool.length && list.length < target; r++) add(pool[r]!, 'fallback');

  const forced = new Set(anchored.slice(0, Math.ceil(topK / 2)));
  const missing = [...forced].filter((i) => !present.has(i)).map((index) => ({ index, why: 'anchor' }));
  const head = list.slice(0, topK);
  const displaced: Entry[] = [];
  for (let k = head.length - 1; k >= 0 && displaced.length < missing.length; k--) {
    if (!forced.has(head[k]!.index)) displaced.unshift(...head.splice(k, 1));
  }
  const result = [...head, ...missing, ...displaced, ...list.slice(topK)].slice(0, Math.max(list.length, head.length + missing.length));
  return { tools: result.map((e) => e.index), addedBy: result.map((e) => e.why) };
}

interface Entry {
  index: number;
  why: string;
}
