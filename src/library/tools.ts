/**
 * Tools from any source as the curator's ToolRecords. MCP tool lists go through the
 * gateway's own catalog builder (same names, collisions and action flags as the gateway);
 * function specs of other ecosystems (OpenAI, AI SDK, LangChain, Agents SDK) through
 * `toolRecord`, which the framework adapters use.
 */
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/server';
import { buildCatalog } from '../catalog/catalog.js';
import { ActionRules } from '../policy/actions.js';
import type { ToolRecord } from '../catalog/types.js';

/** Server name given to tools that come from an application rather than an MCP server. */
export const APP_SERVER = 'app';

/** What every source can say about a tool. */
export interface ToolSpec {
  name: string;
  description?: string;
  /** JSON Schema of the arguments; `{ type: 'object' }` when absent. */
  inputSchema?: Record<string, unknown>;
  title?: string;
  annotations?: ToolAnnotations;
  /** Changes state (needs confirmation in the gateway). Default: from `annotations`, else false. */
  isAction?: boolean;
  /** Where the tool lives; default `app`. */
  server?: string;
}

/**
 * One ToolRecord from a plain spec.
 *
 * ### Usage
 * ```ts
 * const record = toolRecord({ name: 'get_weather', description: 'Current weather for a city', inputSchema });
 * ```
 */
export function toolRecord(spec: ToolSpec): ToolRecord {
  if (!spec.name) throw new Error('a tool needs a name');
  const a = spec.annotations;
  return {
    server: spec.server ?? APP_SERVER,
    upstreamName: spec.name,
    name: spec.name,
    title: spec.title ?? a?.title,
    description: spec.description ?? '',
    inputSchema: (spec.inputSchema ?? { type: 'object' }) as Tool['inputSchema'],
    annotations: a,
    isAction: spec.isAction ?? (a?.readOnlyHint === false || a?.destructiveHint === true),
  };
}

/**
 * MCP `Tool` objects (from `client.listTools()`) as ToolRecords, exactly as the gateway
 * builds its catalog: a later server's tool named like an earlier one's becomes
 * `<server>__<tool>`; actions are the tools matching `actions` (patterns as in
 * personas.yaml) and every tool not annotated `readOnlyHint: true` (MCP's defaults).
 *
 * ### Usage
 * ```ts
 * const records = fromMcpTools({ github: (await github.listTools()).tools, files: (await files.listTools()).tools });
 * ```
 */
export function fromMcpTools(byServer: Record<string, Tool[]> | Map<string, Tool[]>, actions: Iterable<string> = []): ToolRecord[] {
  return buildCatalog(byServer instanceof Map ? byServer : new Map(Object.entries(byServer)), new ActionRules({ actions: [...actions], read_only: [] }).classify);
}

/** An OpenAI-style function spec: Chat Completions' `{ type: 'function', function }` or Responses' flat form. */
export type FunctionSpec =
  | { type?: 'function'; function: { name: string; description?: string; parameters?: Record<string, unknown> } }
  | { type?: 'function'; name: string; description?: string; parameters?: Record<string, unknown> };

/**
 * OpenAI-style function specs (Chat Completions `tools` or Responses `tools` of type
 * function) as ToolRecords of server `app` (or `server`).
 */
export function fromFunctionSpecs(specs: readonly FunctionSpec[], server: string = APP_SERVER): ToolRecord[] {
  return specs.map((s) => {
    const f = 'function' in s ? s.function : s;
    return toolRecord({ name: f.name, description: f.description, inputSchema: f.parameters, server });
  });
}

/** Throws when two tools of one list share a name: a curated set keyed by name would lose one. */
export function assertUniqueNames(records: readonly ToolRecord[]): void {
  const seen = new Set<string>();
  for (const r of records) {
    if (seen.has(r.name)) throw new Error(`two tools are named "${r.name}"; give them distinct names (or use fromMcpTools, which prefixes by server)`);
    seen.add(r.name);
  }
}
