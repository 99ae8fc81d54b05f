/**
 * `tool-curator eval <target>`: wiring only (the CLI has checked every flag's value).
 * Targets: a suite file (`*.yaml`, e.g. eval/university.yaml, run over the catalog of the
 * gateway config: `config`, else $TOOL_CURATOR_CONFIG, else ./gateway.config.yaml; read
 * from the gateway's catalog snapshot when there is one, unless `refresh`; a suite with
 * `catalog:` runs over that catalog file instead), a public data set (metatool, toollens,
 * api_bank, mcptoolbenchpp, livemcpbench), `public` (all five), `dev` (the dev suite),
 * `calibrate` (low-confidence threshold measurement), `all` (public + dev +
 * eval/university.yaml). `fusion` picks the hybrid fusion (default: a suite uses the
 * config's curator.fusion, the public and dev sets the curator's default). `approximate`
 * searches the public sets' dense stage through the HNSW graph whatever their size
 * (ann.ts; to measure the recall it loses against exact search). `sample`: a suite runs a
 * category-stratified slice of about that many cases, a data set every k-th query. `replay`:
 * learning from use measured on a suite, dev or a data set (replay.ts), the test half
 * before and after replaying the traffic half.
 * Document and query embeddings are cached in $TOOL_CURATOR_EVAL_CACHE (default
 * .tool-curator/eval.db), seeded from the config's `curator.vectors`, so a re-run embeds nothing.
 */
import { FUSIONS, MECHANISMS, type Fusion, type Mechanism } from '../curator/index.js';
import type { CuratorMode } from '../curator/types.js';
import { createEmbedder } from '../embedding/index.js';
import { openDb } from '../store/db.js';
import { EmbeddingStore } from '../store/embeddings.js';
import { calibrate } from './calibrate.js';
import { PUBLIC_SETS, type PublicSetName } from './data.js';
import { runDevSuite } from './dev/index.js';
import { memoizeQueries, runPublicEval, type PublicEvalResult } from './public.js';
import { formatCalibration, formatPublicTable, formatSuiteReport, formatUniversityReport } from './report.js';
import { runCatalogSuite } from './catalogSuite.js';
import { loadSuiteFile, runUniversitySuite, universitySlice, UNIVERSITY_SUITE, type SuiteFile, type UniversityResult } from './university.js';

const MODES: readonly CuratorMode[] = ['none', 'bm25', 'dense', 'hybrid'];

export interface EvalOptions {
  /** One mode, or `all` (default): bm25, dense, hybrid, and for a suite `none` as the token baseline. */
  mode?: CuratorMode | 'all';
  fusion?: Fusion;
  topK?: number;
  sample?: number;
  approximate?: boolean;
  json?: boolean;
  config?: string;
  /** Start the config's upstreams instead of reading the catalog snapshot. */
  refresh?: boolean;
  /** Learning from use by replay (replay.ts): the test half before and after replaying the traffic half. Not for calibrate or all. */
  replay?: boolean;
  /** Mechanisms switched off (curator MECHANISMS), to measure each one's share. Default none. */
  off?: readonly string[];
  /** Where notes for the user go (how fresh the catalog is). Default stderr. */
  note?: (line: string) => void;
}

/** A target or flag combination that cannot run; the CLI prints it with the usage. */
export class EvalUsageError extends Error {}

/** Runs the eval command; returns the process exit code (0 ok). @throws EvalUsageError for an unknown target or a flag it cannot honour. */
export async function evalCommand(target: string, options: EvalOptions = {}): Promise<number> {
  const modeArg = options.mode ?? 'all';
  const modes = modeArg === 'all' ? (['bm25', 'dense', 'hybrid'] as CuratorMode[]) : [modeArg];
  const fusion = options.fusion;
  if (modes.some((m) => !MODES.includes(m)) || (fusion !== undefined && !FUSIONS.includes(fusion))) throw new EvalUsageError(`unknown mode ${modeArg} or fusion ${fusion}`);
  const unknown = (options.off ?? []).filter((m) => !(MECHANISMS as readonly string[]).includes(m));
  if (unknown.length > 0) throw new EvalUsageError(`unknown mechanism ${unknown.join(', ')} for --off; known: ${MECHANISMS.join(', ')}`);
  const off = options.off as readonly Mechanism[] | undefined;
  const suite = /\.ya?ml$/.test(target) ? target : target === 'all' ? UNIVERSITY_SUITE : undefined;
  // A suite's `all` includes `none`: the whole allowed list is the baseline its token reduction is measured against.
  const suiteModes = modeArg === 'all' ? MODES : modes;
  const sets: PublicSetName[] = (PUBLIC_SETS as readonly string[]).includes(target)
    ? [target as PublicSetName]
    : target === 'public' || target === 'all' ? [...PUBLIC_SETS] : [];
  if (sets.length === 0 && !suite && !['dev', 'calibrate'].includes(target)) throw new EvalUsageError(`unknown eval target "${target}"`);
  const { topK, sample } = options;
  const replay = options.replay === true;
  if (replay && ['calibrate', 'all'].includes(target)) throw new EvalUsageError(`--replay takes a suite file, dev or a data set; not ${target}`);
  if (sample !== undefined && ['dev', 'calibrate', 'all'].includes(target)) throw new EvalUsageError(`--sample takes a suite file, a data set or public; ${target} always runs whole`);
  const file: SuiteFile = suite === undefined ? { cases: [] } : loadSuiteFile(suite);
  const cases = sample === undefined ? file.cases : universitySlice(file.cases, sample);
  const cache = new EmbeddingStore(openDb(process.env.TOOL_CURATOR_EVAL_CACHE ?? '.tool-curator/eval.db'));
  const needsEmbedder = target === 'calibrate' || modes.some((m) => m === 'dense' || m === 'hybrid');
  const embedder = needsEmbedder ? await createEmbedder({ provider: 'use' }) : null;
  const out: Record<string, unknown> = {};
  const print = (text: string): boolean => options.json === true || process.stdout.write(`${text}\n\n`);
  try {
    if (target === 'calibrate') {
      const report = await calibrate(memoizeQueries(embedder!, cache), cache);
      out.calibration = report;
      print(formatCalibration(report));
    }
    if (target === 'dev' || target === 'all') {
      const queries = embedder && memoizeQueries(embedder, cache);
      for (const mode of modes) {
        for (const { report, learned } of await runDevSuite(mode, queries, cache, topK, fusion, replay, off)) {
          const name = learned === undefined ? mode : `${mode} + learned (${learned})`;
          out[`dev:${name}`] = { ...report, cases: undefined };
          print(formatSuiteReport(`dev suite${replay ? ', test half' : ''}, ${name}`, report));
        }
      }
    }
    if (suite !== undefined) {
      const configPath = options.config ?? (process.env.TOOL_CURATOR_CONFIG || 'gateway.config.yaml');
      const queries = embedder && memoizeQueries(embedder, cache);
      const result: UniversityResult = file.catalog
        ? await runCatalogSuite(cases, suite, file.catalog, { modes: suiteModes, embedder: queries, cache, topK, fusion, replay, off })
        : await runUniversitySuite(cases, { configPath, modes: suiteModes, embedder: queries, cache, topK, fusion, snapshot: !options.refresh, note: options.note, replay, off });
      out.suite = {
        ...result,
        file: suite,
        results: result.results.map(({ mode, ranAs, report, learned, learnable }) => ({
          mode, ranAs, ...(learned !== undefined && { learned, learnable }), ...report,
          cases: undefined,
          notCorrect: report.cases.filter((c) => c.outcome !== 'correct').map((c) => ({ ...c.case, outcome: c.outcome, shortlist: c.shortlist })),
        })),
      };
      print(formatUniversityReport(suite, result));
    }
    const results: PublicEvalResult[] = [];
    for (const set of sets) {
      results.push(await runPublicEval(set, modes, embedder, { cache, topK, sample, fusion, replay, off, ...(options.approximate ? { approximate: { from: 0 } } : {}) }));
      out.public = results;
    }
    if (results.length > 0) print(formatPublicTable(results));
    if (options.json) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  } finally {
    await embedder?.close();
  }
}
