/**
 * Resources inside answers: an upstream's tools/call result, prompts/get result and
 * resources/read contents may carry a resource (embedded, with its text or blob) or a
 * link to one under any URI. Through the gateway each is decided as a read of that URI
 * would be, so the `docs` fixture's secrets never reach the host that way; and a
 * subscription whose URI a configuration reload denies stops notifying (and is dropped
 * upstream). The built gateway, the SDK's Client as host over stdio and Streamable HTTP.
 */
import { writeFileSync } from 'node:fs';
import { Client, type CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS, DOCS_PERSONAS, DOCS_TOKEN, docsConfig } from './docs.js';
import { httpGateway, mcpError, stdioHost } from './setup.js';

const withheld = (uri: string) => ({ type: 'text', text: `[tool-curator] a resource was withheld by policy: ${uri}` });
const withheldLink = (uri: string) => ({ type: 'text', text: `[tool-curator] a link to a resource was withheld by policy: ${uri}` });
const call = (host: Client, name: string, args: Record<string, unknown> = {}) => host.callTool({ name: 'call_tool', arguments: { name, arguments: args } }) as Promise<CallToolResult>;

describe('the docs fixture without the gateway', () => {
  it('answers with secrets embedded and linked: they are real leaks', async () => {
    const direct = new Client({ name: 'direct', version: '1.0.0' });
    await direct.connect(new StdioClientTransport({ command: process.execPath, args: [DOCS], stderr: 'ignore' }));
    try {
      expect(JSON.stringify(await direct.callTool({ name: 'embed', arguments: {} }))).toContain('SECRET-KEYS');
      expect(JSON.stringify(await direct.getPrompt({ name: 'quote' }))).toContain('SECRET-KEYS');
      expect(JSON.stringify(await direct.readResource({ uri: 'file:///public/bundle.txt' }))).toContain('SECRET-KEYS');
      expect(JSON.stringify(await direct.readResource({ uri: 'file:///public/alias.txt' }))).toContain('SECRET-KEYS');
    } finally {
      await direct.close();
    }
  });
});

function embeddedSuite(connect: (configPath: string) => Promise<{ host: Client; close: () => Promise<void> }>): void {
  let host: Client;
  let close: () => Promise<void>;
  let personasPath: string;
  const updated: string[] = [];
  beforeAll(async () => {
    const made = docsConfig();
    personasPath = made.personasPath;
    ({ host, close } = await connect(made.configPath));
    host.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri));
  });
  afterAll(async () => {
    await close?.();
  });

  it('a tool result keeps public resources and links; each denied one becomes a notice without its contents', async () => {
    const result = await call(host, 'embed');
    expect(result.content).toEqual([
      { type: 'text', text: 'here' },
      { type: 'resource', resource: { uri: 'file:///public/readme.txt', mimeType: 'text/plain', text: 'public readme' } },
      withheld('file:///public/../secret/keys.txt'),
      withheld('secret://keys'),
      withheldLink('file:///secret/keys.txt'),
      { type: 'resource_link', uri: 'file:///public/guide.txt', name: 'guide' },
      withheld('tool-curator://docs/file:///secret/keys.txt'),
    ]);
    expect(JSON.stringify(result)).not.toMatch(/SECRET|U0VDUkVU/);
  });

  it('a prompt keeps its public resource; a denied resource or link becomes a notice', async () => {
    const prompt = await host.getPrompt({ name: 'quote' });
    expect(prompt.messages).toEqual([
      { role: 'user', content: { type: 'resource', resource: { uri: 'file:///public/readme.txt', mimeType: 'text/plain', text: 'public readme' } } },
      { role: 'user', content: withheld('FILE:///ｓｅｃｒｅｔ/keys.txt') },
      { role: 'assistant', content: withheldLink('secret://keys') },
    ]);
  });

  it('a read keeps only the contents the persona may read; with none left it is "not found"', async () => {
    const bundle = await host.readResource({ uri: 'file:///public/bundle.txt' });
    expect(bundle.contents).toEqual([{ uri: 'file:///public/bundle.txt', mimeType: 'text/plain', text: 'public bundle' }]);
    const prefixed = await host.readResource({ uri: 'tool-curator://docs/file:///public/bundle.txt' });
    expect(prefixed.contents).toEqual([{ uri: 'tool-curator://docs/file:///public/bundle.txt', mimeType: 'text/plain', text: 'public bundle' }]);
    const err = await mcpError(host.readResource({ uri: 'file:///public/alias.txt' }));
    expect([err.code, err.message]).toEqual([-32602, 'Resource not found: file:///public/alias.txt']);
  });

  it('after a reload denies a subscribed URI, its updates stop and the upstream is unsubscribed; other subscriptions carry on', async () => {
    await host.subscribeResource({ uri: 'file:///public/readme.txt' });
    await host.subscribeResource({ uri: 'file:///public/guide.txt' });
    await call(host, 'touch', { uri: 'file:///public/guide.txt' });
    await expect.poll(() => updated, { timeout: 60_000 }).toEqual(['file:///public/guide.txt']);
    const narrowed = { reader: { ...DOCS_PERSONAS.reader, resources: { ...DOCS_PERSONAS.reader.resources, deny: [...DOCS_PERSONAS.reader.resources.deny, 'docs.file:///public/guide.txt'] } } };
    writeFileSync(personasPath, dump(narrowed));
    // Ready when the reload is in force: the guide no longer reads.
    await expect
      .poll(() => host.readResource({ uri: 'file:///public/guide.txt' }).then(() => 'read', () => 'refused'), { timeout: 60_000, interval: 200 })
      .toBe('refused');
    await call(host, 'touch', { uri: 'file:///public/guide.txt' });
    await call(host, 'touch', { uri: 'file:///public/readme.txt' });
    // The readme's update was sent after the guide's, on the same channel: once it is here, the guide's would have been.
    await expect.poll(() => updated, { timeout: 60_000 }).toEqual(['file:///public/guide.txt', 'file:///public/readme.txt']);
    const log = async () => JSON.parse(((await call(host, 'subscription_log')).content[0] as { text: string }).text) as string[];
    await expect.poll(log, { timeout: 60_000 }).toContain('unsubscribe file:///public/guide.txt');
    expect((await log()).filter((l) => l.includes('readme'))).toEqual(['subscribe file:///public/readme.txt']);
  });
}

describe('host over stdio', () => {
  embeddedSuite(async (configPath) => {
    const host = await stdioHost(configPath, 'reader');
    return { host, close: () => host.close() };
  });
});

describe('host over Streamable HTTP', () => {
  embeddedSuite(async (configPath) => {
    const gateway = await httpGateway(configPath);
    const host = await gateway.host(DOCS_TOKEN);
    return {
      host,
      close: async () => {
        await host.close();
        gateway.child.kill();
      },
    };
  });
});
