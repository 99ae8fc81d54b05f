/**
 * Builds the catalog from the upstreams' tool lists: ToolRecords in a stable order
 * (server, then name), collisions exposed as `<server>__<tool>`, action flags set.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolRecord } from './types.js';

/** Separator of collision-qualified names; double underscore survives hosts' name rules (`^[a-zA-Z0-9_-]{1,64}$`). */
export const SERVER_SEPARATOR = '__';

export function isActionTool(tool: Tool, extraActions: ReadonlySet<string> = new Set()): boolean {
  const a = tool.annotations;
  return extraActions.has(tool.name) || a?.readOnlyHint === false || a?.destructiveHint === true;
}

/**
 * @param byServer tools per upstream as listed.
 * @param extraActions exposed or upstream names to treat as actions (config `confirmation.actions`).
 */
export function buildCatalog(byServer: Map<string, Tool[]>, extraActions: Iterable<string> = []): ToolRecord[] {
  const actions = new Set(extraActions);
  const holders = new Map<string, number>();
  for (const tools of byServer.values()) {
    for (const name of new Set(tools.map((t) => t.name))) holders.set(name, (holders.get(name) ?? 0) + 1);
  }
  const records: ToolRecord[] = [];
  for (const [server, tools] of byServer) {
    for (const t of tools) {
      const name = (holders.get(t.name) ?? 0) > 1 ? `${server}${SERVER_SEPARATOR}${t.name}` : t.name;
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
