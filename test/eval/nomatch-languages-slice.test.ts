/**
 * No-match honesty in other languages end to end (issue 29): a fixed, category-stratified
 * slice (20 cases, 12 languages) of eval/dev-nomatch-languages.yaml, plus the issue's own
 * Vietnamese request, over the university catalog (the eight servers spawned through the
 * repository's gateway.config.yaml and personas), hybrid with USE Lite. Every request the
 * English-only embedder cannot read gets the no-match answer with no state-changing tool in
 * its first three; English requests carrying foreign names are served. Before the readable-
 * words rule (language.ts) 8 of the 20 and the issue's request failed. The heavy suite
 * stays in `tool-curator eval eval/dev-nomatch-languages.yaml`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { createEmbedder } from '../../src/embedding/index.js';
import { memoizeQueries } from '../../src/eval/public.js';
import { loadSuiteFile, runUniversitySuite, universitySlice } from '../../src/eval/university.js';
import { openDb } from '../../src/store/db.js';
import { EmbeddingStore } from '../../src/store/embeddings.js';
import { ROOT } from '../helpers/reference.js';

describe('dev-nomatch-languages slice with USE over the university catalog', () => {
  test('every request in another language is answered no-match without an action in its first three; mixed English ones are served', async () => {
    process.env.UNIVERSITY_DB = join(mkdtempSync(join(tmpdir(), 'tc-lang-slice-')), 'university.db');
    const slice = universitySlice(loadSuiteFile(join(ROOT, 'eval/dev-nomatch-languages.yaml')).cases, 20);
    expect(slice).toHaveLength(20);
    expect(new Set(slice.map((c) => c.category))).toEqual(new Set(['untranslated', 'unserved', 'mixed']));
    const issue = { category: 'untranslated', persona: 'student', query: 'tải phiếu dự thi', expected: [] };
    const embedder = await createEmbedder({ provider: 'use' });
    try {
      const r = await runUniversitySuite([...slice, issue], {
        configPath: join(ROOT, 'gateway.config.yaml'),
        modes: ['hybrid'],
        embedder: memoizeQueries(embedder),
        cache: new EmbeddingStore(openDb(':memory:')),
      });
      const report = r.results[0]!.report;
      const wrong = report.cases.filter((c) => c.outcome !== 'correct').map((c) => `${c.case.query}: ${c.shortlist.slice(0, 3).join(', ')}`);
      expect(wrong).toEqual([]);
      for (const c of report.cases.filter((x) => x.case.expected.length === 0)) expect(c.shortlist.length, c.case.query).toBeLessThanOrEqual(3);
    } finally {
      await embedder.close();
    }
  }, 300_000);
});
