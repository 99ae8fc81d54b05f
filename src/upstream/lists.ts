/**
 * What one upstream offers besides tools, as the pool keeps it after connect: its
 * capabilities and its resources, resource templates and prompts, each listed to the end
 * of its pagination and capped. A list that fails is logged and left empty; it never
 * fails the upstream.
 */
import { ProtocolError, type Client, type Prompt, type Resource, type ResourceTemplateType, type ServerCapabilities } from '@modelcontextprotocol/client';
import { log } from '../log.js';

export interface RelayLists {
  resources: Resource[];
  templates: ResourceTemplateType[];
  prompts: Prompt[];
}

/** The kinds of list an upstream can change: `resources` covers resources and templates. */
export type ListKind = 'resources' | 'prompts';

export const EMPTY_LISTS: RelayLists = { resources: [], templates: [], prompts: [] };

interface Page {
  nextCursor?: string;
}

/**
 * Follows `nextCursor` until the last page or `max` items, whichever comes first.
 * @throws when a cursor repeats (an upstream that would page forever).
 */
export async function listPaged<T>(fetchPage: (cursor?: string) => Promise<Page & Record<string, unknown>>, key: string, max: number, what: string): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    items.push(...((page[key] as T[] | undefined) ?? []));
    cursor = page.nextCursor;
    if (cursor !== undefined) {
      if (seen.has(cursor)) throw new Error(`${what} pagination loops on cursor ${cursor}`);
      seen.add(cursor);
    }
    if (items.length >= max) {
      if (cursor || items.length > max) log.warn({ what, max }, `${what}: more than ${max} items; the rest is left out (relay.max_items)`);
      return items.slice(0, max);
    }
  } while (cursor);
  return items;
}

/**
 * The list, or [] when it fails. A transport failure (not an MCP error answer) is tried
 * once more: a keep-alive socket the server has just closed fails one request, not two.
 */
async function orEmpty<T>(list: () => Promise<T[]>, what: string): Promise<T[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await list();
    } catch (err) {
      if (attempt === 1 && !(err instanceof ProtocolError)) continue;
      log.warn({ what, err: (err as Error).message }, `${what} failed; left out of the aggregate`);
      return [];
    }
  }
}

/**
 * One page of a list per call: `client.request` never joins pages (the SDK's list verbs
 * do when called without a cursor, and end a repeating cursor quietly), so listPaged can
 * stop at its `max` items and refuse a cursor loop.
 */
export function pages(client: Client, method: 'tools/list' | 'resources/list' | 'resources/templates/list' | 'prompts/list', options: { timeout: number }) {
  return (cursor?: string) => client.request({ method, params: cursor ? { cursor } : {} }, options);
}

/**
 * Lists what `caps` says the upstream offers. `kinds` limits the refresh to the lists a
 * list_changed names; the others are taken from `previous`.
 */
export async function fetchLists(
  server: string,
  client: Client,
  caps: ServerCapabilities | undefined,
  opts: { timeoutMs: number; maxItems: number },
  kinds: ListKind[] = ['resources', 'prompts'],
  previous: RelayLists = EMPTY_LISTS,
): Promise<RelayLists> {
  const req = { timeout: opts.timeoutMs };
  const out = { ...previous };
  // One list after the other: an upstream answers the gateway's start-up lists without a burst.
  if (caps?.resources && kinds.includes('resources')) {
    const r = `resources/list of upstream "${server}"`;
    const t = `resources/templates/list of upstream "${server}"`;
    out.resources = await orEmpty(() => listPaged<Resource>(pages(client, 'resources/list', req), 'resources', opts.maxItems, r), r);
    out.templates = await orEmpty(() => listPaged<ResourceTemplateType>(pages(client, 'resources/templates/list', req), 'resourceTemplates', opts.maxItems, t), t);
  }
  if (caps?.prompts && kinds.includes('prompts')) {
    const p = `prompts/list of upstream "${server}"`;
    out.prompts = await orEmpty(() => listPaged<Prompt>(pages(client, 'prompts/list', req), 'prompts', opts.maxItems, p), p);
  }
  return out;
}
