/**
 * Resources inside an upstream's question to the host's model: a sampling/createMessage
 * sent during a tools/call may carry a tool_result whose content embeds or links a
 * resource (MCP 2025-11-25), which reaches the host's model as a tool result would. Through
 * the gateway each such block is decided as a read of its URI would be, so the `docs`
 * fixture's secrets do not reach the host that way. The built gateway over stdio, the
 * SDK's Client as host, with sampling.
 */
import { Client, type CallToolResult, type CreateMessageRequest } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/reference.js';
import { DOCS, docsConfig } from './docs.js';

/** A host with sampling that records each question and answers "ok". */
async function samplingHost(transport: StdioClientTransport): Promise<{ client: Client; asked: CreateMessageRequest['params'][] }> {
  const asked: CreateMessageRequest['params'][] = [];
  const client = new Client({ name: 'sampling-host', version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.setRequestHandler('sampling/createMessage', (req) => {
    asked.push(req.params);
    return { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'test-model' };
  });
  await client.connect(transport);
  return { client, asked };
}

const toolResultOf = (params: CreateMessageRequest['params']) => (params.messages[1]!.content as { content: unknown[] }[])[0]!.content;

describe('the docs fixture without the gateway', () => {
  it('asks the model with the secret embedded and linked: a real leak', async () => {
    const { client, asked } = await samplingHost(new StdioClientTransport({ command: process.execPath, args: [DOCS], stderr: 'ignore' }));
    try {
      expect(((await client.callTool({ name: 'consult', arguments: {} })) as CallToolResult).content).toEqual([{ type: 'text', text: 'model said ok' }]);
      expect(JSON.stringify(asked)).toContain('SECRET-KEYS');
    } finally {
      await client.close();
    }
  });
});

describe('host over stdio', () => {
  let host: Awaited<ReturnType<typeof samplingHost>>;
  beforeAll(async () => {
    const { configPath } = docsConfig();
    host = await samplingHost(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'serve', '--config', configPath, '--persona', 'reader'],
        stderr: 'ignore',
        env: { ...process.env, TOOL_CURATOR_LOG: 'warn' } as Record<string, string>,
      }),
    );
  });
  afterAll(async () => {
    await host?.client.close();
  });

  it("a tool result inside a sampling request keeps its public resource; each denied one becomes a notice", async () => {
    const result = (await host.client.callTool({ name: 'call_tool', arguments: { name: 'consult', arguments: {} } })) as CallToolResult;
    expect(result.content).toEqual([{ type: 'text', text: 'model said ok' }]);
    expect(host.asked).toHaveLength(1);
    expect(toolResultOf(host.asked[0]!)).toEqual([
      { type: 'resource', resource: { uri: 'file:///public/readme.txt', mimeType: 'text/plain', text: 'public readme' } },
      { type: 'text', text: '[tool-curator] a resource was withheld by policy: file:///public/%2e%2e/secret/keys.txt' },
      { type: 'text', text: '[tool-curator] a link to a resource was withheld by policy: secret://keys' },
    ]);
    expect(JSON.stringify(host.asked)).not.toContain('SECRET');
  });
});
