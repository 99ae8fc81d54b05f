/**
 * The public data sets live outside the repo (../shared/eval-data, or $EVAL_DATA_DIR).
 * A clone without them skips the tests that read them; CI has them beside the clone, and
 * there a missing folder fails the tests instead of skipping them.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { evalDataDir } from '../../src/eval/data.js';

export const withoutEvalData = !existsSync(join(evalDataDir(), 'api_bank', 'tools.jsonl')) && process.env.CI !== 'true';
