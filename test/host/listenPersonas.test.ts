/**
 * A 2026 host's tools/list is the meta tools and its persona's pinned tools, so a personas
 * edit that denies or allows a pinned tool changes it: a host listening on
 * `subscriptions/listen` over HTTP must be told, as a stdio host is (the built gateway over
 * HTTP, real 2026-07-28 SDK clients, the personas file edited while it serves).
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport, type McpSubscription } from '@modelcontextprotocol/client';
import { dump, load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformanceConfig } from '../helpers/conformance.js';
import { startHttpGateway } from '../helpers/raw.js';
import { until } from '../helpers/reference.js';

const TOKEN = 'listen-personas-token-0123456789';
const PIN = { versionNegotiation: { mode: { pin: '2026-07-28' as const } } };
const PINNED = 'test_image_content';

describe('subscriptions/listen and a personas edit', () => {
  let child: ChildProcess;
  let url: URL;
  let stderr: () => string;
  let personasPath: string;
  const personas = (deny: string[]) => writeFileSync(personasPath, dump({ tester: { allow: ['*'], deny, confirm: 'none' } }));

  beforeAll(async () => {
    const config = conformanceConfig({ exposure: { pinned: [PINNED] }, http: { tokens: [{ token: TOKEN, persona: 'tester', user_id: 'u1' }] } });
    personasPath = join(dirname(config), 'personas.yaml');
    personas([]);
    writeFileSync(config, dump({ ...(load(readFileSync(config, 'utf8')) as object), policy: { personas: personasPath } }));
    ({ child, url, stderr } = await startHttpGateway(config));
  }, 120_000);
  afterAll(() => {
    child?.kill();
  });

  async function host(): Promise<Client> {
    const client = new Client({ name: 'listener', version: '1.0.0' }, PIN);
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    return client;
  }
  const listed = async () => {
    const fresh = await host();
    const names = (await fresh.listTools()).tools.map((t) => t.name);
    await fresh.close();
    return names;
  };
  const reloads = () => stderr().match(/configuration reloaded/g)?.length ?? 0;

  it('a listener is told when an edit denies its pinned tool and when it is allowed again, and not for an edit that leaves the list alone', { timeout: 120_000 }, async () => {
    const listener = await host();
    let changes = 0;
    listener.setNotificationHandler('notifications/tools/list_changed', () => {
      changes++;
    });
    expect(await listener.listTools().then((r) => r.tools.map((t) => t.name))).toEqual(['find_tools', 'call_tool', PINNED]);
    const stream: McpSubscription = await listener.listen({ toolsListChanged: true }, { timeout: 20_000 });

    // An edit that denies a tool nobody has pinned: no 2026 list changes.
    const before = reloads();
    personas(['conformance.test_audio_content']);
    await until(() => reloads() > before, 'the first reload');

    personas(['conformance.test_audio_content', `conformance.${PINNED}`]);
    await until(() => changes > 0, 'a tools list_changed after the pinned tool was denied');
    expect(changes).toBe(1);
    expect(await listed()).toEqual(['find_tools', 'call_tool']);

    personas([]);
    await until(() => changes > 1, 'a tools list_changed after the pinned tool was allowed again');
    expect(await listed()).toEqual(['find_tools', 'call_tool', PINNED]);

    await stream.close();
    await listener.close();
  });
});
