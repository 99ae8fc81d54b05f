/**
 * A user's own connection to a per-user upstream (upstream/users.ts) follows the hosts'
 * `logging/setLevel` for as long as it is open, as the shared connections do: a host that
 * asks for `debug` after the connection opened gets the upstream's debug messages too
 * (relay/calls.ts). Real SDK servers and clients over in-memory transports: the upstreams
 * record the levels they were set to, the host is a Client of a Server the relay joined.
 */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { Server } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { CallRelay, UPSTREAM_CAPABILITIES } from '../../src/relay/calls.js';

/** An upstream that offers logging and records every level it is set to. */
async function upstream(): Promise<{ client: Client; levels: string[] }> {
  const levels: string[] = [];
  const server = new Server({ name: 'per-user', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.setRequestHandler('logging/setLevel', async (req) => {
    levels.push(req.params.level);
    return {};
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'gateway', version: '1' }, { capabilities: UPSTREAM_CAPABILITIES });
  await client.connect(b);
  return { client, levels };
}

describe("a user's own upstream connection and logging/setLevel", () => {
  const closing: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0)) await close();
  });

  /** A host session the relay joined, as host/session.ts joins one. */
  async function host(relay: CallRelay, id: string): Promise<Client> {
    const server = new Server({ name: 'gateway', version: '1' }, { capabilities: { logging: {} } });
    relay.join({ id }, server);
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const client = new Client({ name: 'host', version: '1' });
    await client.connect(b);
    closing.push(() => client.close());
    return client;
  }

  it('is set to a level a host asks for after it opened; a closed one is left alone', async () => {
    const relay = new CallRelay({ mayUse: () => true, requestMs: 60_000 });
    const shared = await upstream();
    const alice = await upstream();
    const bob = await upstream();
    closing.push(() => shared.client.close(), () => alice.client.close());
    relay.attach('tracker', shared.client);
    const first = await host(relay, 'h1');
    await first.setLoggingLevel('error');
    expect(shared.levels).toEqual(['error']);

    // Opened later: each gets the level in force when it connects.
    relay.attach('tracker@alice', alice.client, false, 'tracker');
    relay.attach('tracker@bob', bob.client, false, 'tracker');
    await expect.poll(() => [alice.levels, bob.levels]).toEqual([['error'], ['error']]);
    await bob.client.close();

    // A host asks for more: the shared and the open per-user connection follow; bob's is closed.
    const second = await host(relay, 'h2');
    await second.setLoggingLevel('debug');
    expect(shared.levels).toEqual(['error', 'debug']);
    expect(alice.levels).toEqual(['error', 'debug']);
    expect(bob.levels).toEqual(['error']);
  });
});
