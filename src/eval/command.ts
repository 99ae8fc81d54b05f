/**
 * `tool-curator eval <target> [--mode M] [--fusion F] [--top-k N] [--sample N] [--approximate] [--replay] [--json] [--config F]`:
 * wiring only. Targets: a suite file (`*.yaml`, e.g. eval/university.yaml, run over the
 * upstreams of the gateway config: --config, else $TOOL_CURATOR_CONFIG, else
 * ./gateway.config.yaml), a public data set (metatool, toollens, api_bank, mcptoolbenchpp,
 * livemcpbench), `public` (all five), `dev` (the dev suite), `calibrate` (low-confidence threshold
 * measurement), `all` (public + dev + eval/university.yaml). `--fusion score|rrf` picks the
 * hybrid fusion (default: a suite uses the config's curator.fusion, the public and dev sets
 * the curator's default). `--approximate` searches the public sets' dense stage through
 * the HNSW graph whatever their size (ann.ts; to measure the recall it loses against exact
 * search). `--replay` measures learning from use on a suite, dev or a public set (replay.ts):
 * the test half before and after replaying the traffic half. Document and query embeddings
 * are cached in $TOOL_CURATOR_EVAL_CACHE (default .tool-curator/eval.db), so a re-run
 * embeds nothing.
 */
import { parseArgs } from 'node:util';
import { FUSIONS, type Fusion } from '../curator/index.js';
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
import { loadSuiteFile, runUniversitySuite, UNIVERSITY_SUITE, type SuiteFile, type UniversityResult } from './university.js';

const MODES: readonly CuratorMode[] = ['none', 'bm25', 'dense', 'hybrid'];
const USAGE = 'usage: tool-curator eval <suite.yaml|metatool|toollens|api_bank|mcptoolbenchpp|livemcpbench|public|dev|calibrate|all> [--mode none|bm25|dense|hybrid|all] [--fusion score|rrf] [--top-k N] [--sample N] [--approximate] [--replay] [--json] [--config F]';

function positive(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${flag} needs a positive integer, got "${value}".\n${USAGE}`);
  return n;
}

/** Runs the eval command; returns the process exit code (0 ok, 2 usage error). */
export async function evalCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { mode: { type: 'string' }, fusion: { type: 'string' }, 'top-k': { type: 'string' }, sample: { type: 'string' }, approximate: { type: 'boolean' }, replay: { type: 'boolean' }, json: { type: 'boolean' }, config: { type: 'string' } },
  });
  const target = positionals[0];
  const modeArg = values.mode ?? 'all';
  const modes = modeArg === 'all' ? (['bm25', 'dense', 'hybrid'] as CuratorMode[]) : [modeArg as CuratorMode];
  const fusion = values.fusion as Fusion | undefined;
  if (!target || modes.some((m) => !MODES.includes(m)) || (fusion !== undefined && !FUSIONS.includes(fusion))) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const suite = /\.ya?ml$/.test(target) ? target : target === 'all' ? UNIVERSITY_SUITE : undefined;
  // A suite's `all` includes `none`: the whole allowed list is the baseline its token reduction is measured against.
  const suiteModes = modeArg === 'all' ? MODES : modes;
  const sets: PublicSetName[] = (PUBLIC_SETS as readonly string[]).includes(target)
    ? [target as PublicSetName]
    : target === 'public' || target === 'all' ? [...PUBLIC_SETS] : [];
  const replay = values.replay === true;
  if (replay && (target === 'calibrate' || target === 'all')) {
    process.stderr.write(`--replay takes a suite file, dev or a public data set, not "${target}"\n${USAGE}\n`);
    return 2;
  }
  if (sets.length === 0 && !suite && !['dev', 'calibrate'].includes(target)) {
    process.stderr.write(`unknown eval target "${target}"\n${USAGE}\n`);
    return 2;
  }
  const topK = positive(values['top-k'], 'top-k');
  const sample = positive(values.sample, 'sample');
  const file: SuiteFile = suite === undefined ? { cases: [] } : loadSuiteFile(suite);
  const cache = new EmbeddingStore(openDb(process.env.TOOL_CURATOR_EVAL_CACHE ?? '.tool-curator/eval.db'));
  const needsEmbedder = target === 'calibrate' || modes.some((m) => m === 'dense' || m === 'hybrid');
  const embedder = needsEmbedder ? await createEmbedder({ provider: 'use' }) : null;
  const out: Record<string, unknown> = {};
  const print = (text: string): boolean => values.json === true || process.stdout.write(`${text}\n\n`);
  try {
    if (target === 'calibrate') {
      const report = await calibrate(memoizeQueries(embedder!, cache), cache);
      out.calibration = report;
      print(formatCalibration(report));
    }
    if (target === 'dev' || target === 'all') {
      const queries = embedder && memoizeQueries(embedder, cache);
      for (const mode of modes) {
        for (const { report, learned } of await runDevSuite(mode, queries, cache, topK, fusion, replay)) {
          const name = learned === undefined ? mode : `${mode} + learned (${learned})`;
          out[`dev:${name}`] = { ...report, cases: undefined };
          print(formatSuiteReport(`dev suite${replay ? ', test half' : ''}, ${name}`, report));
        }
      }
    }
    if (suite !== undefined) {
      const configPath = values.config ?? process.env.TOOL_CURATOR_CONFIG ?? 'gateway.config.yaml';
      const queries = embedder && memoizeQueries(embedder, cache);
      const result: UniversityResult = file.catalog
        ? await runCatalogSuite(file.cases, suite, file.catalog, { modes: suiteModes, embedder: queries, cache, topK, fusion, replay })
        : await runUniversitySuite(file.cases, { configPath, modes: suiteModes, embedder: queries, cache, topK, fusion, replay });
      out.suite = {
        ...result,
        file: suite,
        results: result.results.map(({ mode, ranAs, report, learned }) => ({
          mode, ranAs, ...(learned !== undefined && { learned }), ...report,
          cases: undefined,
          notCorrect: report.cases.filter((c) => c.outcome !== 'correct').map((c) => ({ ...c.case, outcome: c.outcome, shortlist: c.shortlist })),
        })),
      };
      print(formatUniversityReport(suite, result));
    }
    const results: PublicEvalResult[] = [];
    for (const set of sets) {
      results.push(await runPublicEval(set, modes, embedder, { cache, topK, sample, fusion, replay, ...(values.approximate ? { approximate: { from: 0 } } : {}) }));
      out.public = results;
    }
    if (results.length > 0) print(formatPublicTable(results));
    if (values.json) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  } finally {
    await embedder?.close();
  }
}
