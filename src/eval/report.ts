/**
 * Plain-text tables of eval results (Markdown, so they paste into docs/CURATOR.md), with
 * the reference numbers of shared/eval-data/BASELINES.md beside the measured ones.
 */
import type { CalibrationReport, Distribution } from './calibrate.js';
import type { PublicSetName } from './data.js';
import type { RetrievalMetrics } from './metrics.js';
import type { PublicEvalResult } from './public.js';
import type { CaseResult, SuiteReport } from './suite.js';
import type { UniversityResult } from './university.js';

type Ref = Omit<RetrievalMetrics, 'queries'>;
const ref = (recall5: number, recall10: number, complete10: number, ndcg10: number, mrr: number): Ref => ({ recall5, recall10, complete10, ndcg10, mrr });

/** BASELINES.md (2026-11-29): plain BM25, Dense-USE and equal-weight RRF over name + description (livemcpbench came later: none). */
export const BASELINES: Partial<Record<PublicSetName, Record<string, Ref>>> = {
  metatool: { BM25: ref(0.343, 0.437, 0.393, 0.308, 0.295), 'Dense-USE': ref(0.679, 0.775, 0.723, 0.595, 0.568), 'Hybrid-RRF': ref(0.609, 0.686, 0.641, 0.536, 0.522) },
  toollens: { BM25: ref(0.157, 0.21, 0.051, 0.172, 0.262), 'Dense-USE': ref(0.258, 0.35, 0.132, 0.267, 0.347), 'Hybrid-RRF': ref(0.25, 0.331, 0.111, 0.268, 0.376) },
  api_bank: { BM25: ref(0.657, 0.769, 0.746, 0.552, 0.491), 'Dense-USE': ref(0.815, 0.89, 0.857, 0.677, 0.621), 'Hybrid-RRF': ref(0.735, 0.876, 0.855, 0.647, 0.584) },
  mcptoolbenchpp: { BM25: ref(0.847, 0.857, 0.857, 0.776, 0.755), 'Dense-USE': ref(0.839, 0.916, 0.916, 0.742, 0.693), 'Hybrid-RRF': ref(0.891, 0.944, 0.944, 0.8, 0.756) },
};

const f3 = (x: number): string => x.toFixed(3);

/** A mode's row label: `(ran as …)` when another mode answered, `+ learned (N)` after a replay. */
function modeLabel(mode: string, ranAs: string, learned?: number): string {
  return `${ranAs === mode ? mode : `${mode} (ran as ${ranAs})`}${learned === undefined ? '' : ` + learned (${learned})`}`;
}

/**
 * One row per (set, retriever): curator modes first, then the baselines marked "(ref)".
 * "no-match": queries the no-match rule answered although their gold is in the catalog.
 */
export function formatPublicTable(results: readonly PublicEvalResult[]): string {
  const lines = [
    '| data set | queries | retriever | R@5 | R@10 | Complete@10 | nDCG@10 | MRR | avg list | no-match |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    r.results.forEach((m, i) => {
      const mode = m.mode === 'hybrid' ? `hybrid, ${r.fusion}` : m.mode;
      const name = modeLabel(mode, m.ranAs === m.mode ? mode : m.ranAs, m.learned);
      lines.push(`| ${i === 0 ? `${r.set} (${r.tools} tools)` : ''} | ${i === 0 ? m.queries : ''} | ${name} | ${f3(m.recall5)} | ${f3(m.recall10)} | ${f3(m.complete10)} | ${f3(m.ndcg10)} | ${f3(m.mrr)} | ${m.avgShortlist.toFixed(1)} | ${m.noMatch} |`);
    });
    for (const [name, b] of Object.entries(BASELINES[r.set] ?? {})) {
      lines.push(`| | | ${name} (ref) | ${f3(b.recall5)} | ${f3(b.recall10)} | ${f3(b.complete10)} | ${f3(b.ndcg10)} | ${f3(b.mrr)} | 10 | |`);
    }
  }
  return lines.join('\n');
}

export function formatSuiteReport(name: string, r: SuiteReport): string {
  const lines = [
    `${name}: ${r.total} cases, accuracy ${f3(r.accuracy)} (correct ${r.correct}, partial ${r.partial}, missed ${r.missed})`,
    `shortlist ${r.avgShortlist.toFixed(1)} tools, ${Math.round(r.avgTokens)} vs ${Math.round(r.avgFullTokens)} prompt tokens (−${(100 * r.tokenReduction).toFixed(1)} %)`,
    '| category | cases | correct | partial | missed | accuracy |',
    '|---|---|---|---|---|---|',
    ...Object.entries(r.byCategory).map(([c, t]) => `| ${c} | ${t.total} | ${t.correct} | ${t.partial} | ${t.missed} | ${f3(t.accuracy)} |`),
  ];
  for (const c of r.cases.filter((x) => x.outcome !== 'correct')) {
    lines.push(`  ${c.outcome}: "${c.case.query}" expected ${c.case.expected.join(', ')}; got ${c.shortlist.slice(0, 5).join(', ')}, …`);
  }
  return lines.join('\n');
}

const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;

/** Shortlist length and prompt tokens averaged over some cases; reduction = 1 − tokens / full. */
function cost(cases: readonly CaseResult[]): string {
  const n = cases.length || 1;
  const list = cases.reduce((s, c) => s + c.shortlist.length, 0) / n;
  const tokens = cases.reduce((s, c) => s + c.tokens, 0) / n;
  const full = cases.reduce((s, c) => s + c.fullTokens, 0) / n;
  return `${list.toFixed(1)} | ${Math.round(tokens)} | ${Math.round(full)} | ${pct(full > 0 ? 1 - tokens / full : 0)}`;
}

/**
 * The university suite: one summary row per mode, then per mode a table by category
 * (Correct / Partial / Missed, accuracy, shortlist and token cost) and by persona, then
 * the cases that were not Correct.
 */
export function formatUniversityReport(suite: string, r: UniversityResult): string {
  const costHead = 'avg list | avg tokens | full-list tokens | reduction';
  const lines = [
    `university suite ${suite}: ${r.cases} cases, ${r.tools} tools, top_k ${r.topK}, fusion ${r.fusion}, pinned: ${r.pinned.join(', ') || 'none'}`,
    `personas: ${Object.entries(r.personas).map(([p, x]) => `${p} ${x.cases} cases / ${x.tools} tools`).join(', ')}`,
    '',
    `| mode | correct | partial | missed | accuracy | ${costHead} |`,
    '|---|---|---|---|---|---|---|---|---|',
    ...r.results.map(({ mode, ranAs, report: t, learned }) =>
      `| ${modeLabel(mode, ranAs, learned)} | ${t.correct} (${pct(t.correct / t.total)}) | ${t.partial} | ${t.missed} | ${f3(t.accuracy)} | ${cost(t.cases)} |`),
  ];
  for (const { mode: m, ranAs, report, learned } of r.results) {
    const mode = modeLabel(m, m, learned) + (ranAs === m ? '' : ` (ran as ${ranAs})`);
    lines.push('', `${mode}, by category`, `| category | cases | correct | partial | missed | accuracy | ${costHead} |`, '|---|---|---|---|---|---|---|---|---|---|');
    for (const [cat, t] of Object.entries(report.byCategory)) {
      lines.push(`| ${cat} | ${t.total} | ${t.correct} | ${t.partial} | ${t.missed} | ${f3(t.accuracy)} | ${cost(report.cases.filter((c) => c.case.category === cat))} |`);
    }
    lines.push('', `${mode}, by persona`, `| persona | cases | correct | ${costHead} |`, '|---|---|---|---|---|---|---|');
    for (const persona of Object.keys(r.personas)) {
      const cases = report.cases.filter((c) => c.case.persona === persona);
      lines.push(`| ${persona} | ${cases.length} | ${pct(cases.filter((c) => c.outcome === 'correct').length / (cases.length || 1))} | ${cost(cases)} |`);
    }
  }
  for (const { mode: m, report, learned, learnable } of r.results) {
    const mode = modeLabel(m, m, learned);
    const wrong = report.cases.filter((c) => c.outcome !== 'correct');
    if (wrong.length === 0) continue;
    const bound = learnable === undefined ? '' : `; ${learnable} of them lack only tools the traffic half called in their persona (the most learning could add: ${report.correct + learnable} of ${report.total} Correct)`;
    lines.push('', `${mode}: ${wrong.length} cases not Correct${bound}`);
    for (const c of wrong) {
      const got = new Set(c.shortlist);
      const missing = c.case.expected.filter((e) => !got.has(e));
      lines.push(`  ${c.outcome} [${c.case.category}, ${c.case.persona}] "${c.case.query}": lacks ${missing.join(', ')}; top 5: ${c.shortlist.slice(0, 5).join(', ')}`);
    }
  }
  return lines.join('\n');
}

export function formatCalibration(r: CalibrationReport): string {
  const row = (name: string, d: Distribution): string => `| ${name} | ${d.n} | ${f3(d.min)} | ${f3(d.p10)} | ${f3(d.p50)} | ${f3(d.p90)} | ${f3(d.max)} |`;
  return [
    `best-match cosine similarity, embedder ${r.embedder}`,
    '| queries × catalog | n | min | p10 | p50 | p90 | max |',
    '|---|---|---|---|---|---|---|',
    row('on-topic × dev', r.onTopic),
    row('off-topic × dev', r.offTopic),
    ...Object.entries(r.offTopicByCatalog).map(([set, d]) => row(`off-topic × ${set}`, d)),
    `threshold ${f3(r.threshold)} (classifies ${(100 * r.accuracy).toFixed(1)} % of the dev queries correctly)`,
  ].join('\n');
}
