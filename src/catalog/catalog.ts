/**
 * Builds the catalog from the upstreams' tool lists: ToolRecords in a stable order
 * (server, then name), exposed names assigned by names.ts, action flags set.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { assignNames, toolKey } from './names.js';
import type { ToolRecord } from './types.js';

export { SERVER_SEPARATOR } from './names.js';

export function isActionTool(tool: Tool, extraActions: ReadonlySet<string> = new Set()): boolean {
  const a = tool.annotations;
  return extraActions.has(tool.name) || a?.readOnlyHint === false || a?.destructiveHint === true;
}

/**
 * @param byServer tools per upstream as listed, in config order.
 * @param extraActions exposed or upstream names to treat as actions (config `confirmation.actions`).
 * @param names exposed name per toolKey (names.ts assignNames, with the store's memory);
 *   default: assigned afresh, as on a first start.
 */
export function buildCatalog(byServer: Map<string, Tool[]>, extraActions: Iterable<string> = [], names: Map<string, string> = assignNames(byServer).names): ToolRecord[] {
  const actions = new Set(extraActions);
  const records: ToolRecord[] = [];
  for (const [server, tools] of byServer) {
    const seen = new Set<string>();
    for (const t of tools) {
      // An upstream listing one name twice: the first definition wins, as a call by name could reach only one.
      if (seen.has(t.name)) continue;
      seen.add(t.name);
      const name = names.get(toolKey(server, t.name));
      if (name === undefined) throw new Error(`buildCatalog: no exposed name for ${server}.${t.name}; pass the names assignNames gave for these tools`);
      records.push({
        server,
        upstreamName: t.name,
        name,
        title: t.title ?? t.annotations?.title,
        description: t.description ?? '',
        inputSchema: t.inputSchema,
        outputSchema: t.outputSchema,
        annotations: t.annotations,
        ...(t.icons && { icons: t.icons }),
        ...(t.execution && { execution: t.execution }),
        ...(t._meta && { _meta: t._meta }),
        isAction: isActionTool(t, actions) || actions.has(name),
      });
    }
  }
  return records.sort((a, b) => (a.server === b.server ? a.name.localeCompare(b.name) : a.server.localeCompare(b.server)));
}
