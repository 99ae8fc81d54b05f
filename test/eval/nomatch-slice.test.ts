/**
 * The no-match rule end to end with the USE embedder over the workbench catalog file
 * (eval/dev-nomatch-workbench.yaml, hybrid): requests that share no word with any tool are
 * rarely answered as nonsense, while off-topic ones still are, never with an action among
 * the tools shown. Counts are the values measured on 2026-12-02 (docs/CURATOR.md,
 * "No-match floor") with a margin of one case. Document vectors are cached where
 * `tool-curator eval` caches them.
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { createCurator } from '../../src/curator/index.js';
import { createEmbedder } from '../../src/embedding/index.js';
import { loadCatalogFile } from '../../src/eval/catalogSuite.js';
import { memoizeQueries } from '../../src/eval/public.js';
import { loadSuiteFile } from '../../src/eval/university.js';
import { openDb } from '../../src/store/db.js';
import { EmbeddingStore } from '../../src/store/embeddings.js';
import { ROOT } from '../helpers/reference.js';

describe('dev-nomatch over the workbench catalog with USE', () => {
  test('zero-overlap paraphrases mostly matched, off-topic requests still flagged', async () => {
    const path = join(ROOT, 'eval/dev-nomatch-workbench.yaml');
    const file = loadSuiteFile(path);
    const tools = loadCatalogFile(join(ROOT, 'eval', file.catalog!));
    const cache = new EmbeddingStore(openDb(process.env.TOOL_CURATOR_EVAL_CACHE ?? join(ROOT, '.tool-curator/eval.db')));
    const embedder = await createEmbedder({ provider: 'use' });
    try {
      const curator = createCurator({ mode: 'hybrid', embedder: memoizeQueries(embedder), cache });
      await curator.buildIndex(tools);
      const flagged = new Map<string, number>();
      for (const c of file.cases) {
        const s = await curator.select(c.query, tools, { topK: 17 });
        if (!s.noMatch) continue;
        flagged.set(c.category, (flagged.get(c.category) ?? 0) + 1);
        expect(s.tools.length).toBeLessThanOrEqual(3);
        expect(s.tools.some((t) => t.isAction), c.query).toBe(false);
      }
      // Measured: 5 of 26 zero-overlap paraphrases answered no-match (9 with the floor alone), 3 of 20 off-topic chores.
      expect(flagged.get('no_overlap') ?? 0, JSON.stringify([...flagged])).toBeLessThanOrEqual(6);
      expect(flagged.get('off_topic') ?? 0, JSON.stringify([...flagged])).toBeGreaterThanOrEqual(2);
    } finally {
      await embedder.close();
    }
  }, 240_000);
});
