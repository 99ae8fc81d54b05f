/**
 * A find_tools answer as tests read it: the text of a result, and the fields of the JSON
 * a find_tools result carries (gateway/metaTools.ts).
 */
import type { CallToolResult } from '@modelcontextprotocol/client';

/** The text blocks of a result, joined (other blocks left out). */
export const resultText = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/** The find_tools fields these tests read. */
export interface Found {
  tools: { name: string }[];
  unavailable?: { upstream: string; why: string }[];
  hint?: string;
}
