/**
 * A tool's definition as its upstream gives it, and its digest: what pinned definitions
 * compare and what an approval's statement names. It is the upstream's own definition
 * (ToolRecord.upstreamDefinition), so an operator's override changes nothing here: only
 * the upstream can change a definition, and only the upstream's changes are held back.
 */
import type { Tool } from '@modelcontextprotocol/server';
import type { ToolRecord } from '../catalog/types.js';
import { canonicalJson, sha256 } from './canonical.js';

/** The parts of a definition that tell a model (and a person) what a tool does and takes. */
export type PinnedDefinition = Pick<Tool, 'name' | 'title' | 'description' | 'inputSchema' | 'outputSchema' | 'annotations'>;

/** The pinned parts of a definition as an upstream listed it. */
export function pickDefinition(t: Tool): PinnedDefinition {
  const def: PinnedDefinition = { name: t.name, inputSchema: t.inputSchema };
  if (t.title !== undefined) def.title = t.title;
  if (t.description !== undefined) def.description = t.description;
  if (t.outputSchema !== undefined) def.outputSchema = t.outputSchema;
  if (t.annotations !== undefined) def.annotations = t.annotations;
  return def;
}

/** The upstream's definition of `tool`; for a record that did not come from an upstream, its own fields. */
const definitionOf = (tool: ToolRecord): PinnedDefinition => pickDefinition(tool.upstreamDefinition ?? { ...tool, name: tool.upstreamName });

/** The canonical text of a definition (what the store keeps) and its digest. */
export function pinOf(def: PinnedDefinition): { text: string; digest: string } {
  const text = canonicalJson(def);
  return { text, digest: sha256(text) };
}

/** The digest of `tool`'s upstream definition. */
export const definitionDigest = (tool: ToolRecord): string => pinOf(definitionOf(tool)).digest;
