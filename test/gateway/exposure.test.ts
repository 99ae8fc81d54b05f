/**
 * Exposure modes, seen by a real SDK Client over the HTTP face: in `static` mode
 * tools/list never changes as a side effect of find_tools and no list_changed is sent,
 * find_tools returns full definitions, and tools run through call_tool or by name; in
 * `dynamic` mode find_tools adds its matches to tools/list and sends list_changed.
 */
import { Client, StreamableHTTPClientTransport, type CallToolResult, type Tool } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { serveHttp, type HttpFace } from '../../src/gateway/http.js';
import { conformanceConfig } from '../helpers/conformance.js';

const names = (tools: Tool[]) => tools.map((t) => t.name);
const found = (r: unknown) => (r as CallToolResult).structuredContent as { tools: Tool[] };

async function start(mode: 'static' | 'dynamic'): Promise<{ gateway: Gateway; face: HttpFace }> {
  const path = conformanceConfig({ exposure: { mode, pinned: ['test_image_content'] }, http: { anonymous: { persona: 'tester' } } });
  const gateway = await Gateway.start(loadConfig(path), { noEmbedder: true });
  return { gateway, face: await serveHttp(gateway, 0, '127.0.0.1') };
}

async function connect(face: HttpFace): Promise<{ client: Client; listChanged: () => number }> {
  const client = new Client({ name: 'exposure-host', version: '1.0.0' });
  let count = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => void count++);
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${face.port}/mcp`)));
  return { client, listChanged: () => count };
}

describe('exposure.mode: static', () => {
  let setup: { gateway: Gateway; face: HttpFace };
  beforeAll(async () => void (setup = await start('static')));
  afterAll(async () => {
    await setup?.face.close();
    await setup?.gateway.close();
  });

  it('keeps tools/list fixed through find_tools, sends no list_changed, and returns full definitions', async () => {
    const { client, listChanged } = await connect(setup.face);
    expect(client.getInstructions()).toMatch(/run them through call_tool/);
    const before = (await client.listTools()).tools;
    expect(names(before)).toEqual(['find_tools', 'call_tool', 'test_image_content']);
    expect(before[0]!.description).toMatch(/Run a found tool with call_tool/);
    expect(before[0]!.description).not.toMatch(/adds them to your tool list/);

    const result = found(await client.callTool({ name: 'find_tools', arguments: { query: 'a simple text response', limit: 3 } }));
    const simple = result.tools.find((t) => t.name === 'test_simple_text');
    // The whole definition, title and annotations included: the result is where a static host learns the tool.
    expect(simple).toEqual({
      name: 'test_simple_text',
      title: 'Simple text',
      description: 'Returns a simple text response.',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true, openWorldHint: false },
    });

    expect((await client.listTools()).tools).toEqual(before);
    await new Promise((r) => setTimeout(r, 300));
    expect(listChanged()).toBe(0);
    await client.close();
  });

  it('runs found tools through call_tool, and unlisted tools by name (visibility is not permission)', async () => {
    const { client } = await connect(setup.face);
    const viaCallTool = (await client.callTool({ name: 'call_tool', arguments: { name: 'test_simple_text', arguments: {} } })) as CallToolResult;
    expect(viaCallTool.content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }]);
    const direct = (await client.callTool({ name: 'test_audio_content', arguments: {} })) as CallToolResult;
    expect(direct.content[0]).toMatchObject({ type: 'audio', mimeType: 'audio/wav' });
    await client.close();
  });
});

describe('exposure.mode: dynamic (default)', () => {
  let setup: { gateway: Gateway; face: HttpFace };
  beforeAll(async () => void (setup = await start('dynamic')));
  afterAll(async () => {
    await setup?.face.close();
    await setup?.gateway.close();
  });

  it('adds find_tools matches to tools/list and sends list_changed', async () => {
    const { client, listChanged } = await connect(setup.face);
    expect(names((await client.listTools()).tools)).toEqual(['find_tools', 'call_tool', 'test_image_content']);
    const result = found(await client.callTool({ name: 'find_tools', arguments: { query: 'a simple text response', limit: 3 } }));
    expect(names(result.tools)).toContain('test_simple_text');
    // Dynamic results stay short: the tool itself is in tools/list now.
    expect(Object.keys(result.tools.find((t) => t.name === 'test_simple_text')!)).toEqual(['name', 'description', 'inputSchema']);
    const after = names((await client.listTools()).tools);
    expect(after.slice(0, 2)).toEqual(['find_tools', 'call_tool']);
    expect(after).toEqual(expect.arrayContaining(['test_image_content', ...names(result.tools)]));
    await expect.poll(listChanged, { timeout: 5000 }).toBeGreaterThanOrEqual(1);
    await client.close();
  });
});
