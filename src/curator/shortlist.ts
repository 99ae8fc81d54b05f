/**
 * Assembling the shortlist from rankings, in the pipeline's order: compound-query union
 * (or the whole query's top), top-up to the target size, low-confidence extra slots,
 * name-token anchors. Pure: catalog indices in, catalog indices and reasons out.
 */
import type { Ranking } from './retrieve.js';
import { interleave, partBudget } from './split.js';

/**
 * Retriever floor: each retriever's own top FLOOR_RANKS hits are kept in the first top_k,
 * so the hybrid's recall at top_k is at least each retriever's recall at 2. Two retrievers
 * × 2 = at most 4 of 10–12 slots: the fusion keeps most of the list. University suite
 * (hybrid, top_k 12): 381 / 391 Correct with 1, 2 or 3 (docs/CURATOR.md, "Retriever floor").
 */
export const FLOOR_RANKS = 2;
/**
 * BM25's hits count for the floor only when its share p of the vote (retrieve.ts) is at
 * least this: BM25 accounts for at least as much of the query as dense does. Dense's count
 * always. With any matched BM25 hit counted (p > 0) the university suite lost a case (380).
 */
export const FLOOR_MIN_SHARE = 0.5;

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
  /** Tools each retriever ranks at its very top (retrieverFloor), kept in the first topK. */
  floor?: readonly number[];
}

export interface Shortlist {
  tools: number[];
  /** Per tool: 'retrieval' | 'split' | 'expansion' | 'anchor' | 'floor' | 'fallback'. */
  addedBy: string[];
}

/**
 * Size of the list is `topK + extra`, or the parts' union when that is larger. Anchored
 * tools already in it stay where they are; missing ones take the last non-anchored slots
 * of the first topK (the entries there move down, the list's last entries fall off).
 * At most ⌈topK / 2⌉ anchors are forced, so a generic name token ("search") matching
 * many tools cannot take over the list. Then the floor tools (retrieverFloor) not in the
 * first topK take its last slots not held by an anchor or floor tool the same way (one in
 * the expansion slots moves up); when no such slot is left the rest are dropped, so the
 * floor never lengthens the list.
 *
 * ### Usage
 * ```ts
 * assembleShortlist({ whole: [4, 2, 9, 7], parts: [], topK: 2, extra: 0, anchored: [7], pool: [] })
 * // { tools: [4, 7], addedBy: ['retrieval', 'anchor'] }
 * ```
 */
export function assembleShortlist(input: ShortlistInput): Shortlist {
  const { whole, parts, topK, extra, anchored, pool, floor = [] } = input;
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

  const anchors = new Set(anchored.slice(0, Math.ceil(topK / 2)));
  const forced = new Set([...anchors, ...floor]);
  const head = list.slice(0, topK);
  let tail = list.slice(topK);
  const inHead = new Set(head.map((e) => e.index));
  const incoming: Entry[] = [...anchors].filter((i) => !present.has(i)).map((index) => ({ index, why: 'anchor' }));
  for (const i of floor) if (!inHead.has(i) && !incoming.some((e) => e.index === i)) incoming.push({ index: i, why: 'floor' });
  const missing: Entry[] = [];
  const displaced: Entry[] = [];
  let k = head.length - 1;
  for (const e of incoming) {
    while (k >= 0 && forced.has(head[k]!.index)) k--;
    if (k >= 0) displaced.unshift(...head.splice(k--, 1));
    else if (e.why === 'floor') continue;
    missing.push(e);
    if (e.why === 'floor') tail = tail.filter((t) => t.index !== e.index);
  }
  const result = [...head, ...missing, ...displaced, ...tail].slice(0, Math.max(list.length, head.length + missing.length));
  return { tools: result.map((e) => e.index), addedBy: result.map((e) => e.why) };
}

interface Entry {
  index: number;
  why: string;
}

/**
 * The tools a retriever ranks at its very top, to be kept in the shortlist whatever the
 * fusion does: dense's top `ranks` always, BM25's top `ranks` when it matched and its
 * share p of the vote is at least `minShare`. Interleaved best first (dense 1, BM25 1,
 * dense 2, …), distinct.
 */
export function retrieverFloor(ranking: Pick<Ranking, 'bm25' | 'dense' | 'share'>, ranks = FLOOR_RANKS, minShare = FLOOR_MIN_SHARE): number[] {
  const dense = ranking.dense ? Array.from(ranking.dense.indices.slice(0, ranks)) : [];
  const bm25 = ranking.share >= minShare ? ranking.bm25.filter((h) => h.score > 0).slice(0, ranks).map((h) => h.index) : [];
  const out: number[] = [];
  for (let r = 0; r < ranks; r++) {
    for (const i of [dense[r], bm25[r]]) if (i !== undefined && !out.includes(i)) out.push(i);
  }
  return out;
}
