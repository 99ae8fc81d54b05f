/**
 * Issue 18, item 6 (bounds): tool definitions from upstreams are bounded before they enter
 * the catalog, and so are the find_tools results and tools/list answers made of them. The
 * built gateway over the `huge` fixture (an SDK Server over stdio), the SDK's Client as
 * host over stdio.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult, Client, Tool } from '@modelcontextprotocol/client';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clipBytes, fitBytes } from '../../src/catalog/bounds.js';
import { connectGateway, logLine } from '../helpers/reference.js';

const HUGE = join(import.meta.dirname, 'fixtures', 'huge.mjs');
const MAX_LIST = 32 * 1024;

describe('clipBytes and fitBytes', () => {
  it('clips to the byte bound with the marker, never inside a character', () => {
    const clipped = clipBytes('é'.repeat(1000), 300);
    expect(Buffer.byteLength(clipped)).toBeLessThanOrEqual(300);
    expect(clipped).toMatch(/^é+…\[clipped 2000 bytes to 300\]$/);
    expect(clipBytes('short', 300)).toBe('short');
  });

  it('keeps the longest head that fits', () => {
    const items = ['a'.repeat(10), 'b'.repeat(10), 'c'.repeat(10)];
    expect(fitBytes(items, 2 + 12 + 1 + 12)).toEqual({ kept: items.slice(0, 2), left: items.slice(2) });
    expect(fitBytes(items, 1000).left).toEqual([]);
  });
});

describe('through the gateway', () => {
  let client: Client;
  let stderr: () => string;
  const find = async (query: string, limit?: number) => {
    const r = (await client.callTool({ name: 'find_tools', arguments: { query, ...(limit && { limit }) } }, { timeout: 120_000 })) as CallToolResult;
    return { text: (r.content[0] as { text: string }).text, result: r.structuredContent as { tools: Tool[]; cut?: string[]; hint?: string } };
  };

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-bounds-'));
    const configPath = join(dir, 'gateway.config.yaml');
    writeFileSync(
      configPath,
      dump({
        upstreams: { huge: { command: process.execPath, args: [HUGE] } },
        curator: { mode: 'bm25', embedder: 'none' },
        store: join(dir, 'store.db'),
        exposure: { pinned: ['long_title'] },
        definitions: { max_list_bytes: MAX_LIST },
      }),
    );
    ({ client, stderr } = await connectGateway(configPath, [], {}, 120_000));
  });
  afterAll(() => client?.close());

  it('a 3 MB description reaches find_tools clipped to 8 KiB, marked', async () => {
    const { text, result } = await find('weather forecast for a city', 1);
    const giant = result.tools.find((t) => t.name === 'giant_doc')!;
    expect(Buffer.byteLength(giant.description!)).toBeLessThanOrEqual(8192);
    expect(giant.description).toMatch(/^Looks up the weather forecast for a city\. always include .*…\[clipped 3145770 bytes to 8192\]$/s);
    expect(Buffer.byteLength(text)).toBeLessThan(12_000);
  });

  it('a tool whose inputSchema is over 64 KiB is left out, with the reason logged', async () => {
    const r = (await client.callTool({ name: 'wide_schema', arguments: {} })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(stderr()).toMatch(/tool wide_schema of upstream \\"huge\\" left out of the catalog: its inputSchema is \d+ bytes of JSON, over definitions.max_schema_bytes \(65536\)/);
  });

  it('a 1,000-character title is clipped to 256', async () => {
    const listed = (await client.listTools()).tools.find((t) => t.name === 'long_title')!;
    expect([...listed.title!]).toHaveLength(256);
    expect(listed.title!.endsWith('…')).toBe(true);
  });

  it('a find_tools result keeps the best tools that fit max_list_bytes and names the rest in cut', async () => {
    // Six reports of 7,000-byte descriptions rank first; four fit in 32 KiB.
    const { text, result } = await find('quarterly report', 6);
    expect(Buffer.byteLength(JSON.stringify(result.tools))).toBeLessThanOrEqual(MAX_LIST);
    expect(result.tools.map((t) => t.name)).toEqual(['quarterly_report_1', 'quarterly_report_2', 'quarterly_report_3', 'quarterly_report_4']);
    expect(result.cut).toEqual(['quarterly_report_5', 'quarterly_report_6']);
    expect(result.hint).toBe(`2 tools did not fit the gateway's limit of ${MAX_LIST} bytes per result; search with narrower words or a smaller limit.`);
    expect(Buffer.byteLength(text)).toBeLessThan(MAX_LIST + 2000);
  });

  it('tools/list keeps the pinned and most recently found tools that fit, and logs the rest', async () => {
    // Four reports were found above; finding the other two makes six, over the bound.
    await find('quarterly_report_5 quarterly_report_6', 2);
    const tools = (await client.listTools()).tools.filter((t) => t.name !== 'find_tools' && t.name !== 'call_tool');
    expect(Buffer.byteLength(JSON.stringify(tools))).toBeLessThanOrEqual(MAX_LIST);
    expect(tools.map((t) => t.name)).toEqual(['long_title', 'quarterly_report_1', 'quarterly_report_2', 'quarterly_report_5', 'quarterly_report_6']);
    // stderr is its own pipe: the warning may arrive after the answer.
    expect(await logLine(stderr, /tools\/list over definitions.max_list_bytes: the least recently found tools are left out/)).toBeTruthy();
  });
});
