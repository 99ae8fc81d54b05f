/**
 * The shortlist's size limit: `top_k` (find_tools `limit`) is the most tools a selection
 * returns, whatever added them (retrieval, split parts, anchors, exact names, workflow
 * dependencies). A host that asks for 5 tools budgets for 5 definitions; before this, limit
 * 5 returned 10 and limit 50 returned 60. What does not fit is cut and reported, so the
 * caller can ask again with a larger limit.
 */

/**
 * Inserts each tool's workflow dependencies (dependencies.yaml, transitively, allowed and
 * not pinned: `usable`) right after the tool that needs them, then keeps the first `max`
 * entries. A dependency follows its tool, so a tool's workflow survives the cut with it;
 * the tools cut are the weakest retrieval results and the workflows of tools that were
 * cut themselves.
 *
 * ### Usage
 * ```ts
 * // deps: 5 → [2, 3], 3 → [9]
 * withinLimit([5, 1, 7], ['retrieval', 'retrieval', 'retrieval'], deps, () => true, 4)
 * // { tools: [5, 2, 3, 9], addedBy: ['retrieval', 'dependency', 'dependency', 'dependency'], cut: [1, 7] }
 * ```
 */
export function withinLimit(
  ranked: readonly number[],
  addedBy: readonly string[],
  deps: ReadonlyMap<number, readonly number[]>,
  usable: (index: number) => boolean,
  max: number,
): { tools: number[]; addedBy: string[]; cut: number[] } {
  const tools: number[] = [];
  const why: string[] = [];
  const present = new Set<number>();
  const add = (i: number, reason: string): void => {
    if (present.has(i)) return;
    present.add(i);
    tools.push(i);
    why.push(reason);
    // Breadth-first over the tool's own workflow, each dependency once.
    const queue = [i];
    for (let q = 0; q < queue.length; q++) {
      for (const d of deps.get(queue[q]!) ?? []) {
        if (present.has(d) || !usable(d)) continue;
        present.add(d);
        tools.push(d);
        why.push('dependency');
        queue.push(d);
      }
    }
  };
  ranked.forEach((i, k) => add(i, addedBy[k]!));
  return { tools: tools.slice(0, max), addedBy: why.slice(0, max), cut: tools.slice(max) };
}
