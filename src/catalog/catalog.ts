/**
 * Builds the catalog from the upstreams' tool lists: ToolRecords in a stable order
 * (server, then name), exposed names assigned by names.ts, operator overrides applied
 * (overrides.ts), action flags set.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { assignNames, toolKey } from './names.js';
import { overrideKey, overriddenTool, type ToolOverrides } from './overrides.js';
import type { ToolRecord } from './types.js';

export { SERVER_SEPARATOR } from './names.js';

export function isActionTool(tool: Tool, extraActions: ReadonlySet<string> = new Set()): boolean {
  const a = tool.annotations;
  return extraActions.has(tool.name) || a?.readOnlyHint === false || a?.destructiveHint === true;
}

/** What an upstream said about itself at initialize (MCP `serverInfo` and `instructions`). */
export interface ServerInfo {
  /** `serverInfo.title`, else `serverInfo.name`. */
  title?: string;
  instructions?: string;
}

export interface CatalogOptions {
  /** Exposed or upstream names to treat as actions (config `confirmation.actions`). */
  extraActions?: Iterable<string>;
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
 * @param extraActions exposed or upstream names to treat as actions (config `confirmation.actions`).
 * @param names exposed name per toolKey (names.ts assignNames, with the store's memory);
 *   default: assigned afresh, as on a first start.
 */
export function buildCatalog(byServer: Map<string, Tool[]>, extraActions: Iterable<string> = [], names?: Map<string, string>): ToolRecord[] {
  return buildCatalogWith(byServer, { extraActions, ...(names && { names }) }).catalog;
}

/**
 * buildCatalog with operator overrides and server information. An override's `name`
 * that another tool's exposed name or any upstream's literal tool name already holds is
 * refused (the tool keeps its assigned name, reported in `refused`), as is a second
 * override claiming the same name; a `hidden` tool is left out.
 */
export function buildCatalogWith(byServer: Map<string, Tool[]>, options: CatalogOptions = {}): BuiltCatalog {
  const names = options.names ?? assignNames(byServer).names;
  const actions = new Set(options.extraActions ?? []);
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
      const flagged = isActionTool(shown, actions) || actions.has(name);
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
        isAction: o?.kind === undefined ? flagged : o.kind === 'action',
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
