/**
 * Builds the catalog from the upstreams' tool lists: ToolRecords in a stable order
 * (server, then name), exposed names assigned by names.ts, operator overrides applied
 * (overrides.ts), action flags set.
 */
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/server';
import { assignNames, toolKey } from './names.js';
import { overrideKey, overriddenTool, type ToolOverrides } from './overrides.js';
import type { ToolRecord } from './types.js';

export { SERVER_SEPARATOR } from './names.js';

/**
 * Whether a tool changes state, for a catalog: `(server, tool, exposed name) => boolean`.
 * The gateway passes the operator's rules (policy/actions.ts ActionRules).
 */
export type ActionClassifier = (server: string, tool: Tool, exposed: string) => boolean;

/**
 * Whether annotations, read with MCP's defaults (`readOnlyHint: false`, `destructiveHint:
 * true`), say a tool changes state: only a tool annotated read-only, and not also
 * destructive, does not; a tool without annotations does.
 */
export function annotatedAction(a: ToolAnnotations | undefined): boolean {
  return a?.readOnlyHint !== true || a.destructiveHint === true;
}

/** The annotations alone decide. */
export const byAnnotations: ActionClassifier = (_server, tool) => annotatedAction(tool.annotations);

/** What an upstream said about itself at initialize (MCP `serverInfo` and `instructions`). */
export interface ServerInfo {
  /** `serverInfo.title`, else `serverInfo.name`. */
  title?: string;
  instructions?: string;
}

export interface CatalogOptions {
  /** Which tools are actions; default: their annotations with MCP's defaults (byAnnotations). An override's `kind` wins. */
  isAction?: ActionClassifier;
  /** Exposed name per toolKey (names.ts assignNames, with the store's memory); default: assigned afresh, as on a first start. */
  names?: Map<string, string>;
  /** Operator overrides (config `overrides:`). */
  overrides?: ToolOverrides;
  /** Per upstream, its title and instructions from initialize (kept on its tools' records). */
  servers?: ReadonlyMap<string, ServerInfo>;
}

export interface BuiltCatalog {
  catalog: ToolRecord[];
  /** Override keys whose `name` was refused (another tool has or is called by it) → the name the tool kept. */
  refused: Map<string, string>;
}

/**
 * @param byServer tools per upstream as listed, in config order.
 * @param isAction which tools are actions; default: their annotations with MCP's defaults.
 * @param names exposed name per toolKey (names.ts assignNames, with the store's memory);
 *   default: assigned afresh, as on a first start.
 */
export function buildCatalog(byServer: Map<string, Tool[]>, isAction: ActionClassifier = byAnnotations, names?: Map<string, string>): ToolRecord[] {
  return buildCatalogWith(byServer, { isAction, ...(names && { names }) }).catalog;
}

/**
 * buildCatalog with operator overrides and server information. An override's `name`
 * that another tool's exposed name or any upstream's literal tool name already holds is
 * refused (the tool keeps its assigned name, reported in `refused`), as is a second
 * override claiming the same name; a `hidden` tool is left out.
 */
export function buildCatalogWith(byServer: Map<string, Tool[]>, options: CatalogOptions = {}): BuiltCatalog {
  const names = options.names ?? assignNames(byServer).names;
  const isAction = options.isAction ?? byAnnotations;
  const overrides = options.overrides ?? {};
  const records: ToolRecord[] = [];
  const refused = new Map<string, string>();
  // Names a rename may not take: every tool's assigned exposed name and every literal upstream name.
  const taken = new Set<string>(names.values());
  for (const tools of byServer.values()) for (const t of tools) taken.add(t.name);
  for (const [server, tools] of byServer) {
    const seen = new Set<string>();
    const info = options.servers?.get(server);
    for (const t of tools) {
      // An upstream listing one name twice: the first definition wins, as a call by name could reach only one.
      if (seen.has(t.name)) continue;
      seen.add(t.name);
      const assigned = names.get(toolKey(server, t.name));
      if (assigned === undefined) throw new Error(`buildCatalog: no exposed name for ${server}.${t.name}; pass the names assignNames gave for these tools`);
      const key = overrideKey(server, t.name);
      const o = overrides[key];
      if (o?.hidden) continue;
      let name = assigned;
      if (o?.name !== undefined && o.name !== assigned) {
        if (taken.has(o.name)) refused.set(key, assigned);
        else {
          name = o.name;
          taken.add(name);
        }
      }
      const shown = o ? overriddenTool(t, o) : t;
      records.push({
        server,
        upstreamName: t.name,
        name,
        title: shown.title ?? shown.annotations?.title,
        description: shown.description ?? '',
        inputSchema: t.inputSchema,
        outputSchema: t.outputSchema,
        annotations: shown.annotations,
        ...(t.icons && { icons: t.icons }),
        ...(t.execution && { execution: t.execution }),
        ...(t._meta && { _meta: t._meta }),
        isAction: o?.kind === undefined ? isAction(server, shown, name) : o.kind === 'action',
        ...(info?.title !== undefined && info.title !== server && { serverTitle: info.title }),
        ...(info?.instructions && { serverInstructions: info.instructions }),
        ...(o?.examples && o.examples.length > 0 && { examples: o.examples }),
        upstreamDefinition: t,
      });
    }
  }
  const catalog = records.sort((a, b) => (a.server === b.server ? a.name.localeCompare(b.name) : a.server.localeCompare(b.server)));
  return { catalog, refused };
}
