/**
 * A third-party upstream: the MCP reference server `everything` (npm
 * @modelcontextprotocol/server-everything, stdio) behind the gateway, in process, with a
 * real Client on an in-memory pair. Its resources, templates, prompts and completions
 * reach the host as the server itself answers them.
 */
import { join } from 'node:path';
import { Client, type ReadResourceResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway/gateway.js';
import { ROOT } from '../helpers/reference.js';
import { inProcessGateway } from './setup.js';

/** A read with the server's "created at <local time>" stamp taken out (blobs decoded), so two reads compare. */
function unstamped(r: ReadResourceResult) {
  const strip = (s: string) => s.replace(/created at .*$/, 'created at <time>');
  return r.contents.map((c) => ('blob' in c ? { ...c, blob: strip(Buffer.from(c.blob, 'base64').toString('utf8')) } : { ...c, text: strip(c.text) }));
}

const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

describe('server-everything through the gateway', () => {
  let gateway: Gateway;
  let host: Client;
  let direct: Client;

  beforeAll(async () => {
    ({ gateway, host } = await inProcessGateway({ everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } }));
    direct = new Client({ name: 'direct', version: '1' });
    await direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
  });
  afterAll(async () => {
    await host?.close();
    await direct?.close();
    await gateway?.close();
  });

  it('lists resources, templates and prompts exactly as the server does', async () => {
    expect(await host.listResources()).toEqual(await direct.listResources());
    expect(await host.listResourceTemplates()).toEqual(await direct.listResourceTemplates());
    expect(await host.listPrompts()).toEqual(await direct.listPrompts());
  });

  it('reads a static document, and text and blob resources of its templates (each stamped with the time it was made)', async () => {
    const first = (await direct.listResources()).resources[0]!.uri;
    for (const uri of [first, 'demo://resource/dynamic/text/7', 'demo://resource/dynamic/blob/7']) {
      expect(unstamped(await host.readResource({ uri })), uri).toEqual(unstamped(await direct.readResource({ uri })));
    }
  });

  it('gets prompts with arguments and an embedded resource, and completes a prompt argument', async () => {
    const args = { city: 'Lisbon', state: 'Lisboa' };
    expect(await host.getPrompt({ name: 'args-prompt', arguments: args })).toEqual(await direct.getPrompt({ name: 'args-prompt', arguments: args }));
    const res = { resourceType: 'Text', resourceId: '3' };
    const viaGateway = await host.getPrompt({ name: 'resource-prompt', arguments: res });
    // The embedded text resource is made on request and stamped with the time.
    const stamped = (r: unknown) => JSON.stringify(r).replace(/created at [^"\\]*/g, 'created at <time>');
    expect(stamped(viaGateway)).toBe(stamped(await direct.getPrompt({ name: 'resource-prompt', arguments: res })));
    expect(viaGateway.messages.some((m) => m.content.type === 'resource')).toBe(true);
    const params = { ref: { type: 'ref/prompt' as const, name: 'completable-prompt' }, argument: { name: 'department', value: 'E' } };
    const completion = await host.complete(params);
    expect(completion).toEqual(await direct.complete(params));
    expect(completion.completion.values.length).toBeGreaterThan(0);
  });
});
