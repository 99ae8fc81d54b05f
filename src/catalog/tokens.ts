/**
 * Prompt cost of tool definitions: how many tokens a list of tools costs the host's model
 * on every call, counted on the JSON the host receives from `tools/list`.
 */
import { createRequire } from 'node:module';
import type { Tiktoken } from 'js-tiktoken';
import type { ToolRecord } from './types.js';

let encoder: Tiktoken | undefined;
// js-tiktoken's ranks take about half a second to load: required on first count, not at
// import, so `import 'tool-curator'` stays cheap.
const require = createRequire(import.meta.url);

/** The tool as it appears in a `tools/list` result (MCP `Tool` fields the gateway sends). */
function definition(tool: ToolRecord): Record<string, unknown> {
  const def: Record<string, unknown> = { name: tool.name };
  if (tool.title) def.title = tool.title;
  def.description = tool.description;
  def.inputSchema = tool.inputSchema;
  if (tool.outputSchema) def.outputSchema = tool.outputSchema;
  if (tool.annotations) def.annotations = tool.annotations;
  return def;
}

/**
 * Tokens of `{"tools":[...]}` for these tools, with the o200k_base encoding (GPT-4o family;
 * hosts' own tokenizers differ by a few percent, which does not change a reduction ratio).
 * 0 for an empty list. The encoder (~1 s to build) is created on first use.
 *
 * ### Usage
 * ```ts
 * const full = toolDefinitionTokens(catalog);
 * const short = toolDefinitionTokens(selection.tools);
 * process.stdout.write(`${(100 * (1 - short / full)).toFixed(1)} % fewer prompt tokens\n`);
 * ```
 */
export function toolDefinitionTokens(tools: readonly ToolRecord[]): number {
  if (tools.length === 0) return 0;
  encoder ??= (require('js-tiktoken') as typeof import('js-tiktoken')).getEncoding('o200k_base');
  return encoder.encode(JSON.stringify({ tools: tools.map(definition) })).length;
}
