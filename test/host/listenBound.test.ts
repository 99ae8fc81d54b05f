/**
 * `subscriptions/listen` streams are bounded per token, not only per gateway: one token
 * holding every place the SDK's handler allows must not leave another host without change
 * announcements (the built gateway over HTTP, real 2026-07-28 SDK clients).
 */
import type { ChildProcess } from 'node:child_process';
import { Client, StreamableHTTPClientTransport, type McpSubscription } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformanceConfig } from '../helpers/conformance.js';
import { startHttpGateway } from '../helpers/raw.js';

const GREEDY = 'listen-bound-greedy-0123456789';
const OTHER = 'listen-bound-other-0123456789';
const PIN = { versionNegotiation: { mode: { pin: '2026-07-28' as const } } };

describe('subscriptions/listen per token', () => {
  let child: ChildProcess;
  let url: URL;
  beforeAll(async () => {
    const config = conformanceConfig({
      http: {
        max_sessions_per_token: 3,
        tokens: [
          { token: GREEDY, persona: 'tester', user_id: 'u1' },
          { token: OTHER, persona: 'tester', user_id: 'u2' },
        ],
      },
    });
    ({ child, url } = await startHttpGateway(config));
  }, 120_000);
  afterAll(() => {
    child?.kill();
  });

  async function host(token: string): Promise<Client> {
    const client = new Client({ name: 'listener', version: '1.0.0' }, PIN);
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    return client;
  }

  it('refuses a token its listen past http.max_sessions_per_token while another token still listens; a closed stream frees its place', { timeout: 60_000 }, async () => {
    const greedy = await host(GREEDY);
    const held: McpSubscription[] = [];
    for (let i = 0; i < 3; i++) held.push(await greedy.listen({ toolsListChanged: true }, { timeout: 20_000 }));
    await expect(greedy.listen({ toolsListChanged: true }, { timeout: 20_000 })).rejects.toThrow(/3 open subscriptions\/listen streams, the most http.max_sessions_per_token allows/);

    const other = await host(OTHER);
    const theirs = await other.listen({ toolsListChanged: true }, { timeout: 20_000 });
    expect(theirs.honoredFilter).toEqual({ toolsListChanged: true });

    await held.pop()!.close();
    // The place comes back once the gateway has seen the stream close: retried until it has.
    let again: McpSubscription | undefined;
    for (let tries = 0; again === undefined && tries < 100; tries++) {
      again = await greedy.listen({ toolsListChanged: true }, { timeout: 20_000 }).catch(() => new Promise<undefined>((r) => setTimeout(() => r(undefined), 100)));
    }
    expect(again?.honoredFilter).toEqual({ toolsListChanged: true });
    await Promise.all([...held, theirs, again!].map((s) => s.close()));
    await Promise.all([greedy.close(), other.close()]);
  });
});
