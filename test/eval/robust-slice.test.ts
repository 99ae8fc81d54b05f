/**
 * Issue 22's failure kinds end to end with the USE embedder: a slice of eval/dev-robust.yaml
 * (every second case of each category) over the workbench catalog file, hybrid. Floors and
 * ranks are the values measured on 2026-12-02 (docs/EVAL.md, "Issue 22") with a margin of
 * one case. Document vectors are cached where `tool-curator eval` caches them.
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { createEmbedder } from '../../src/embedding/index.js';
import { runCatalogSuite } from '../../src/eval/catalogSuite.js';
import { memoizeQueries } from '../../src/eval/public.js';
import { loadSuiteFile } from '../../src/eval/university.js';
import { openDb } from '../../src/store/db.js';
import { EmbeddingStore } from '../../src/store/embeddings.js';
import { ROOT } from '../helpers/reference.js';

describe('dev-robust slice with USE', () => {
  test('misspelled, long, bare, implied and CJK requests find their tools', async () => {
    const path = join(ROOT, 'eval/dev-robust.yaml');
    const file = loadSuiteFile(path);
    const seen = new Map<string, number>();
    const slice = file.cases.filter((c) => {
      const n = seen.get(c.category) ?? 0;
      seen.set(c.category, n + 1);
      return n % 2 === 0;
    });
    const cache = new EmbeddingStore(openDb(process.env.TOOL_CURATOR_EVAL_CACHE ?? join(ROOT, '.tool-curator/eval.db')));
    const embedder = await createEmbedder({ provider: 'use' });
    try {
      const r = await runCatalogSuite(slice, path, file.catalog!, { modes: ['hybrid'], embedder: memoizeQueries(embedder), cache });
      expect([r.tools, r.cases]).toEqual([80, slice.length]);
      const report = r.results[0]!.report;
      const rank = (category: string) => report.cases.filter((c) => c.case.category === category).map((c) => c.shortlist.indexOf(c.case.expected[0]!) + 1);
      // Long requests: the ask's tool high in the list, first where a sentence names it to BM25 (measured ranks 4, 1, 2, 1, 1, 6).
      expect(rank('long').every((k) => k >= 1 && k <= 8), `long ranks ${rank('long')}`).toBe(true);
      expect(rank('long').filter((k) => k === 1).length, `long ranks ${rank('long')}`).toBeGreaterThanOrEqual(3);
      // Misspelled requests are found, never answered as nonsense, their tool in the top 3.
      expect(rank('typo').every((k) => k >= 1 && k <= 3), `typo ranks ${rank('typo')}`).toBe(true);
      // Bare tools found by their server's words and parameters, within the limit (measured ranks 4, 13, 1, 7; before issue 22 all four were missed).
      expect(rank('bare').every((k) => k >= 1 && k <= 17), `bare ranks ${rank('bare')}`).toBe(true);
      expect(report.byCategory.cjk!.correct).toBe(report.byCategory.cjk!.total);
      expect(report.byCategory.implied!.correct).toBeGreaterThanOrEqual(report.byCategory.implied!.total - 1);
      expect(report.correct).toBeGreaterThanOrEqual(slice.length - 1);
    } finally {
      await embedder.close();
    }
  }, 240_000);
});
