/**
 * How `tool-curator select` shows a Selection: a ranked table (dense rank, BM25 rank,
 * RRF score and the fused score the ranking used, per tool; with --explain also dense
 * similarity, BM25 score and the mechanism that added the tool), or JSON.
 */
import type { Explanation, Selection } from '../curator/types.js';

/**
 * Below this confidence a shortlist misses a needed tool far more often (docs/CURATOR.md,
 * "Confidence": about 1 % of shortlists at 0.5 and above, 19 % below 0.3, university suite).
 */
export const WIDEN_BELOW = 0.5;

const dash = (v: number | undefined, digits = 0) => (v === undefined ? '-' : digits ? v.toFixed(digits) : String(v));

export function selectionJson(selection: Selection): unknown {
  const why = new Map((selection.explanations ?? []).map((e) => [e.name, e]));
  return {
    mode: selection.mode,
    confidence: selection.confidence,
    ...(selection.match ? { match: selection.match } : {}),
    ...(selection.noMatch ? { noMatch: selection.noMatch } : {}),
    ...(selection.notice ? { notice: selection.notice } : {}),
    ...(selection.cut ? { cut: selection.cut } : {}),
    tools: selection.tools.map((t, i) => {
      const { name: _omit, ...e } = why.get(t.name) ?? ({} as Partial<Explanation>);
      return { rank: i + 1, name: t.name, server: t.server, ...e };
    }),
  };
}

export function formatSelection(selection: Selection, explain: boolean): string {
  const why = new Map((selection.explanations ?? []).map((e) => [e.name, e]));
  const header = explain
    ? ['#', 'tool', 'server', 'dense', 'sim', 'bm25', 'score', 'rrf', 'fused', 'added by']
    : ['#', 'tool', 'server', 'dense', 'bm25', 'rrf', 'fused'];
  const rows = selection.tools.map((t, i) => {
    const e = why.get(t.name);
    return explain
      ? [String(i + 1), t.name, t.server, dash(e?.denseRank), dash(e?.denseSimilarity, 3), dash(e?.bm25Rank), dash(e?.bm25Score, 2), dash(e?.rrfScore, 4), dash(e?.fusedScore, 4), e?.addedBy ?? '-']
      : [String(i + 1), t.name, t.server, dash(e?.denseRank), dash(e?.bm25Rank), dash(e?.rrfScore, 4), dash(e?.fusedScore, 4)];
  });
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (r: string[]) => r.map((v, c) => v.padEnd(widths[c]!)).join('  ').trimEnd();
  const learned = selection.tools.flatMap((t) => {
    const sim = why.get(t.name)?.learnedSimilarity;
    return sim === undefined ? [] : [`${t.name} ${sim.toFixed(3)}`];
  });
  const widen = selection.confidence < WIDEN_BELOW ? ` (below ${WIDEN_BELOW}: widen the search)` : '';
  const notes = [
    ...(selection.noMatch ? [`no good match (${selection.noMatch.reason}): ${selection.noMatch.message}`] : []),
    ...(selection.notice ? [selection.notice] : []),
    ...(selection.cut ? [`cut by the limit: ${selection.cut.join(', ')}`] : []),
    ...(explain && learned.length > 0 ? [`learned from use (best learned query's similarity): ${learned.join(', ')}`] : []),
    ...(explain && selection.match ? [`evidence: BM25 coverage ${selection.match.coverage.toFixed(3)}, best dense ${dash(selection.match.denseTop, 3)}${selection.match.denseMedian !== undefined ? ` (median ${selection.match.denseMedian.toFixed(3)})` : ''}${selection.match.foreignScripts ? `, query script ${selection.match.foreignScripts.join('/')} not in the catalog` : ''}`] : []),
  ];
  return [line(header), ...rows.map(line), `mode ${selection.mode}, ${rows.length} tools, confidence ${selection.confidence.toFixed(3)}${widen}`, ...notes, ''].join('\n');
}
