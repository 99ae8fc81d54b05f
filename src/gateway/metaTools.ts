/**
 * The gateway's own tools: `find_tools` (search the catalog, reveal the matches) and
 * `call_tool` (call any allowed tool by name, for hosts that ignore list_changed), and the
 * instructions that tell a host how to use them in each exposure mode.
 */
import type { Tool } from '@modelcontextprotocol/server';
import type { GatewayConfig } from '../config/schema.js';

export type ExposureMode = GatewayConfig['exposure']['mode'];
import type { ToolRecord } from '../catalog/types.js';
import type { Selection } from '../curator/types.js';

export const FIND_TOOLS = 'find_tools';
export const CALL_TOOL = 'call_tool';
/** Upper bound of find_tools' `limit`: more definitions than this defeat the purpose. */
export const MAX_LIMIT = 50;
/**
 * Longest find_tools query, in characters as its inputSchema's `maxLength` counts them (code
 * points: an emoji is one): a request, not a document (and retrieval cost grows with length).
 * At most 4 UTF-8 bytes each, so a query is at most 8,000 bytes.
 */
export const MAX_QUERY_CHARS = 2000;

/** `s.length` in code points, as JSON Schema counts a string's length (a surrogate pair is one), without copying `s`. */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const high = s.charCodeAt(i);
    if (high < 0xd800 || high > 0xdbff) continue;
    const low = s.charCodeAt(i + 1);
    if (low >= 0xdc00 && low <= 0xdfff) {
      n--;
      i++;
    }
  }
  return n;
}

export const findToolsDefinition: Tool = {
  name: FIND_TOOLS,
  title: 'Find tools',
  description:
    'Search the catalog of available tools by what you want to do, in plain words. Returns the best ' +
    'matching tools in rank order, each with name, description and inputSchema, and adds them to your ' +
    'tool list. If a tool you need is not in your list, search first; call a found tool directly or through call_tool. ' +
    'Write the query in the language of the tool descriptions (translate the user\'s words if needed), naming the action ' +
    'and the object, e.g. "pay a hostel fee"; exact tool names in the query are always returned, first. ' +
    'The result\'s confidence (0 to 1) says how clearly the best tools stand out: below 0.5, search again with other words or a larger limit. ' +
    'When nothing matches well the result says so in "message" and its few tools are not added to your list; ' +
    '"cut" names tools that did not fit the limit.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, maxLength: MAX_QUERY_CHARS, description: 'What you want to do, e.g. "read the contents of a file".' },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_LIMIT,
        description:
          'The most tools to return, including tools the found ones need for their workflow. Default: the gateway top_k. ' +
          'Fewer may come back when the best tools clearly stand out.',
      },
    },
    required: ['query'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
};

/**
 * find_tools as the host sees it in `mode`: in `static` mode its matches are not added to
 * the tool list, so the description sends the model to call_tool instead.
 */
export function findToolsDefinitionFor(mode: ExposureMode): Tool {
  if (mode === 'dynamic') return findToolsDefinition;
  return {
    ...findToolsDefinition,
    description:
      'Search the catalog of available tools by what you want to do, in plain words. Returns the best ' +
      'matching tools in rank order, each with its full definition (name, description, inputSchema). Run a found tool ' +
      'with call_tool, giving its name and arguments that match its inputSchema. ' +
      'Write the query in the language of the tool descriptions, naming the action and the object; exact tool names in the query are always returned, first. ' +
      'The result\'s confidence (0 to 1) says how clearly the best tools stand out: below 0.5, search again with other words or a larger limit. ' +
      'When nothing matches well the result says so in "message"; "cut" names tools that did not fit the limit.',
  };
}

/** The server instructions sent to the host at initialize, per exposure mode. */
export const INSTRUCTIONS: Record<ExposureMode, string> = {
  dynamic:
    'This server is a gateway to many tools. Only a few are listed at first: call find_tools with what ' +
    'you want to do to discover the right ones, then call them directly or through call_tool. ' +
    'Write the find_tools query in the language of the tool descriptions (translate the user\'s request if needed), ' +
    'naming the action and the object ("pay a hostel fee", "renew a library book"); if you know a tool\'s exact name, put it in the query.',
  static:
    'This server is a gateway to many tools. Only a few are listed: call find_tools with what you want ' +
    'to do to find the right ones, then run them through call_tool with the name and arguments find_tools showed. ' +
    'Write the find_tools query in the language of the tool descriptions (translate the user\'s request if needed), ' +
    'naming the action and the object ("pay a hostel fee", "renew a library book"); if you know a tool\'s exact name, put it in the query.',
};

export const callToolDefinition: Tool = {
  name: CALL_TOOL,
  title: 'Call a tool',
  description:
    'Call any tool you are allowed to use by name, with its arguments. Use it for tools that find_tools ' +
    'returned but that are not (yet) in your tool list. The result is the tool\'s own result.',
  inputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, description: 'Tool name, exactly as find_tools returned it.' },
      arguments: { type: 'object', description: 'The tool\'s arguments, matching its inputSchema.', additionalProperties: true },
    },
    required: ['name'],
    additionalProperties: false,
  },
};

export type FindToolsArgs = { query: string; limit?: number };
export type CallToolArgs = { name: string; arguments: Record<string, unknown> };

/** Validates find_tools arguments; returns a message for the host when they are wrong. */
export function parseFindTools(args: Record<string, unknown> | undefined): FindToolsArgs | string {
  const unknown = Object.keys(args ?? {}).filter((k) => k !== 'query' && k !== 'limit');
  if (unknown.length > 0) return `find_tools takes "query" and "limit" only; unknown: ${unknown.map((k) => JSON.stringify(k)).join(', ')}`;
  const query = args?.query;
  if (typeof query !== 'string') return `find_tools needs "query" as a string, got ${query === undefined ? 'nothing' : Array.isArray(query) ? 'an array' : query === null ? 'null' : typeof query}`;
  if (!query.trim()) return 'find_tools needs a non-empty "query": say what you want to do, e.g. "read the contents of a file"';
  // Code points: a UTF-16 count would refuse 1,001 emoji that the advertised maxLength allows.
  const chars = query.length > MAX_QUERY_CHARS ? codePointLength(query) : query.length;
  if (chars > MAX_QUERY_CHARS) return `find_tools "query" is ${chars} characters; at most ${MAX_QUERY_CHARS}: say in a sentence or two what you want to do`;
  const limit = args?.limit;
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)) {
    return `find_tools "limit" must be an integer from 1 to ${MAX_LIMIT}, got ${JSON.stringify(limit)}`;
  }
  return { query, limit };
}

/** Validates call_tool arguments; returns a message for the host when they are wrong. */
export function parseCallTool(args: Record<string, unknown> | undefined): CallToolArgs | string {
  const name = args?.name;
  if (typeof name !== 'string' || !name) return 'call_tool needs "name": the name of the tool to call, as find_tools returned it';
  const inner = args?.arguments ?? {};
  if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) return 'call_tool "arguments" must be an object';
  return { name, arguments: inner as Record<string, unknown> };
}

/** What a find_tools result adds to its tools and confidence. */
export interface FindResultFields {
  /** Set when nothing matched well, or the query is in a script the catalog does not use: a plain sentence for the model. */
  message?: string;
  /** Tools that did not fit the limit, best first. */
  cut?: string[];
  /** How to get the cut tools; and that an upstream in `unavailable` may hold what was asked for. */
  hint?: string;
  /** Upstreams the persona may use that are not ready (still starting, failed, waiting for authorization): their tools are not in this result. */
  unavailable?: { upstream: string; why: string }[];
}

/**
 * Adds to `fields` the upstreams whose tools a result cannot include now, and a sentence
 * for the model: an answer without them (a no-match included) is not the catalog's last word.
 */
export function withUnavailable(fields: FindResultFields, down: { upstream: string; why: string }[]): void {
  if (down.length === 0) return;
  fields.unavailable = down;
  const which = down.map((d) => `"${d.upstream}" (${d.why})`).join(', ');
  const note = `${down.length === 1 ? `Upstream ${which} is` : `Upstreams ${which} are`} not ready, so ${down.length === 1 ? 'its' : 'their'} tools are not in this result; search again once ${down.length === 1 ? 'it has' : 'they have'} started.`;
  fields.hint = fields.hint ? `${fields.hint} ${note}` : note;
}

/**
 * The tools a find_tools result shows (at most `limit`, whatever the curator returned) and
 * the fields that tell the model what happened: a no-match or other-script message, and
 * the tools the limit cut with the limit that would return them.
 *
 * ### Usage
 * ```ts
 * findResult({ tools, confidence: 0.8, mode: 'hybrid', cut: ['get_fee_dues'] }, 5)
 * // { shown: tools, fields: { cut: ['get_fee_dues'], hint: 'limit 6 would return them too.' } }
 * ```
 */
export function findResult(selection: Selection, limit: number): { shown: ToolRecord[]; fields: FindResultFields } {
  const shown = selection.tools.slice(0, limit);
  const cut = [...selection.tools.slice(limit).map((t) => t.name), ...(selection.cut ?? [])];
  const fields: FindResultFields = {};
  const message = selection.noMatch?.message ?? selection.notice;
  if (message) fields.message = message;
  if (cut.length > 0) {
    fields.cut = cut;
    const wanted = Math.min(MAX_LIMIT, shown.length + cut.length);
    fields.hint =
      wanted > limit
        ? `${cut.length === 1 ? 'This tool' : `These ${cut.length} tools`} did not fit limit ${limit}; find_tools with limit ${wanted} would return ${cut.length === 1 ? 'it' : 'them'} too.`
        : `${cut.length === 1 ? 'This tool' : `These ${cut.length} tools`} did not fit limit ${limit}; search with narrower words to rank ${cut.length === 1 ? 'it' : 'them'} higher.`;
  }
  return { shown, fields };
}
