/**
 * The benchmark upstream with N generated tools (bench/fixtures/manyTools.ts): every name
 * distinct, every page of tools/list followed to exactly N tools, and every tool answering
 * tools/call with an echo, over a real stdio transport.
 */
import { join } from 'node:path';
import { Client, type CallToolResult, type Tool } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatedTool, generatedTools, MAX_TOOLS } from '../../bench/fixtures/manyTools.js';
import { ROOT } from '../helpers/reference.js';

const N = 2_500;
const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;

describe('many-tools upstream', () => {
  it('names every one of its MAX_TOOLS tools distinctly, with a required id parameter', () => {
    const tools = generatedTools(MAX_TOOLS);
    expect(new Set(tools.map((t) => t.name)).size).toBe(MAX_TOOLS);
    expect(tools.every((t) => /^[a-z_]{1,64}$/.test(t.name))).toBe(true);
    expect(generatedTool(6)).toMatchObject({ name: 'export_invoice', inputSchema: { required: ['invoice_id'] } });
    expect(generatedTool(54_321).name).toBe('list_mailbox_for_team');
    expect(() => generatedTool(MAX_TOOLS)).toThrow(RangeError);
  });

  describe(`over stdio with ${N} tools in pages of 1,000`, () => {
    let client: Client;
    beforeAll(async () => {
      client = new Client({ name: 'test', version: '1' });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [join(ROOT, 'dist/bench/fixtures/manyTools.js'), String(N)] }));
    });
    afterAll(async () => client?.close());

    it('lists exactly N tools over 3 pages, in generation order', async () => {
      const pages: Tool[][] = [];
      let cursor: string | undefined;
      do {
        const page = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} });
        pages.push(page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      expect(pages.map((p) => p.length)).toEqual([1000, 1000, 500]);
      expect(pages.flat().map((t) => t.name)).toEqual(generatedTools(N).map((t) => t.name));
    });

    it('echoes a call of any listed tool and refuses a name it does not list', async () => {
      const last = generatedTool(N - 1);
      const r = (await client.callTool({ name: last.name, arguments: { x: 1 } })) as CallToolResult;
      expect(r.isError).toBeFalsy();
      expect(JSON.parse(text(r))).toEqual({ tool: last.name, arguments: { x: 1 } });
      const unknown = (await client.callTool({ name: generatedTool(N).name, arguments: {} })) as CallToolResult;
      expect(unknown.isError).toBe(true);
      expect(text(unknown)).toBe(`unknown tool ${generatedTool(N).name}`);
    });
  });
});
