/**
 * The upstream pool against real MCP servers built with the SDK, over an in-process
 * transport pair where a spawned process adds nothing: pagination and list_changed.
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, Server, type Tool } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../src/catalog/catalog.js';
import { ActionRules } from '../../src/policy/actions.js';
import { forwardCall } from '../../src/upstream/call.js';
import { listAllTools } from '../../src/upstream/pool.js';

const tool = (name: string): Tool => ({ name, description: `does ${name}`, inputSchema: { type: 'object' } });

/** A server that lists `names` in pages of `pageSize`, with opaque cursors. */
async function pagedServer(names: string[], pageSize: number, cursors: (page: number) => string = (p) => `page-${p}`) {
  const server = new Server({ name: 'paged', version: '1' }, { capabilities: { tools: {} } });
  const requests: (string | undefined)[] = [];
  server.setRequestHandler('tools/list', (req) => {
    const cursor = req.params?.cursor;
    requests.push(cursor);
    const page = cursor === undefined ? 0 : Number(cursor.split('-')[1]);
    const slice = names.slice(page * pageSize, (page + 1) * pageSize).map(tool);
    const more = (page + 1) * pageSize < names.length;
    return { tools: slice, ...(more && { nextCursor: cursors(page + 1) }) };
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(b);
  return { client, transport: b, requests };
}

describe('listAllTools', () => {
  it('follows nextCursor until the last page', async () => {
    const names = Array.from({ length: 23 }, (_, i) => `tool_${String(i).padStart(2, '0')}`);
    const { client, transport, requests } = await pagedServer(names, 10);
    const tools = await listAllTools({ client, transport }, 5000);
    expect(tools.map((t) => t.name)).toEqual(names);
    expect(requests).toEqual([undefined, 'page-1', 'page-2']);
  });

  it('ends a cursor loop instead of listing forever (the SDK stops when a cursor repeats with the same page)', async () => {
    const { client, transport, requests } = await pagedServer(['a', 'b', 'c', 'd'], 1, () => 'page-1');
    const tools = await listAllTools({ client, transport }, 5000);
    expect(tools.map((t) => t.name)).toEqual(['a', 'b']);
    expect(requests).toEqual([undefined, 'page-1', 'page-1']);
  });
});

describe('forwardCall', () => {
  it("checks a result's structuredContent against the outputSchema of the tool as listed", async () => {
    const answer: Tool = { ...tool('answer'), outputSchema: { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] } };
    const server = new Server({ name: 'typed', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', () => ({ tools: [answer] }));
    server.setRequestHandler('tools/call', (req) => {
      const value = req.params.arguments?.value;
      return { content: [{ type: 'text', text: String(value) }], structuredContent: { answer: value } };
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(b);
    const conn = { client, transport: b };
    const tools = await listAllTools(conn, 5000);
    const target = { server: 'typed', conn: () => conn, definition: (name: string) => tools.find((t) => t.name === name), reinitialize: async () => false, consentLost: () => undefined };
    const call = (value: unknown) => forwardCall(target, 'answer', { value }, {}, { callMs: 5000, maxResultBytes: 1_000_000 });
    expect((await call(42)).structuredContent).toEqual({ answer: 42 });
    const wrong = await call('forty-two');
    expect(wrong.isError).toBe(true);
    expect((wrong.content[0] as { text: string }).text).toMatch(/^upstream "typed" failed on answer: Structured content does not match the tool's output schema: /);
  });
});

describe('buildCatalog', () => {
  it("keeps a tool's icons, execution and _meta as the upstream sent them, and adds no empty keys", () => {
    const full: Tool = { ...tool('render'), icons: [{ src: 'https://example.com/r.png', mimeType: 'image/png' }], execution: { taskSupport: 'optional' }, _meta: { 'example.com/k': 1 } };
    const [bare, withAll] = buildCatalog(new Map([['ui', [full, tool('plain')]]]));
    expect([withAll!.icons, withAll!.execution, withAll!._meta]).toEqual([full.icons, full.execution, full._meta]);
    expect(Object.keys(bare!).filter((k) => ['icons', 'execution', '_meta'].includes(k))).toEqual([]);
  });

  it('the first holder of a shared name keeps it, a later one is exposed as <server>__<tool>; sorts by server then name', () => {
    const readOnly = { readOnlyHint: true };
    const catalog = buildCatalog(
      new Map([
        ['files', [{ ...tool('search'), annotations: readOnly }, { ...tool('read_file'), annotations: readOnly }]],
        ['web', [tool('search'), { ...tool('delete_page'), annotations: { readOnlyHint: true, destructiveHint: true } }]],
      ]),
      new ActionRules({ actions: ['files.read_*'], read_only: [] }).classify,
    );
    // An operator's action; read-only as annotated; unannotated (MCP's defaults); read-only but destructive.
    expect(catalog.map((t) => [t.server, t.name, t.upstreamName, t.isAction])).toEqual([
      ['files', 'read_file', 'read_file', true],
      ['files', 'search', 'search', false],
      ['web', 'delete_page', 'delete_page', true],
      ['web', 'web__search', 'search', true],
    ]);
  });
});
