/**
 * The dev suite: the dev catalog (catalog.ts) with its synonyms and dependencies, and the
 * on-topic dev cases (cases.ts), run through a curator.
 */
import { createCurator } from '../../curator/index.js';
import type { CuratorMode, Fusion, Mechanism } from '../../curator/types.js';
import type { Embedder } from '../../embedding/types.js';
import type { EmbeddingCache } from '../../store/types.js';
import type { SuiteReport } from '../suite.js';
import { scoreWithReplay } from '../university.js';
import { DEV_CASES } from './cases.js';
import { DEV_DEPENDENCIES, DEV_SYNONYMS, DEV_TOOLS } from './catalog.js';

/** Always-visible dev tools, as `exposure.pinned` in gateway.config.yaml. */
export const DEV_PINNED = ['get_my_profile'];

/**
 * Runs the dev suite's on-topic cases (off-topic ones serve calibration only): one report,
 * or with `replay` the test half before and after replaying the traffic half (replay.ts),
 * the second with how many learned exemplars it ranked with.
 */
export async function runDevSuite(mode: CuratorMode, embedder: Embedder | null, cache?: EmbeddingCache, topK?: number, fusion?: Fusion, replay = false, off?: readonly Mechanism[]): Promise<{ report: SuiteReport; learned?: number }[]> {
  const curator = createCurator({ mode, fusion, embedder, cache, off });
  await curator.buildIndex(DEV_TOOLS, { synonyms: DEV_SYNONYMS, dependencies: DEV_DEPENDENCIES, pinned: DEV_PINNED });
  const results = await scoreWithReplay(curator, DEV_CASES.filter((c) => c.expected.length > 0), () => DEV_TOOLS, { topK, pinned: DEV_PINNED }, replay);
  return results.map(({ report, learned }) => ({ report, ...(learned !== undefined && { learned }) }));
}
