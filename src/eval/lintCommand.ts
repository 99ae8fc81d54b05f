/**
 * `tool-curator lint [--config F] [--set NAME | --catalog FILE] [--persona P] [--mode M] [--top-k N] [--json]`:
 * wiring only (lint.ts checks). Without --set or --catalog it lints the gateway config's
 * catalog (its upstreams started, overrides applied) per persona; --set lints a public
 * data set's catalog, --catalog a catalog file (eval/workbench-catalog.yaml), each as one
 * pool. Query and document embeddings are cached like `eval`'s ($TOOL_CURATOR_EVAL_CACHE).
 */
import { parseArgs } from 'node:util';
import type { ToolRecord } from '../catalog/types.js';
import { loadConfig } from '../config/load.js';
import { createCurator } from '../curator/index.js';
import type { CuratorMode, ExtraContext } from '../curator/types.js';
import { createEmbedder } from '../embedding/index.js';
import type { EmbedderConfig } from '../embedding/index.js';
import { Gateway } from '../gateway/gateway.js';
import { learnedCounts } from '../learning/learning.js';
import { visibleSchema } from '../guards/identity.js';
import { openDb } from '../store/db.js';
import { EmbeddingStore } from '../store/embeddings.js';
import { loadCatalogFile } from './catalogSuite.js';
import { loadPublicSet, PUBLIC_SETS, type PublicSetName } from './data.js';
import { families, lintCatalog, type LintReport } from './lint.js';
import { memoizeQueries } from './public.js';

const USAGE = 'usage: tool-curator lint [--config F] [--set metatool|toollens|api_bank|mcptoolbenchpp|livemcpbench | --catalog FILE] [--persona P] [--mode bm25|dense|hybrid] [--top-k N] [--json]';
const MODES: readonly CuratorMode[] = ['bm25', 'dense', 'hybrid'];

interface Target {
  catalog: ToolRecord[];
  extra: ExtraContext;
  personas: Map<string, ToolRecord[]>;
  topK: number;
  mode: CuratorMode;
  embedder: EmbedderConfig;
  /** The config's learning from use, with the learned pairs its store holds (lint ranks without them). */
  learning?: { enabled: boolean; learnedPairs: number };
  close: () => Promise<void>;
}

async function target(values: Record<string, string | boolean | undefined>): Promise<Target> {
  const own = (catalog: ToolRecord[]): Target => ({ catalog, extra: {}, personas: new Map([['(all)', catalog]]), topK: 15, mode: 'hybrid', embedder: { provider: 'use' }, close: async () => {} });
  if (typeof values.set === 'string') {
    if (!(PUBLIC_SETS as readonly string[]).includes(values.set)) throw new Error(`unknown data set "${values.set}"\n${USAGE}`);
    return own(loadPublicSet(values.set as PublicSetName).tools);
  }
  if (typeof values.catalog === 'string') return own(loadCatalogFile(values.catalog));
  const loaded = loadConfig(typeof values.config === 'string' ? values.config : (process.env.TOOL_CURATOR_CONFIG ?? 'gateway.config.yaml'));
  const gateway = await Gateway.start(loaded, { noEmbedder: true });
  const names = typeof values.persona === 'string' ? [values.persona] : Object.keys(loaded.personas);
  const personas = new Map<string, ToolRecord[]>();
  for (const p of names) {
    if (Object.keys(loaded.personas).length > 0 && !(p in loaded.personas)) throw new Error(`unknown persona "${p}" (personas: ${Object.keys(loaded.personas).join(', ')})`);
    personas.set(p, gateway.allowedFor(p).map((t) => ({ ...t, inputSchema: visibleSchema(t, gateway.policy.persona(p)) })));
  }
  if (personas.size === 0) personas.set('(all)', gateway.catalog);
  const { learning } = loaded.config.curator;
  let learnedPairs = 0;
  try {
    learnedPairs = (await learnedCounts(gateway.store.learned, learning.min_users)).learned;
  } catch (err) {
    gateway.storeFailed('learned pairs', err);
  }
  return {
    learning: { enabled: learning.enabled, learnedPairs },
    catalog: gateway.catalog, extra: gateway.extraContext, personas, topK: loaded.config.curator.top_k,
    mode: loaded.config.curator.mode === 'none' ? 'hybrid' : loaded.config.curator.mode,
    embedder: loaded.config.curator.embedder, close: () => gateway.close(),
  };
}

/** The report as text: the tool issues, then per persona its cost, its confusable families and pairs. */
export function formatLint(r: LintReport): string {
  const lines = [`${r.tools} tools, ${r.issues.length} tool issues`, '', '| tool | server | issue | detail |', '|---|---|---|---|'];
  for (const i of r.issues) lines.push(`| ${i.tool} | ${i.server} | ${i.kind} | ${i.detail.replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`);
  lines.push('', `${r.families.length} look-alike families (names sharing a word); each member with the words only it has`);
  for (const f of r.families) lines.push(`  ${f.word}: ${f.members.map((m) => `${m.tool} (${m.separatedBy.join(', ') || 'nothing'})`).join('; ')}`);
  for (const p of r.personas) {
    const saved = p.fullTokens > 0 ? (100 * (1 - p.curatedTokens / p.fullTokens)).toFixed(1) : '0.0';
    lines.push('', `persona ${p.persona}: ${p.tools} tools; full list ${p.fullTokens} tokens, curated list ${p.curatedTokens} tokens on average (−${saved} %); ${p.confusable.length} confusable pairs`);
    for (const f of families(p.confusable)) lines.push(`  family: ${f.join(', ')}`);
    if (p.confusable.length === 0) continue;
    lines.push('', '| tool | ranked below | rank | asked with | words only the tool has | words only the rival has |', '|---|---|---|---|---|---|');
    for (const c of p.confusable) {
      lines.push(`| ${c.tool} | ${c.rival} | ${c.rank || '-'} | ${c.probe.slice(0, 80).replace(/\|/g, '\\|')} | ${c.separatedBy.tool.join(', ')} | ${c.separatedBy.rival.join(', ')} |`);
    }
  }
  return lines.join('\n');
}

/** Runs the lint command; returns the exit code (0 ok, 2 usage error). */
export async function lintCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { config: { type: 'string' }, set: { type: 'string' }, catalog: { type: 'string' }, persona: { type: 'string' }, mode: { type: 'string' }, 'top-k': { type: 'string' }, json: { type: 'boolean' } },
  });
  if ((values.mode !== undefined && !MODES.includes(values.mode as CuratorMode)) || (values.set !== undefined && values.catalog !== undefined)) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const t = await target(values);
  const mode = (values.mode as CuratorMode | undefined) ?? t.mode;
  const topK = values['top-k'] === undefined ? t.topK : Number(values['top-k']);
  if (!Number.isInteger(topK) || topK < 1) {
    await t.close();
    process.stderr.write(`--top-k needs a positive integer\n${USAGE}\n`);
    return 2;
  }
  const cache = new EmbeddingStore(openDb(process.env.TOOL_CURATOR_EVAL_CACHE ?? '.tool-curator/eval.db'));
  const made = mode === 'bm25' ? null : await createEmbedder(t.embedder);
  const embedder = made && memoizeQueries(made, cache);
  try {
    const curator = createCurator({ mode, embedder, cache });
    await curator.buildIndex(t.catalog, t.extra);
    const report = await lintCatalog({ curator, catalog: t.catalog, extra: t.extra, personas: t.personas, topK });
    const learned = t.learning && (t.learning.enabled || t.learning.learnedPairs > 0)
      ? `\nlearning from use is ${t.learning.enabled ? 'on' : 'off'}: ${t.learning.learnedPairs} learned pair(s) in the store, which lint does not rank with (each helps its own persona only; tool-curator learned list)\n`
      : '';
    process.stdout.write(values.json ? `${JSON.stringify({ ...report, ...(t.learning && { learning: t.learning }) }, null, 2)}\n` : `${formatLint(report)}\n${learned}`);
    return 0;
  } finally {
    await embedder?.close();
    await t.close();
  }
}
