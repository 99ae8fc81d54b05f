/**
 * The relay's bounds, in process (the gateway's own objects, a real Client over an
 * in-memory pair) over the alpha fixture spawned over stdio: relay.max_items caps what
 * is kept per upstream, relay.max_read_bytes what a read may return; and the routing of
 * URIs nobody lists when a single upstream offers resources.
 */
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway/gateway.js';
import { FIXTURES, inProcessGateway } from './setup.js';

describe('relay bounds', () => {
  let gateway: Gateway;
  let client: Client;

  beforeAll(async () => {
    const alpha = { command: process.execPath, args: [join(FIXTURES, 'alpha.mjs')] };
    ({ gateway, host: client } = await inProcessGateway({ alpha }, { relay: { max_items: 3, max_read_bytes: 300 } }));
  });
  afterAll(async () => {
    await client?.close();
    await gateway?.close();
  });

  it('keeps the first max_items of each list of an upstream', async () => {
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['docs://readme', 'shared://config', 'img://pixel']);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['greet', 'show_logo', 'summarize']);
  });

  it('with one upstream offering resources, an unlisted URI goes to it: its own answer, its own subscription', async () => {
    await expect(client.readResource({ uri: 'docs://unlisted' })).rejects.toThrow('Resource not found: docs://unlisted');
    await client.subscribeResource({ uri: 'watch://unlisted' });
    const log = await client.callTool({ name: 'call_tool', arguments: { name: 'subscription_log', arguments: {} } });
    expect(JSON.parse((log.content as { text: string }[])[0]!.text)).toEqual(['subscribe watch://unlisted']);
  });

  it('refuses a read larger than max_read_bytes, naming the limit; a smaller one passes', async () => {
    expect((await client.readResource({ uri: 'docs://readme' })).contents[0]).toMatchObject({ text: 'Alpha readme\n' });
    await expect(client.readResource({ uri: 'img://pixel' })).rejects.toThrow(/resource img:\/\/pixel is \d+ bytes, over the gateway's limit of 300 \(relay.max_read_bytes\)/);
  });
});
