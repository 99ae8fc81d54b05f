/**
 * find_tools results over real upstreams (the MCP reference servers, spawned over stdio by
 * the built gateway, a real SDK client as host): the limit is a maximum and what it cut is
 * named; an exact tool name comes back first; a request in a script the catalog does not
 * use is answered with a message and its few tools are not added to the session's list.
 */
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectGateway, referenceConfig } from '../helpers/reference.js';

interface Found {
  tools: { name: string }[];
  confidence: number;
  message?: string;
  cut?: string[];
  hint?: string;
}
const found = (r: unknown): Found => JSON.parse(((r as CallToolResult).content[0] as { text: string }).text) as Found;

describe('find_tools result fields', () => {
  let client: Client;
  beforeAll(async () => {
    ({ client } = await connectGateway(referenceConfig().configPath));
  });
  afterAll(async () => client?.close());

  it('never returns more than limit tools; the cut tools and the limit that returns them are named', async () => {
    for (const limit of [1, 2, 5]) {
      const r = found(await client.callTool({ name: 'find_tools', arguments: { query: 'read a file and then write it to a new directory', limit } }));
      expect(r.tools.length, `limit ${limit}`).toBeLessThanOrEqual(limit);
      if (r.cut) {
        expect(r.cut.some((n) => r.tools.some((t) => t.name === n))).toBe(false);
        expect(r.hint).toMatch(new RegExp(`did not fit limit ${limit}`));
      }
    }
    const one = found(await client.callTool({ name: 'find_tools', arguments: { query: 'read a file and then write it to a new directory', limit: 1 } }));
    expect(one.tools).toHaveLength(1);
    expect(one.cut!.length).toBeGreaterThan(0);
  }, 180_000);

  it('an exact tool name comes back first', async () => {
    const r = found(await client.callTool({ name: 'find_tools', arguments: { query: 'list_directory_with_sizes', limit: 3 } }));
    expect(r.tools[0]!.name).toBe('list_directory_with_sizes');
  });

  it('the query bound counts characters as the inputSchema\'s maxLength does: an emoji is one, not two', async () => {
    const { inputSchema } = (await client.listTools()).tools.find((t) => t.name === 'find_tools')!;
    expect((inputSchema.properties as { query: { maxLength: number } }).query.maxLength).toBe(2000);
    const query = (emoji: number) => `read a file ${'💸'.repeat(emoji)}`;
    expect([[...query(1000)].length, query(1000).length]).toEqual([1012, 2012]);
    const fits = await client.callTool({ name: 'find_tools', arguments: { query: query(1000) } });
    expect(fits.isError).toBeFalsy();
    expect(found(fits).tools.length).toBeGreaterThan(0);
    const atBound = await client.callTool({ name: 'find_tools', arguments: { query: query(1988) } });
    expect(atBound.isError).toBeFalsy();
    const over = await client.callTool({ name: 'find_tools', arguments: { query: query(1989) } });
    expect(over.isError).toBe(true);
    expect((over.content[0] as { text: string }).text).toBe('find_tools "query" is 2001 characters; at most 2000: say in a sentence or two what you want to do');
  });

  it('a request in another script: a message, at most three tools, none added to the tool list', async () => {
    const before = (await client.listTools()).tools.map((t) => t.name);
    const r = found(await client.callTool({ name: 'find_tools', arguments: { query: 'ファイルの内容を読みたい' } }));
    expect(r.message).toMatch(/written in (Katakana|Hiragana|Han)/);
    expect(r.tools.length).toBeLessThanOrEqual(3);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(before);
  });
});
