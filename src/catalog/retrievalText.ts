/**
 * The retrieval text of a tool: the one string both retrievers (BM25 and the dense
 * embedder) index. Tool names are identifiers (`get_fee_dues`, `playwright::iframeClick`,
 * `/v1/nutrition`), so they are split into the words a person would type.
 */
import type { ToolRecord } from './types.js';

/** Parameter descriptions longer than this (characters) are left out: long ones are
 * usually format specs and examples that drown the tool's purpose in the embedding. */
const SHORT_PARAM_DESCRIPTION = 80;

/**
 * Splits an identifier into lowercase words on `_`, `-`, `.`, `/`, `::`, whitespace and
 * camelCase boundaries (an acronym stays one word: `getHTTPStatus` → get, http, status).
 *
 * ### Usage
 * ```ts
 * splitName('playwright::iframeClick') // ['playwright', 'iframe', 'click']
 * splitName('/v1/nutrition')           // ['v1', 'nutrition']
 * ```
 */
export function splitName(name: string): string[] {
  return name
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .split(/[\s_\-./:]+/u)
    .filter((w) => w.length > 0)
    .map((w) => w.toLowerCase());
}

/** Top-level parameters of a JSON Schema object: name and description. */
function parameters(tool: ToolRecord): { name: string; description: string }[] {
  const props = (tool.inputSchema as { properties?: Record<string, unknown> }).properties;
  if (!props || typeof props !== 'object') return [];
  return Object.entries(props).map(([name, schema]) => {
    const d = (schema as { description?: unknown } | null)?.description;
    return { name, description: typeof d === 'string' ? d.trim() : '' };
  });
}

/**
 * The text a tool is retrieved by: split name, title, description, the synonym string
 * from domain_synonyms.json, then parameter names (split the same way) with their
 * descriptions when shorter than 80 characters.
 *
 * ### Usage
 * ```ts
 * retrievalText(feeDues, 'outstanding balance money owed')
 * // 'get fee dues. Fee dues of a student. outstanding balance money owed. Parameters: student id (The student).'
 * ```
 */
export function retrievalText(tool: ToolRecord, synonyms?: string): string {
  const parts = [splitName(tool.name).join(' ')];
  if (tool.title && tool.title.trim()) parts.push(tool.title.trim());
  if (tool.description.trim()) parts.push(tool.description.trim());
  if (synonyms && synonyms.trim()) parts.push(synonyms.trim());
  const params = parameters(tool).map(({ name, description }) => {
    const words = splitName(name).join(' ');
    return description && description.length < SHORT_PARAM_DESCRIPTION ? `${words} (${description})` : words;
  });
  if (params.length > 0) parts.push(`Parameters: ${params.join(', ')}`);
  return parts.map((p) => p.replace(/[.\s]+$/u, '')).join('. ') + '.';
}
