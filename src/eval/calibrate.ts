/**
 * `tool-curator eval calibrate`: a diagnostic of an embedder's similarity scale — the
 * distribution of the best dense similarity over a catalog for on-topic queries (the dev
 * suite's) and for off-topic ones (the dev suite's, also run against each public catalog —
 * catalogs only, no public query), and the cut that separates them best. The curator's
 * low-confidence expansion no longer reads a per-embedder similarity cut (it triggers on
 * the embedder-independent shortlist confidence, expand.ts); this shows why: the best
 * off-topic similarity rises with catalog size and differs per model.
 */
import { retrievalText } from '../catalog/retrievalText.js';
import type { ToolRecord } from '../catalog/types.js';
import { embedDocuments } from '../curator/embedCache.js';
import type { Embedder } from '../embedding/types.js';
import type { EmbeddingCache } from '../store/types.js';
import { loadPublicSet, PUBLIC_SETS } from './data.js';
import { DEV_CASES } from './dev/cases.js';
import { DEV_SYNONYMS, DEV_TOOLS } from './dev/catalog.js';

export interface Distribution {
  n: number;
  min: number;
  p10: number;
  p50: number;
  p90: number;
  max: number;
}

export interface CalibrationReport {
  embedder: string;
  onTopic: Distribution;
  offTopic: Distribution;
  /** Off-topic dev queries against each public catalog, by data-set name. */
  offTopicByCatalog: Record<string, Distribution>;
  /** Minimises on-topic queries under it plus dev off-topic queries at or over it. */
  threshold: number;
  /** Share of the dev queries (on + off) that the threshold classifies correctly. */
  accuracy: number;
}

export function distribution(values: readonly number[]): Distribution {
  const s = [...values].sort((a, b) => a - b);
  const q = (p: number): number => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
  return { n: s.length, min: s[0] ?? 0, p10: q(0.1), p50: q(0.5), p90: q(0.9), max: s[s.length - 1] ?? 0 };
}

/**
 * The cut that misclassifies fewest (on-topic < t, off-topic ≥ t); among equally good
 * cuts, the midpoint of the widest gap between neighbouring values.
 */
export function bestThreshold(onTopic: readonly number[], offTopic: readonly number[]): { threshold: number; accuracy: number } {
  const values = [...onTopic, ...offTopic].sort((a, b) => a - b);
  let best = { threshold: 0, errors: Infinity, gap: -1 };
  for (let i = 0; i <= values.length; i++) {
    const lo = values[i - 1] ?? values[0]! - 0.01;
    const hi = values[i] ?? values[values.length - 1]! + 0.01;
    const t = (lo + hi) / 2;
    const errors = onTopic.filter((v) => v < t).length + offTopic.filter((v) => v >= t).length;
    if (errors < best.errors || (errors === best.errors && hi - lo > best.gap)) best = { threshold: t, errors, gap: hi - lo };
  }
  return { threshold: best.threshold, accuracy: 1 - best.errors / values.length };
}

async function bestSimilarities(embedder: Embedder, tools: ToolRecord[], queries: string[], cache?: EmbeddingCache, synonyms?: Record<string, string>): Promise<number[]> {
  const { vectors } = await embedDocuments(embedder, tools.map((t) => retrievalText(t, synonyms?.[t.name])), cache);
  const out: number[] = [];
  for (const q of queries) {
    const v = await embedder.embedQuery(q);
    let best = -1;
    for (const d of vectors) {
      let dot = 0;
      for (let k = 0; k < v.length; k++) dot += v[k]! * d[k]!;
      best = Math.max(best, dot);
    }
    out.push(best);
  }
  return out;
}

/** Measures the distributions for `embedder` and picks the threshold. */
export async function calibrate(embedder: Embedder, cache?: EmbeddingCache): Promise<CalibrationReport> {
  const on = DEV_CASES.filter((c) => c.expected.length > 0).map((c) => c.query);
  const off = DEV_CASES.filter((c) => c.expected.length === 0).map((c) => c.query);
  const onSims = await bestSimilarities(embedder, DEV_TOOLS, on, cache, DEV_SYNONYMS);
  const offSims = await bestSimilarities(embedder, DEV_TOOLS, off, cache, DEV_SYNONYMS);
  const offTopicByCatalog: Record<string, Distribution> = {};
  for (const set of PUBLIC_SETS) {
    offTopicByCatalog[set] = distribution(await bestSimilarities(embedder, loadPublicSet(set).tools, off, cache));
  }
  const { threshold, accuracy } = bestThreshold(onSims, offSims);
  return { embedder: embedder.id, onTopic: distribution(onSims), offTopic: distribution(offSims), offTopicByCatalog, threshold, accuracy };
}
