/**
 * Operator overrides (gateway.config.yaml `overrides:`): the operator knows which tool
 * texts are bad. Per upstream tool (`<server>.<tool>`) an override replaces or extends the
 * description, adds example requests, renames the exposed name, hides the tool, and sets
 * annotations and whether it is an action. The catalog record carries the result (what
 * the host sees and the curator indexes) and, untouched, the upstream's own definition
 * (`upstreamDefinition`), which is what a pinned-definition check compares.
 */
import type { Tool } from '@modelcontextprotocol/server';
import type { ToolOverride } from '../config/schema.js';

export type { ToolOverride } from '../config/schema.js';

/** Overrides by `<server>.<tool>` (upstream name). */
export type ToolOverrides = Readonly<Record<string, ToolOverride>>;

/** The key of a tool in `overrides:`: upstream server, a dot, the tool's upstream name. */
export const overrideKey = (server: string, upstreamName: string): string => `${server}.${upstreamName}`;

/**
 * The definition a host sees: the upstream's with the override's description (replaced,
 * then extended by `append_description` as a paragraph of its own), title and annotation
 * hints (merged over the upstream's). Name, visibility and action kind are the catalog's
 * (catalog.ts); examples never reach the host.
 *
 * ### Usage
 * ```ts
 * overriddenTool({ name: 'get_fee_dues', description: 'Dues.', inputSchema }, { description: 'Fees a student still owes, with due dates.', hidden: false })
 * // { name: 'get_fee_dues', description: 'Fees a student still owes, with due dates.', inputSchema }
 * ```
 */
export function overriddenTool(tool: Tool, o: ToolOverride): Tool {
  const out: Tool = { ...tool };
  const base = o.description ?? tool.description ?? '';
  if (o.description !== undefined || o.append_description !== undefined) {
    out.description = o.append_description ? (base ? `${base}\n\n${o.append_description}` : o.append_description) : base;
  }
  if (o.title !== undefined) out.title = o.title;
  if (o.annotations) out.annotations = { ...tool.annotations, ...o.annotations };
  return out;
}

/**
 * What cannot be applied, one sentence per problem naming its `overrides.<key>`: a key
 * whose tool none of `connected` lists (a typo, or a tool the upstream dropped), and a
 * rename the catalog refused because another tool has, or is called by, that name
 * (`refused`: key → the name it kept, from catalog.ts).
 */
export function overrideIssues(overrides: ToolOverrides, byServer: ReadonlyMap<string, readonly Tool[]>, connected: ReadonlySet<string>, refused: ReadonlyMap<string, string>): string[] {
  const issues: string[] = [];
  for (const key of Object.keys(overrides)) {
    const dot = key.indexOf('.');
    const server = key.slice(0, dot);
    if (!connected.has(server)) continue;
    if (!(byServer.get(server) ?? []).some((t) => t.name === key.slice(dot + 1))) issues.push(`overrides.${key}: upstream "${server}" lists no tool "${key.slice(dot + 1)}"; the override does nothing`);
  }
  for (const [key, kept] of refused) {
    issues.push(`overrides.${key}.name: "${overrides[key]!.name}" is another tool's name (or an upstream's literal name); the tool keeps "${kept}"`);
  }
  return issues;
}
