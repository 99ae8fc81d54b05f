/**
 * Loader for the public tool-retrieval data sets in shared/eval-data/<set>/ (see its
 * README): tools.jsonl becomes ToolRecords (server = the data set's name), queries.jsonl
 * becomes cases whose gold is a list of tool names.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolRecord } from '../catalog/types.js';

export const PUBLIC_SETS = ['metatool', 'toollens', 'api_bank', 'mcptoolbenchpp', 'livemcpbench'] as const;
export type PublicSetName = (typeof PUBLIC_SETS)[number];

/** Single-tool metatool queries sampled, every k-th in file order, as BASELINES.md did. */
export const METATOOL_SINGLE_SAMPLE = 2000;

export interface PublicCase {
  id: string;
  query: string;
  /** Exposed names of the tools that answer the query. */
  gold: string[];
}

export interface PublicSet {
  name: PublicSetName;
  tools: ToolRecord[];
  cases: PublicCase[];
}

/**
 * The data folder: $EVAL_DATA_DIR if set, else `../shared/eval-data` from the repository
 * root (the folder holding package.json above this module, in src/ or dist/src/).
 */
export function evalDataDir(): string {
  if (process.env.EVAL_DATA_DIR) return resolve(process.env.EVAL_DATA_DIR);
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return resolve(dir, '..', 'shared', 'eval-data');
}

function readJsonl(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) throw new Error(`${path} not found: set EVAL_DATA_DIR to the folder holding the public data sets.`);
  return readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, unknown>);
}

interface ToollensParam {
  name: string;
  type?: string;
  description?: string;
}

/**
 * A JSON Schema for the tool: `input_schema` as shipped (mcptoolbenchpp), API-Bank's
 * `input_parameters` map, or ToolLens's `required_params` / `optional_params` lists parsed
 * out of its `full_text`; `{type: 'object'}` when the source has none.
 */
function inputSchema(row: Record<string, unknown>): ToolRecord['inputSchema'] {
  if (row.input_schema && typeof row.input_schema === 'object') return row.input_schema as ToolRecord['inputSchema'];
  if (row.input_parameters && typeof row.input_parameters === 'object') {
    const props = Object.fromEntries(
      Object.entries(row.input_parameters as Record<string, { type?: string; description?: string }>).map(([name, p]) => [
        name, { type: p.type === 'str' ? 'string' : (p.type ?? 'string'), description: p.description ?? '' },
      ]),
    );
    return { type: 'object', properties: props };
  }
  if (typeof row.full_text === 'string') {
    const params = (key: string): ToollensParam[] => {
      const m = new RegExp(`${key}: (\\[.*?\\])(?:, \\w+_params:|, return_schema:|$)`, 's').exec(row.full_text as string);
      try {
        return m ? (JSON.parse(m[1]!) as ToollensParam[]) : [];
      } catch {
        return [];
      }
    };
    const required = params('required_params');
    const all = [...required, ...params('optional_params')];
    if (all.length > 0) {
      const props = Object.fromEntries(all.map((p) => [p.name, { type: (p.type ?? 'string').toLowerCase(), description: p.description ?? '' }]));
      return { type: 'object', properties: props, required: required.map((p) => p.name) };
    }
  }
  return { type: 'object' };
}

/** Every k-th element (k = ⌊n / count⌋), the first `count` of them: a fixed, spread sample. */
export function everyKth<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  const k = Math.floor(items.length / count);
  return items.filter((_, i) => i % k === 0).slice(0, count);
}

/**
 * Loads a data set. toollens: the test split only; metatool: all multi-tool queries plus
 * every k-th of the single-tool ones (2,000), the selection of BASELINES.md.
 */
export function loadPublicSet(name: PublicSetName, dir = evalDataDir()): PublicSet {
  const rows = readJsonl(join(dir, name, 'tools.jsonl'));
  const nameOf = new Map<string, string>();
  const tools: ToolRecord[] = rows.map((r) => {
    nameOf.set(String(r.tool_id), String(r.name));
    return {
      server: typeof r.server === 'string' ? r.server : name, upstreamName: String(r.name), name: String(r.name),
      ...(typeof r.server_title === 'string' && { serverTitle: r.server_title }),
      description: typeof r.description === 'string' ? r.description : '',
      inputSchema: inputSchema(r), isAction: false,
    };
  });
  let queries = readJsonl(join(dir, name, 'queries.jsonl'));
  if (name === 'toollens') queries = queries.filter((q) => q.split === 'test');
  if (name === 'metatool') {
    queries = [...queries.filter((q) => q.subset === 'multi'), ...everyKth(queries.filter((q) => q.subset === 'single'), METATOOL_SINGLE_SAMPLE)];
  }
  const cases = queries.map((q) => ({
    id: String(q.query_id),
    query: String(q.query),
    gold: (q.gold_tool_ids as unknown[]).map((g) => nameOf.get(String(g)) ?? String(g)),
  }));
  return { name, tools, cases };
}
