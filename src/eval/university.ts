/**
 * The university suite (eval/university.yaml): loads and validates its cases, takes the
 * catalog, the persona policy and the extra context (synonyms, exemplars, dependencies)
 * from a gateway config (its upstreams started, or the catalog snapshot the gateway wrote),
 * seeds the embeddings cache from its `curator.vectors`, and runs the cases through one curator
 * per mode. Scoring is runSuite's (suite.ts); prompt tokens are counted on the tool
 * definitions as the persona's host receives them (identity fields removed).
 */
import { readFileSync } from 'node:fs';
import { load as loadYaml } from 'js-yaml';
import { z } from 'zod';
import type { ToolRecord } from '../catalog/types.js';
import { ConfigError, loadConfig } from '../config/load.js';
import { createCurator } from '../curator/index.js';
import type { CuratorMode, Fusion, Mechanism, ToolCurator } from '../curator/types.js';
import type { Embedder } from '../embedding/types.js';
import { readSnapshot, snapshotAge } from '../gateway/catalogSnapshot.js';
import { extraContext } from '../gateway/curatorSetup.js';
import { Gateway } from '../gateway/gateway.js';
import { seedVectors } from '../gateway/vectors.js';
import { visibleSchema } from '../guards/identity.js';
import { Policy } from '../policy/policy.js';
import type { EmbeddingCache } from '../store/types.js';
import { everyKth } from './data.js';
import { learnable, replayScope, replaySplit, replayTraffic } from './replay.js';
import { runSuite, type SuiteCase, type SuiteOptions, type SuiteReport } from './suite.js';

/** The suite's path when none is given (`eval all`), relative to the working directory. */
export const UNIVERSITY_SUITE = 'eval/university.yaml';

/** The seven categories of issue 4, in report order (meanings: the suite file's header). */
export const CATEGORIES = ['direct', 'paraphrase', 'terminology', 'action', 'dependency', 'multi_intent', 'vague'] as const;

const caseSchema = z.strictObject({
  query: z.string().trim().min(1, 'needs a non-blank query'),
  persona: z.string().min(1),
  expected: z.array(z.string().min(1)).min(1, 'needs 1 to 4 expected tools').max(4, 'needs 1 to 4 expected tools'),
  category: z.enum(CATEGORIES),
});
const suiteSchema = z.strictObject({ cases: z.array(caseSchema).min(1, 'needs at least one case') });

/**
 * A development suite (eval/dev-generalization.yaml) names its own categories, and may
 * expect no tool at all: `expected: []` is a query nothing answers, Correct when the
 * curator says so (runSuite).
 */
const devCaseSchema = (categories: [string, ...string[]]) =>
  caseSchema.extend({ expected: z.array(z.string().min(1)).max(4, 'needs 0 to 4 expected tools'), category: z.enum(categories) });
const devSuiteSchema = z.strictObject({ categories: z.array(z.string().min(1)).min(1, 'needs at least one category'), catalog: z.string().min(1).optional() }).passthrough();

/** A suite file's cases, and the catalog file it runs over when it names one (`catalog:`, relative to the suite). */
export interface SuiteFile {
  cases: SuiteCase[];
  catalog?: string;
}

/**
 * Reads a suite file: `cases:` of {query, persona, expected (1 to 4 tool names), category}.
 * With a top-level `categories:` list the cases' categories are that list's and
 * `expected` may be empty (a development suite), and a `catalog:` file may replace the
 * gateway config's upstreams (catalogSuite.ts).
 * @throws ConfigError naming the file, the case's key path and what was expected.
 */
export function loadSuiteFile(path: string): SuiteFile {
  let data: unknown;
  try {
    data = loadYaml(readFileSync(path, 'utf8'), { filename: path });
  } catch (err) {
    throw new ConfigError(path, '', (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'suite file not found' : `malformed YAML: ${(err as Error).message}`);
  }
  const fail = (error: z.ZodError): never => {
    const issue = error.issues[0]!;
    throw new ConfigError(path, issue.path.map(String).join('.') || '(top level)', issue.message);
  };
  if (data !== null && typeof data === 'object' && 'categories' in data) {
    const header = devSuiteSchema.safeParse(data);
    if (!header.success) return fail(header.error);
    const { categories, catalog, ...rest } = header.data;
    const parsed = z.strictObject({ cases: z.array(devCaseSchema(categories as [string, ...string[]])).min(1, 'needs at least one case') }).safeParse(rest);
    if (!parsed.success) return fail(parsed.error);
    return { cases: parsed.data.cases, ...(typeof catalog === 'string' && { catalog }) };
  }
  const parsed = suiteSchema.safeParse(data ?? {});
  return parsed.success ? { cases: parsed.data.cases } : fail(parsed.error);
}

/** The cases of a suite file (loadSuiteFile). */
export function loadSuite(path: string): SuiteCase[] {
  return loadSuiteFile(path).cases;
}

/**
 * Problems that make a suite meaningless against a catalog: an unknown persona, an
 * expected tool the catalog lacks, or one the case's persona may not use. [] when none.
 */
export function suiteProblems(cases: readonly SuiteCase[], catalog: readonly ToolRecord[], allowedFor: (persona: string) => readonly ToolRecord[], personas: readonly string[]): string[] {
  const known = new Set(catalog.map((t) => t.name));
  const problems: string[] = [];
  cases.forEach((c, i) => {
    if (!personas.includes(c.persona)) {
      problems.push(`cases.${i}: unknown persona "${c.persona}" (personas: ${personas.join(', ')})`);
      return;
    }
    const allowed = new Set(allowedFor(c.persona).map((t) => t.name));
    for (const e of c.expected) {
      if (!known.has(e)) problems.push(`cases.${i}: expected tool "${e}" is not in the catalog`);
      else if (!allowed.has(e)) problems.push(`cases.${i}: expected tool "${e}" is not allowed for ${c.persona}`);
    }
  });
  return problems;
}

/**
 * A fixed, category-stratified slice of about `size` cases: from each category its share
 * of `size` (at least 1), every k-th case in file order (data.ts everyKth).
 */
export function universitySlice(cases: readonly SuiteCase[], size = 60): SuiteCase[] {
  const categories = [...new Set(cases.map((c) => c.category))];
  return categories.flatMap((cat) => {
    const inCat = cases.filter((c) => c.category === cat);
    return everyKth(inCat, Math.max(1, Math.round((size * inCat.length) / cases.length)));
  });
}

export interface UniversityOptions {
  /** gateway.config.yaml whose upstreams, personas, synonyms, exemplars and dependencies are used. */
  configPath: string;
  modes: readonly CuratorMode[];
  /** For dense and hybrid (null: they run as BM25). Wrap with memoizeQueries to embed each query once. */
  embedder: Embedder | null;
  /** Document-embedding cache; without it each mode embeds the catalog again. */
  cache?: EmbeddingCache;
  /** Shortlist size asked of the curator. Default the config's curator.top_k. */
  topK?: number;
  /** Hybrid fusion. Default the config's curator.fusion. */
  fusion?: Fusion;
  /** Learning from use by replay (replay.ts): score the test half, replay the traffic half, score the test half again. Default false. */
  replay?: boolean;
  /** Mechanisms switched off (CuratorOptions.off). Default none. */
  off?: readonly Mechanism[];
  /**
   * Take the catalog from the gateway's catalog snapshot (gateway/catalogSnapshot.ts) when
   * there is one for the config's upstreams, instead of starting them. Default false.
   */
  snapshot?: boolean;
  /** Where a note on the catalog's source goes (a snapshot's age). Default stderr. */
  note?: (line: string) => void;
}

export interface UniversityModeResult {
  mode: CuratorMode;
  /** The mode select() reported for most cases ('bm25' when dense/hybrid had no embedder). */
  ranAs: CuratorMode;
  report: SuiteReport;
  /** Set on the result after a replay: how many learned exemplars the curator ranked with. */
  learned?: number;
  /**
   * Set on the result after a replay: test cases still not Correct whose missing tools the
   * traffic half called in their persona (replay.ts learnable); `correct` + this is the
   * most learning from that traffic could reach.
   */
  learnable?: number;
}

export interface UniversityResult {
  cases: number;
  tools: number;
  topK: number;
  fusion: Fusion;
  pinned: string[];
  /** Per persona in the suite: how many cases it has and how many tools it may use. */
  personas: Record<string, { cases: number; tools: number }>;
  results: UniversityModeResult[];
}

/** The curator, its shortlist mapped onto the persona's view of each tool (the records in `allowed`). */
function asHostSees(curator: ToolCurator, ranAs: Map<CuratorMode, number>): ToolCurator {
  return {
    mode: curator.mode,
    buildIndex: (tools, extra) => curator.buildIndex(tools, extra),
    whenSearchable: () => curator.whenSearchable(),
    learn: (learned) => curator.learn(learned),
    async select(query, allowed, options) {
      const selection = await curator.select(query, allowed, options);
      ranAs.set(selection.mode, (ranAs.get(selection.mode) ?? 0) + 1);
      const view = new Map(allowed.map((t) => [t.name, t]));
      return { ...selection, tools: selection.tools.map((t) => view.get(t.name) ?? t) };
    },
  };
}

/**
 * Scores `cases` (without a replay), or the test half of a replay split before and after
 * replaying its traffic half (replay.ts); `ranAs` counts select()'s modes per scoring.
 */
export async function scoreWithReplay(
  curator: ToolCurator,
  cases: readonly SuiteCase[],
  allowedFor: (persona: string) => ToolRecord[],
  options: SuiteOptions,
  replay: boolean,
  ranAs: Map<CuratorMode, number> = new Map(),
): Promise<Omit<UniversityModeResult, 'mode'>[]> {
  const score = async (list: readonly SuiteCase[], learnedScope?: SuiteOptions['learnedScope']) => {
    ranAs.clear();
    const report = await runSuite(curator, list, allowedFor, { ...options, ...(learnedScope && { learnedScope }) });
    for (const c of report.cases) ranAs.set(c.mode, (ranAs.get(c.mode) ?? 0) + 1);
    return { ranAs: [...ranAs].sort((a, b) => b[1] - a[1])[0]?.[0] ?? curator.mode, report };
  };
  if (!replay) return [await score(cases)];
  const { traffic, test } = replaySplit(cases);
  const before = await score(test);
  const replayed = traffic.map((c) => ({ persona: c.persona, query: c.query, tools: c.expected }));
  const learned = await replayTraffic(curator, replayed, allowedFor);
  const after = await score(test, replayScope);
  return [before, { ...after, learned, learnable: learnable(after.report.cases, replayed) }];
}

/**
 * Takes the config's catalog (its upstreams started, no embedder; or its catalog snapshot
 * with `snapshot`), checks the cases against the catalog and the personas, seeds the
 * cache from the config's `curator.vectors`, and runs the cases once per mode. Closes the
 * upstreams before returning.
 * @throws Error listing every suite problem (suiteProblems), with the catalog's source.
 *
 * ### Usage
 * ```ts
 * const embedder = memoizeQueries(await createEmbedder({ provider: 'use' }), cache);
 * const r = await runUniversitySuite(loadSuite('eval/university.yaml'), { configPath: 'gateway.config.yaml', modes: ['hybrid'], embedder, cache });
 * const { accuracy, tokenReduction } = r.results[0].report; // 0.974, 0.851
 * ```
 */
export async function runUniversitySuite(cases: readonly SuiteCase[], options: UniversityOptions): Promise<UniversityResult> {
  const loaded = loadConfig(options.configPath);
  const snapshot = options.snapshot ? readSnapshot(loaded) : undefined;
  const note = options.note ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (snapshot) note(`catalog: ${snapshot.tools.length} tools from ${snapshot.path}, listed ${snapshotAge(snapshot.writtenAt)}; --refresh lists the upstreams again`);
  const gateway = snapshot ? undefined : await Gateway.start(loaded, { noEmbedder: true });
  try {
    const catalog = snapshot?.tools ?? gateway!.catalog;
    const policy = gateway?.policy ?? new Policy(loaded.personas);
    const personas = Object.keys(loaded.personas);
    const views = new Map<string, ToolRecord[]>();
    const allowedFor = (persona: string): ToolRecord[] => {
      let view = views.get(persona);
      if (!view) {
        const p = policy.persona(persona);
        view = policy.allowed(persona, catalog).map((t) => ({ ...t, inputSchema: visibleSchema(t, p) }));
        views.set(persona, view);
      }
      return view;
    };
    const problems = suiteProblems(cases, catalog, allowedFor, personas);
    if (problems.length > 0) {
      const source = gateway
        ? `upstreams: ${gateway.pool.status().map((s) => `${s.name} ${s.state}${s.error ? ` (${s.error})` : ''}`).join(', ')}`
        : `catalog snapshot ${snapshot!.path}; --refresh lists the upstreams again`;
      throw new Error(`the suite does not fit ${loaded.file} (${source}):\n  ${problems.join('\n  ')}`);
    }
    if (options.cache && options.embedder) await seedVectors(loaded, options.cache, options.embedder.id);
    const topK = options.topK ?? loaded.config.curator.top_k;
    const pinned = loaded.config.exposure.pinned;
    const fusion = options.fusion ?? loaded.config.curator.fusion;
    const results: UniversityModeResult[] = [];
    for (const mode of options.modes) {
      const ranAs = new Map<CuratorMode, number>();
      const curator = asHostSees(createCurator({ mode, fusion, approximate: loaded.config.curator.approximate, embedder: options.embedder, cache: options.cache, off: options.off }), ranAs);
      await curator.buildIndex(catalog, extraContext(loaded));
      results.push(...(await scoreWithReplay(curator, cases, allowedFor, { topK, pinned }, options.replay === true, ranAs)).map((r) => ({ mode, ...r })));
    }
    const inSuite = [...new Set(cases.map((c) => c.persona))];
    return {
      cases: cases.length,
      tools: catalog.length,
      topK,
      fusion,
      pinned,
      personas: Object.fromEntries(inSuite.map((p) => [p, { cases: cases.filter((c) => c.persona === p).length, tools: allowedFor(p).length }])),
      results,
    };
  } finally {
    await gateway?.close();
  }
}
