/**
 * A suite over a catalog written as a file instead of started upstreams: a development
 * suite with a top-level `catalog:` (eval/dev-robust.yaml → eval/workbench-catalog.yaml)
 * runs here, every case's persona allowed every tool. The catalog file lists servers with
 * their title and instructions (what MCP's initialize gives) and their tools; it lets the
 * suite show what no started upstream of the example has: bare descriptions, servers known
 * by their instructions, tools described in Chinese, Japanese or Korean.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { load as loadYaml } from 'js-yaml';
import { z } from 'zod';
import type { ToolRecord } from '../catalog/types.js';
import { ConfigError } from '../config/load.js';
import { createCurator } from '../curator/index.js';
import type { CuratorMode, Fusion, Mechanism } from '../curator/types.js';
import type { Embedder } from '../embedding/types.js';
import type { EmbeddingStore } from '../store/embeddings.js';
import type { SuiteCase } from './suite.js';
import { scoreWithReplay, type UniversityModeResult, type UniversityResult } from './university.js';

const toolSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string(),
  /** Parameter name → its description ('' for none). */
  params: z.record(z.string(), z.string()).default({}),
  action: z.boolean().default(false),
});
const catalogSchema = z.strictObject({
  servers: z.record(
    z.string().regex(/^[A-Za-z0-9_-]+$/, 'server names use letters, digits, _ and -'),
    z.strictObject({ title: z.string().optional(), instructions: z.string().optional(), tools: z.array(toolSchema).min(1) }),
  ),
});

/**
 * Reads a catalog file into ToolRecords (exposed name = the tool's name; names must be
 * unique), parameters as string properties.
 * @throws ConfigError naming the file, the key path and what was expected.
 */
export function loadCatalogFile(path: string): ToolRecord[] {
  let data: unknown;
  try {
    data = loadYaml(readFileSync(path, 'utf8'), { filename: path });
  } catch (err) {
    throw new ConfigError(path, '', (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'catalog file not found' : `malformed YAML: ${(err as Error).message}`);
  }
  const parsed = catalogSchema.safeParse(data ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(path, issue.path.map(String).join('.') || '(top level)', issue.message);
  }
  const tools: ToolRecord[] = [];
  const seen = new Set<string>();
  for (const [server, s] of Object.entries(parsed.data.servers)) {
    for (const t of s.tools) {
      if (seen.has(t.name)) throw new ConfigError(path, `servers.${server}.tools`, `tool name "${t.name}" is used twice; names must be unique in a catalog file`);
      seen.add(t.name);
      const properties = Object.fromEntries(Object.entries(t.params).map(([p, d]) => [p, { type: 'string', ...(d && { description: d }) }]));
      tools.push({
        server, upstreamName: t.name, name: t.name, description: t.description,
        inputSchema: { type: 'object', properties }, isAction: t.action,
        ...(s.title && { serverTitle: s.title }),
        ...(s.instructions && { serverInstructions: s.instructions }),
      });
    }
  }
  return tools;
}

export interface CatalogSuiteOptions {
  modes: readonly CuratorMode[];
  embedder: Embedder | null;
  cache?: EmbeddingStore;
  /** Default 17, the config default (a confident list holds 12). */
  topK?: number;
  fusion?: Fusion;
  /** Learning from use by replay (university.ts scoreWithReplay). Default false. */
  replay?: boolean;
  /** Mechanisms switched off (CuratorOptions.off). Default none. */
  off?: readonly Mechanism[];
}

/**
 * Runs `cases` over the catalog file `catalogPath` (relative to `suitePath`'s folder),
 * once per mode, in the university suite's result shape (report.ts prints both alike).
 */
export async function runCatalogSuite(cases: readonly SuiteCase[], suitePath: string, catalogPath: string, options: CatalogSuiteOptions): Promise<UniversityResult> {
  const file = resolve(dirname(suitePath), catalogPath);
  const tools = loadCatalogFile(file);
  const known = new Set(tools.map((t) => t.name));
  const unknown = cases.flatMap((c, i) => c.expected.filter((e) => !known.has(e)).map((e) => `cases.${i}: expected tool "${e}" is not in ${catalogPath}`));
  if (unknown.length > 0) throw new Error(`the suite does not fit its catalog:\n  ${unknown.join('\n  ')}`);
  const topK = options.topK ?? 17;
  const fusion = options.fusion ?? 'score';
  const results: UniversityModeResult[] = [];
  for (const mode of options.modes) {
    const curator = createCurator({ mode, fusion, embedder: options.embedder, cache: options.cache, off: options.off });
    await curator.buildIndex(tools);
    results.push(...(await scoreWithReplay(curator, cases, () => tools, { topK }, options.replay === true)).map((r) => ({ mode, ...r })));
  }
  const personas = [...new Set(cases.map((c) => c.persona))];
  return {
    cases: cases.length, tools: tools.length, topK, fusion, pinned: [],
    personas: Object.fromEntries(personas.map((p) => [p, { cases: cases.filter((c) => c.persona === p).length, tools: tools.length }])),
    results,
  };
}
