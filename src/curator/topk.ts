/**
 * Top-k selection: the k best items of a list without sorting all of it. The dense stage
 * and the fusion rank a whole allowed pool (100,000 tools) for a shortlist that reads
 * about a hundred of them; a bounded heap does that in O(n log k) where a sort costs
 * O(n log n), and gives exactly the first k of the sorted order (`before` is a strict
 * total order, ties broken inside it).
 */

/**
 * The `k` best of `items`, best first. `before(a, b)` is true when a ranks ahead of b; it
 * must be a strict total order (break ties, e.g. by index) so the result equals
 * `[...items].sort(...).slice(0, k)`.
 *
 * ### Usage
 * ```ts
 * const score = [0.2, 0.9, 0.5, 0.9];
 * topK([0, 1, 2, 3], 2, (a, b) => score[a]! > score[b]! || (score[a] === score[b] && a < b))  // [1, 3]
 * ```
 */
export function topK(items: ArrayLike<number>, k: number, before: (a: number, b: number) => boolean): number[] {
  const n = items.length;
  if (k >= n) return Array.from(items).sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  if (k <= 0) return [];
  // Min-heap on rank: heap[0] is the worst of the k kept so far.
  const heap: number[] = [];
  const worse = (a: number, b: number): boolean => before(b, a);
  const up = (at: number): void => {
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!worse(heap[at]!, heap[parent]!)) break;
      [heap[at], heap[parent]] = [heap[parent]!, heap[at]!];
      at = parent;
    }
  };
  const down = (at: number): void => {
    for (;;) {
      const l = 2 * at + 1;
      const r = l + 1;
      let worst = at;
      if (l < heap.length && worse(heap[l]!, heap[worst]!)) worst = l;
      if (r < heap.length && worse(heap[r]!, heap[worst]!)) worst = r;
      if (worst === at) return;
      [heap[at], heap[worst]] = [heap[worst]!, heap[at]!];
      at = worst;
    }
  };
  for (let i = 0; i < n; i++) {
    const item = items[i]!;
    if (heap.length < k) {
      heap.push(item);
      up(heap.length - 1);
    } else if (before(item, heap[0]!)) {
      heap[0] = item;
      down(0);
    }
  }
  return heap.sort((a, b) => (before(a, b) ? -1 : 1));
}
