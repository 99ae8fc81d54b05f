/**
 * Builds the catalog from the upstreams' tool lists: ToolRecords in a stable order
 * (server, then name), exposed names assigned by names.ts, action flags set.
 */
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { assignNames, toolKey } from './names.js';
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

/**
 * @param byServer tools per upstream as listed, in config order.
 * @param isAction which tools are actions; default: their annotations with MCP's defaults.
 * @param names exposed name per toolKey (names.ts assignNames, with the store's memory);
 *   default: assigned afresh, as on a first start.
 */
export function buildCatalog(byServer: Map<string, Tool[]>, isAction: ActionClassifier = byAnnotations, names: Map<string, string> = assignNames(byServer).names): ToolRecord[] {
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
        isAction: isAction(server, t, name),
      });
    }
  }
  return records.sort((a, b) => (a.server === b.server ? a.name.localeCompare(b.name) : a.server.localeCompare(b.server)));
}
