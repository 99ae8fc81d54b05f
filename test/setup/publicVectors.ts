/**
 * Vitest global setup: the USE document vectors of the public data sets the fast slice
 * measures (mcptoolbenchpp, api_bank; test/eval/use-slice.test.ts), embedded once before
 * any test runs, with no time limit and progress on stderr, into an embeddings cache kept
 * in .tool-curator/test/public-use.db for later runs. The slice then embeds its queries
 * only. Without the data sets (outside the repository, ../shared/eval-data or
 * $EVAL_DATA_DIR) there is nothing to embed, and the slice skips or, in CI, fails.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { createEmbedder } from '../../src/embedding/index.js';
import { evalDataDir } from '../../src/eval/data.js';
import { runPublicEval } from '../../src/eval/public.js';
import { configureLogging } from '../../src/log.js';
import { openDb } from '../../src/store/db.js';
import { EmbeddingStore } from '../../src/store/embeddings.js';
import { ROOT } from '../helpers/reference.js';

/** The sets use-slice.test.ts measures. */
const SLICE_SETS = ['mcptoolbenchpp', 'api_bank'] as const;

declare module 'vitest' {
  export interface ProvidedContext {
    /** The embeddings cache holding the slice sets' document vectors. */
    publicVectorCache: string;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const path = join(ROOT, '.tool-curator', 'test', 'public-use.db');
  project.provide('publicVectorCache', path);
  if (!existsSync(join(evalDataDir(), 'api_bank', 'tools.jsonl'))) return;
  mkdirSync(dirname(path), { recursive: true });
  configureLogging({ level: 'info', format: 'pretty' });
  const db = openDb(path);
  const embedder = await createEmbedder({ provider: 'use' });
  try {
    // One query per set: the catalog is what is embedded (and cached); a warm cache embeds nothing.
    for (const set of SLICE_SETS) await runPublicEval(set, ['dense'], embedder, { cache: new EmbeddingStore(db), sample: 1 });
  } finally {
    await embedder.close();
    db.close();
  }
}
