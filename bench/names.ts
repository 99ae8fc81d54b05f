/**
 * Name guard cost at scale: a synthetic catalog of 1,000 / 10,000 / 100,000 look-alike
 * names (the worst case: every name shares verbs, nouns and a numbered tail with thousands
 * of others), timing the trigram index build (once per catalog, on the first misspelled
 * name) and fuzzy lookups p50/p99 for 200 misspellings, with the SequenceMatcher
 * comparisons per lookup. Run: `node dist/bench/names.js`.
 */
import type { ToolRecord } from '../src/catalog/types.js';
import { MAX_COMPARISONS, NameIndex } from '../src/guards/nameIndex.js';
import { percentile } from '../src/eval/metrics.js';

const WORDS = ['course', 'student', 'exam', 'fee', 'room', 'book', 'grade', 'visitor', 'event', 'payment', 'ticket', 'report'];
const VERBS = ['get', 'list', 'create', 'update', 'delete', 'cancel'];

function catalog(n: number): ToolRecord[] {
  return Array.from({ length: n }, (_, i) => {
    const name = `${VERBS[i % VERBS.length]}_${WORDS[(i >> 3) % WORDS.length]}_${WORDS[(i >> 7) % WORDS.length]}_item${i}`;
    return { server: 's', name, upstreamName: name, description: '', inputSchema: { type: 'object' }, isAction: false };
  });
}

/** One letter doubled in the middle of the name. */
const misspell = (name: string) => name.slice(0, name.length >> 1) + name[name.length >> 1] + name.slice(name.length >> 1);

export async function benchNames(): Promise<string[]> {
  const lines = [
    '| tools | index build on the first lookup ms | prepare() in the background: total ms / longest chunk ms | lookup p50 ms | p99 ms | max comparisons | found |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const n of [1_000, 10_000, 100_000]) {
    const tools = catalog(n);
    const index = new NameIndex(tools);
    let t0 = performance.now();
    index.fuzzy('warm_up', () => true, 0.6);
    const build = performance.now() - t0;
    // What the gateway does when a catalog arrives: the same index built in chunks, the event loop served between them.
    const prepared = new NameIndex(tools);
    let last = performance.now();
    let longest = 0;
    const tick = setInterval(() => {
      longest = Math.max(longest, performance.now() - last);
      last = performance.now();
    }, 0);
    t0 = performance.now();
    await prepared.prepare();
    const prepare = performance.now() - t0;
    clearInterval(tick);
    longest = Math.max(longest, performance.now() - last);
    const times: number[] = [];
    let maxComparisons = 0;
    let found = 0;
    for (let q = 0; q < 200; q++) {
      const target = tools[(q * 7919) % n]!.name;
      t0 = performance.now();
      const r = index.fuzzy(misspell(target), () => true, 0.6);
      times.push(performance.now() - t0);
      maxComparisons = Math.max(maxComparisons, r.comparisons);
      if (r.candidates[0]?.tool.name === target) found++;
    }
    times.sort((a, b) => a - b);
    lines.push(`| ${n} | ${build.toFixed(0)} | ${prepare.toFixed(0)} / ${longest.toFixed(0)} | ${percentile(times, 0.5).toFixed(2)} | ${percentile(times, 0.99).toFixed(2)} | ${maxComparisons} (cap ${MAX_COMPARISONS}) | ${found}/200 |`);
  }
  return lines;
}

if (process.argv[1]?.endsWith('names.js')) console.log((await benchNames()).join('\n'));
