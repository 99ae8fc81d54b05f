/**
 * Size bounds on what upstreams say about their tools, applied before a tool enters the
 * catalog, and on the tool lists the gateway sends hosts. A description or title too long
 * is clipped, with a marker saying how much was cut; a schema too large (input or output),
 * or other definition fields (annotations, icons, `_meta`, execution) too large, or a name
 * too long, keeps the tool out of the catalog, with the reason logged by the caller: a
 * schema cut short would make calls that do not fit the tool. A list of definitions too
 * large for one answer keeps its first tools and names the rest.
 */
import type { Tool } from '@modelcontextprotocol/server';

export interface DefinitionBounds {
  /** Longest description, in UTF-8 bytes (marker included); longer is clipped. */
  descriptionBytes: number;
  /** Longest title, in characters; longer is clipped. */
  titleChars: number;
  /** Largest inputSchema, outputSchema, and other definition fields together, each in bytes of JSON; larger keeps the tool out. */
  schemaBytes: number;
}

/** Longest upstream tool name taken into the catalog. Calls go upstream under this name, so it is never cut: longer keeps the tool out. */
export const MAX_UPSTREAM_NAME = 512;

export interface RefusedTool {
  server: string;
  /** The tool's name, clipped for the log. */
  tool: string;
  reason: string;
}

export interface ClippedTool {
  server: string;
  tool: string;
  /** Which fields were clipped, with their sizes as sent. */
  fields: string[];
}

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '');

/** `text` cut to at most `maxBytes` UTF-8 bytes including the marker, never inside a character. */
export function clipBytes(text: string, maxBytes: number): string {
  const size = Buffer.byteLength(text);
  if (size <= maxBytes) return text;
  const marker = `…[clipped ${size} bytes to ${maxBytes}]`;
  let budget = maxBytes - Buffer.byteLength(marker);
  let out = '';
  for (const ch of text) {
    budget -= Buffer.byteLength(ch);
    if (budget < 0) break;
    out += ch;
  }
  return `${out}${marker}`;
}

function clipChars(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** Why `t` cannot enter the catalog, or undefined when it can. */
function refusal(t: Tool, bounds: DefinitionBounds): string | undefined {
  if (t.name.length > MAX_UPSTREAM_NAME) return `its name is ${t.name.length} characters, over ${MAX_UPSTREAM_NAME}`;
  const over = (what: string, value: unknown) => {
    const bytes = bytesOf(value);
    return bytes > bounds.schemaBytes ? `its ${what} is ${bytes} bytes of JSON, over definitions.max_schema_bytes (${bounds.schemaBytes})` : undefined;
  };
  const { annotations, icons, _meta, execution } = t;
  return over('inputSchema', t.inputSchema) ?? over('outputSchema', t.outputSchema) ?? over('annotations, icons, _meta and execution', { annotations, icons, _meta, execution });
}

/**
 * The upstreams' tools within `bounds`: descriptions and titles clipped, tools that cannot
 * be bounded left out.
 *
 * ### Usage
 * ```ts
 * const { byServer, refused, clipped } = boundTools(pool.toolsByServer(), { descriptionBytes: 8192, titleChars: 256, schemaBytes: 65536 });
 * for (const r of refused) log.warn(r, `tool ${r.tool} of upstream ${r.server} left out: ${r.reason}`);
 * ```
 */
export function boundTools(byServer: Map<string, Tool[]>, bounds: DefinitionBounds): { byServer: Map<string, Tool[]>; refused: RefusedTool[]; clipped: ClippedTool[] } {
  const refused: RefusedTool[] = [];
  const clipped: ClippedTool[] = [];
  const out = new Map<string, Tool[]>();
  for (const [server, tools] of byServer) {
    const kept: Tool[] = [];
    for (const t of tools) {
      const reason = refusal(t, bounds);
      if (reason) {
        refused.push({ server, tool: clipChars(t.name, 64), reason });
        continue;
      }
      const fields: string[] = [];
      let tool = t;
      if (t.description !== undefined && Buffer.byteLength(t.description) > bounds.descriptionBytes) {
        fields.push(`description (${Buffer.byteLength(t.description)} bytes)`);
        tool = { ...tool, description: clipBytes(t.description, bounds.descriptionBytes) };
      }
      if (t.title !== undefined && [...t.title].length > bounds.titleChars) {
        fields.push(`title (${[...t.title].length} characters)`);
        tool = { ...tool, title: clipChars(t.title, bounds.titleChars) };
      }
      const annotationTitle = t.annotations?.title;
      if (annotationTitle !== undefined && [...annotationTitle].length > bounds.titleChars) {
        fields.push(`annotations.title (${[...annotationTitle].length} characters)`);
        tool = { ...tool, annotations: { ...t.annotations, title: clipChars(annotationTitle, bounds.titleChars) } };
      }
      if (fields.length > 0) clipped.push({ server, tool: t.name, fields });
      kept.push(tool);
    }
    out.set(server, kept);
  }
  return { byServer: out, refused, clipped };
}

/**
 * The longest head of `items` whose JSON, as one array, fits `maxBytes`; the rest left out.
 * Items are kept in order, so the best-ranked (or pinned) come first.
 */
export function fitBytes<T>(items: readonly T[], maxBytes: number): { kept: T[]; left: T[] } {
  let used = 2;
  let n = 0;
  for (; n < items.length; n++) {
    used += bytesOf(items[n]) + (n > 0 ? 1 : 0);
    if (used > maxBytes) break;
  }
  return { kept: items.slice(0, n), left: items.slice(n) };
}
