/**
 * Real shortlist quality on a fixed, category-stratified slice (60 cases) of the
 * university suite: the eight servers spawned through the repository's
 * gateway.config.yaml, its personas, synonyms, exemplars and dependencies, the USE
 * embedder, the config's fusion ('score'). Floors are the Correct counts measured on
 * 2026-11-30 (docs/EVAL.md) minus 2; BM25's, which needs no embedder and cannot drift
 * with float arithmetic, minus 1.
 * The catalog's document vectors come from university.vectors, the file the repository
 * ships (the config's `curator.vectors`): the suite runs on a fresh cache and embeds no
 * document, so a fresh clone on a loaded machine waits for no cold build (it did: 285 s).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { createEmbedder } from '../../src/embedding/index.js';
import type { Embedder } from '../../src/embedding/types.js';
import { memoizeQueries } from '../../src/eval/public.js';
import { CATEGORIES, loadSuite, runUniversitySuite, universitySlice } from '../../src/eval/university.js';
import { openDb } from '../../src/store/db.js';
import { EmbeddingStore } from '../../src/store/embeddings.js';
import { ROOT } from '../helpers/reference.js';

// measured Correct of 60: bm25 53, dense 56, hybrid 59 (hybrid 58 before the confidence-triggered expansion; at ec7739c: 54, 54, 54)
const FLOORS = { bm25: 52, dense: 54, hybrid: 57 } as const;

describe('university slice with USE', () => {
  test('each mode above its Correct floor; hybrid within the shortlist and token targets', async () => {
    process.env.UNIVERSITY_DB = join(mkdtempSync(join(tmpdir(), 'tc-univ-slice-')), 'university.db');
    const slice = universitySlice(loadSuite(join(ROOT, 'eval/university.yaml')));
    expect(slice).toHaveLength(60);
    const cache = new EmbeddingStore(openDb(':memory:'));
    const embedder = await createEmbedder({ provider: 'use' });
    const embedded: number[] = [];
    const counting: Embedder = { ...memoizeQueries(embedder), embedDocuments: (texts) => (embedded.push(texts.length), embedder.embedDocuments(texts)) };
    try {
      const r = await runUniversitySuite(slice, {
        configPath: join(ROOT, 'gateway.config.yaml'),
        modes: ['bm25', 'dense', 'hybrid'],
        embedder: counting,
        cache,
      });
      // Every document vector came from the shipped file; after editing the synonyms or exemplars, run `npm run vectors`.
      expect(embedded).toEqual([]);
      expect([r.tools, r.topK]).toEqual([191, 17]); // top_k is a maximum: a confident list holds 12
      for (const { mode, ranAs, report } of r.results) {
        expect(ranAs).toBe(mode);
        expect(Math.max(...report.cases.map((c) => c.shortlist.length)), mode).toBeLessThanOrEqual(17);
        expect(report.correct, mode).toBeGreaterThanOrEqual(FLOORS[mode as keyof typeof FLOORS]);
        expect(Object.keys(report.byCategory)).toEqual([...CATEGORIES]);
      }
      const hybrid = r.results.find((m) => m.mode === 'hybrid')!.report;
      // The whole allowed list is the baseline: every case's full-list cost exceeds its shortlist's.
      expect(hybrid.cases.every((c) => c.tokens < c.fullTokens)).toBe(true);
      expect(hybrid.avgShortlist).toBeLessThanOrEqual(15);
      expect(hybrid.tokenReduction).toBeGreaterThanOrEqual(0.8);
    } finally {
      await embedder.close();
    }
  }, 300_000);
});
