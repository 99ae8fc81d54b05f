/**
 * Resources, templates, prompts and completion through the built gateway, with the SDK's
 * real Client as host over stdio and over Streamable HTTP, fronting two real upstreams
 * (test/relay/fixtures): alpha over stdio, beta over Streamable HTTP, paginating every
 * list. What the host receives is compared with what the upstreams themselves send.
 */
import type { ChildProcess } from 'node:child_process';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS, directClients, httpGateway, mcpError, relayConfig, startBeta, stdioHost } from './setup.js';

const ALPHA_RESOURCES = ['docs://readme', 'shared://config', 'img://pixel', 'secret://keys', 'counter://value'];
const BETA_RESOURCES = [...Array.from({ length: 7 }, (_, i) => `beta://item/${i + 1}`), 'tool-curator://beta/shared://config'];
const TEMPLATES = ['notes://{topic}', 'files:///{path}', 'tool-curator://beta/files:///{path}', 'beta://item/{n}'];
const PROMPTS = ['greet', 'show_logo', 'summarize', 'internal_review', 'beta__summarize', 'beta_p1', 'beta_p2', 'beta_p3', 'beta_p4'];

const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

/** Every page of a list, with the size of each page. */
/** Every page of `method`, one request each (the SDK's list verbs would join them). */
async function allPages<T>(client: Client, method: 'resources/list' | 'resources/templates/list' | 'prompts/list', key: string): Promise<{ items: T[]; sizes: number[] }> {
  const items: T[] = [];
  const sizes: number[] = [];
  let cursor: string | undefined;
  do {
    const page: { nextCursor?: string } & Record<string, unknown> = await client.request({ method, params: cursor ? { cursor } : {} });
    const got = page[key] as T[];
    items.push(...got);
    sizes.push(got.length);
    cursor = page.nextCursor;
  } while (cursor);
  return { items, sizes };
}

/** Resolves with the URIs of the next `n` resources/updated notifications the host receives. */
function collectUpdates(client: Client): string[] {
  const got: string[] = [];
  client.setNotificationHandler('notifications/resources/updated', (n) => void got.push(n.params.uri));
  return got;
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!check()) throw new Error(`never happened: ${what}`);
}

interface Hosts {
  full: () => Client;
  limited: () => Client;
}

let betaProc: ChildProcess;
let betaUrl: string;
let direct: Awaited<ReturnType<typeof directClients>>;

beforeAll(async () => {
  ({ beta: betaProc, betaUrl } = await startBeta());
  direct = await directClients(betaUrl);
});
afterAll(async () => {
  await direct?.alpha.close();
  await direct?.beta.close();
  betaProc?.kill();
});

/** The assertions every host transport must pass. */
function relaySuite(hosts: Hosts): void {
  it('advertises resources (subscribe, listChanged), prompts and completions beside tools', () => {
    expect(hosts.full().getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      resources: { listChanged: true, subscribe: true },
      prompts: { listChanged: true },
      completions: {},
    });
  });

  it('resources/list merges both upstreams in config order, in pages of 4, items as the upstreams sent them', async () => {
    const { items, sizes } = await allPages<{ uri: string }>(hosts.full(), 'resources/list', 'resources');
    expect(items.map((r) => r.uri)).toEqual([...ALPHA_RESOURCES, ...BETA_RESOURCES]);
    expect(sizes).toEqual([4, 4, 4, 1]);
    const upstream = [...(await direct.alpha.listResources()).resources];
    expect(items.find((r) => r.uri === 'img://pixel')).toEqual(upstream.find((r) => r.uri === 'img://pixel'));
    expect(items.find((r) => r.uri === 'shared://config')).toEqual(upstream.find((r) => r.uri === 'shared://config'));
  });

  it('a cursor that is not the gateway\'s is refused with -32602', async () => {
    const err = await mcpError(hosts.full().listResources({ cursor: 'p3' }));
    expect(err.code).toBe(-32602);
    expect(err.message).toContain('invalid cursor for resources; list again without a cursor');
  });

  it('resources/read: text and binary content exactly as the upstream sends it', async () => {
    for (const uri of ['docs://readme', 'img://pixel', 'counter://value']) {
      expect(await hosts.full().readResource({ uri }), uri).toEqual(await direct.alpha.readResource({ uri }));
    }
    expect(await hosts.full().readResource({ uri: 'beta://item/6' })).toEqual(await direct.beta.readResource({ uri: 'beta://item/6' }));
    const blob = (await hosts.full().readResource({ uri: 'img://pixel' })).contents[0] as { blob: string };
    expect([...Buffer.from(blob.blob, 'base64')]).toEqual(Array.from({ length: 256 }, (_, i) => i));
  });

  it('a URI two upstreams share: bare, it is the first holder\'s; prefixed, it is the named upstream\'s', async () => {
    const a = await hosts.full().readResource({ uri: 'tool-curator://alpha/shared://config' });
    expect(a.contents).toEqual([{ uri: 'tool-curator://alpha/shared://config', mimeType: 'application/json', text: '{"owner":"alpha"}' }]);
    const b = await hosts.full().readResource({ uri: 'tool-curator://beta/shared://config' });
    expect(b.contents).toEqual([{ uri: 'tool-curator://beta/shared://config', mimeType: 'application/json', text: '{"owner":"beta"}' }]);
    const bare = await hosts.full().readResource({ uri: 'shared://config' });
    expect(bare.contents).toEqual([{ uri: 'shared://config', mimeType: 'application/json', text: '{"owner":"alpha"}' }]);
  });

  it("an upstream's own error reaches the host with its code and message", async () => {
    const viaGateway = await mcpError(hosts.full().readResource({ uri: 'tool-curator://beta/nope://x' }));
    const fromBeta = await mcpError(direct.beta.readResource({ uri: 'nope://x' }));
    expect([viaGateway.code, viaGateway.message]).toEqual([-32602, fromBeta.message]);
    expect(fromBeta.message).toBe('Resource not found: nope://x');
  });

  it('resources/templates/list merges paginated templates; a template URI reads from its owner', async () => {
    const { items } = await allPages<{ uriTemplate: string }>(hosts.full(), 'resources/templates/list', 'resourceTemplates');
    expect(items.map((t) => t.uriTemplate)).toEqual(TEMPLATES);
    expect((await hosts.full().readResource({ uri: 'notes://physics' })).contents).toEqual([{ uri: 'notes://physics', mimeType: 'text/plain', text: 'notes on physics' }]);
    expect((await hosts.full().readResource({ uri: 'tool-curator://beta/files:///x.txt' })).contents).toEqual([{ uri: 'tool-curator://beta/files:///x.txt', mimeType: 'text/plain', text: 'beta:x.txt' }]);
    expect((await hosts.full().readResource({ uri: 'tool-curator://alpha/files:///x.txt' })).contents).toEqual([{ uri: 'tool-curator://alpha/files:///x.txt', mimeType: 'text/plain', text: 'alpha:x.txt' }]);
    expect(await hosts.full().readResource({ uri: 'beta://item/42' })).toEqual(await direct.beta.readResource({ uri: 'beta://item/42' }));
  });

  it('prompts/list merges both upstreams, the later holder of a name prefixed by its server', async () => {
    const { items, sizes } = await allPages<{ name: string }>(hosts.full(), 'prompts/list', 'prompts');
    expect(items.map((p) => p.name)).toEqual(PROMPTS);
    expect(sizes).toEqual([4, 4, 1]);
    const greet = (await direct.alpha.listPrompts()).prompts.find((p) => p.name === 'greet');
    expect(items[0]).toEqual(greet);
  });

  it('prompts/get with arguments, image and embedded resource, exactly as the upstream answers', async () => {
    expect(await hosts.full().getPrompt({ name: 'greet', arguments: { name: 'Ada' } })).toEqual(await direct.alpha.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }));
    const logo = await hosts.full().getPrompt({ name: 'show_logo' });
    expect(logo).toEqual(await direct.alpha.getPrompt({ name: 'show_logo' }));
    expect(logo.messages.map((m) => m.content.type)).toEqual(['image', 'resource']);
    expect(await hosts.full().getPrompt({ name: 'beta_p3' })).toEqual(await direct.beta.getPrompt({ name: 'beta_p3' }));
  });

  it('a shared prompt name is the first holder\'s; the prefixed one goes to the later holder, under its own name', async () => {
    const a = await hosts.full().getPrompt({ name: 'summarize', arguments: { text: 'the minutes' } });
    expect(a.messages[0]!.content).toEqual({ type: 'text', text: 'alpha summary of the minutes' });
    const b = await hosts.full().getPrompt({ name: 'beta__summarize', arguments: { text: 'the minutes' } });
    expect(b.messages[0]!.content).toEqual({ type: 'text', text: 'beta summary of the minutes' });
    const err = await mcpError(hosts.full().getPrompt({ name: 'alpha__summarize', arguments: { text: 'x' } }));
    expect(err.code).toBe(-32602);
  });

  it('completion/complete is routed by its ref: prompt names and template URIs, prefixed or not', async () => {
    const prompt = await hosts.full().complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'A' } });
    expect(prompt.completion.values).toEqual(['Ada', 'Alan']);
    const notes = await hosts.full().complete({ ref: { type: 'ref/resource', uri: 'notes://{topic}' }, argument: { name: 'topic', value: 'al' } });
    expect(notes.completion.values).toEqual(['algebra', 'alpha']);
    const files = await hosts.full().complete({ ref: { type: 'ref/resource', uri: 'tool-curator://beta/files:///{path}' }, argument: { name: 'path', value: 'beta' } });
    expect(files.completion).toEqual({ values: ['beta-a.txt', 'beta-b.txt'], total: 2, hasMore: false });
    const summarize = await hosts.full().complete({ ref: { type: 'ref/prompt', name: 'beta__summarize' }, argument: { name: 'text', value: '' } });
    expect(summarize.completion.values).toEqual(['beta-text']);
  });

  it('a denied resource or prompt is neither listed nor readable, gettable, completable or subscribable; errors name nothing else', async () => {
    const limited = hosts.limited();
    const { items } = await allPages<{ uri: string }>(limited, 'resources/list', 'resources');
    expect(items.map((r) => r.uri)).toEqual(['docs://readme', 'shared://config', 'img://pixel', 'counter://value']);
    const templates = (await allPages<{ uriTemplate: string }>(limited, 'resources/templates/list', 'resourceTemplates')).items;
    expect(templates.map((t) => t.uriTemplate)).toEqual(['notes://{topic}', 'files:///{path}', 'beta://item/{n}']);
    // Not listed, but the allowed template beta://item/{n} covers it.
    expect((await limited.readResource({ uri: 'beta://item/2' })).contents[0]).toMatchObject({ text: 'beta item 2' });

    for (const uri of ['secret://keys', 'tool-curator://beta/shared://config', 'tool-curator://beta/files:///x.txt']) {
      const err = await mcpError(limited.readResource({ uri }));
      expect(err.code, uri).toBe(-32602);
      expect(err.message, uri).toBe(`Resource not found: ${uri}`);
      expect((await mcpError(limited.subscribeResource({ uri }))).code, uri).toBe(-32602);
    }
    const names = (await allPages<{ name: string }>(limited, 'prompts/list', 'prompts')).items.map((p) => p.name);
    expect(names).toEqual(PROMPTS.filter((n) => n !== 'internal_review'));
    const get = await mcpError(limited.getPrompt({ name: 'internal_review' }));
    expect(get.message).toBe('unknown prompt internal_review; prompts/list shows the prompts you may use');
    const complete = await mcpError(limited.complete({ ref: { type: 'ref/prompt', name: 'internal_review' }, argument: { name: 'x', value: '' } }));
    expect(complete.message).toBe('unknown prompt internal_review; nothing to complete');
    const beyond = await mcpError(limited.complete({ ref: { type: 'ref/resource', uri: 'tool-curator://beta/files:///{path}' }, argument: { name: 'path', value: '' } }));
    expect(beyond.message).toBe('unknown resource template tool-curator://beta/files:///{path}; nothing to complete');
  });

  it('subscribe: resources/updated reaches the subscribed host; unsubscribe reaches the upstream', async () => {
    const host = hosts.full();
    const updates = collectUpdates(host);
    await host.subscribeResource({ uri: 'counter://value' });
    await host.callTool({ name: 'call_tool', arguments: { name: 'bump', arguments: {} } });
    await until(() => updates.length === 1, 'resources/updated after bump');
    expect(updates).toEqual(['counter://value']);
    await host.unsubscribeResource({ uri: 'counter://value' });
    const log = JSON.parse(text(await host.callTool({ name: 'call_tool', arguments: { name: 'subscription_log', arguments: {} } }))) as string[];
    expect(log.slice(-2)).toEqual(['subscribe counter://value', 'unsubscribe counter://value']);
  });

  it('an upstream list_changed refreshes the aggregate and reaches the host', async () => {
    const host = hosts.full();
    let prompts = 0;
    let resources = 0;
    host.setNotificationHandler('notifications/prompts/list_changed', () => void prompts++);
    host.setNotificationHandler('notifications/resources/list_changed', () => void resources++);
    await host.callTool({ name: 'call_tool', arguments: { name: 'add_prompt', arguments: {} } });
    await until(() => prompts > 0, 'prompts list_changed');
    const names = (await allPages<{ name: string }>(host, 'prompts/list', 'prompts')).items.map((p) => p.name);
    expect(names).toEqual([...PROMPTS.slice(0, 4), 'late_prompt', ...PROMPTS.slice(4)]);
    await host.callTool({ name: 'call_tool', arguments: { name: 'add_resource', arguments: {} } });
    await until(() => resources > 0, 'resources list_changed');
    const uris = (await allPages<{ uri: string }>(host, 'resources/list', 'resources')).items.map((r) => r.uri);
    expect(uris).toEqual([...ALPHA_RESOURCES, 'docs://late', ...BETA_RESOURCES]);
  });
}

describe('host over stdio', () => {
  const clients: Record<string, Client> = {};
  beforeAll(async () => {
    const configPath = relayConfig(betaUrl);
    [clients.full, clients.limited] = await Promise.all([stdioHost(configPath, 'full'), stdioHost(configPath, 'limited')]);
  });
  afterAll(async () => {
    await Promise.all(Object.values(clients).map((c) => c.close()));
  });
  relaySuite({ full: () => clients.full!, limited: () => clients.limited! });
});

describe('host over Streamable HTTP', () => {
  const clients: Record<string, Client> = {};
  let gateway: Awaited<ReturnType<typeof httpGateway>>;
  beforeAll(async () => {
    gateway = await httpGateway(relayConfig(betaUrl));
    [clients.full, clients.limited, clients.other] = await Promise.all([gateway.host(TOKENS.full), gateway.host(TOKENS.limited), gateway.host(TOKENS.full)]);
  });
  afterAll(async () => {
    await Promise.all(Object.values(clients).map((c) => c.close()));
    gateway?.child.kill();
  });
  relaySuite({ full: () => clients.full!, limited: () => clients.limited! });

  it('subscriptions are counted across sessions: one upstream subscribe, updates only to subscribers, unsubscribe when the last leaves', async () => {
    const [a, b] = [clients.full!, clients.other!];
    const logOf = async () => JSON.parse(text(await a.callTool({ name: 'call_tool', arguments: { name: 'subscription_log', arguments: {} } }))) as string[];
    const before = (await logOf()).length;
    const toA = collectUpdates(a);
    const toB = collectUpdates(b);
    await a.subscribeResource({ uri: 'counter://value' });
    await a.callTool({ name: 'call_tool', arguments: { name: 'bump', arguments: {} } });
    await until(() => toA.length === 1, 'update to a');
    await b.subscribeResource({ uri: 'counter://value' });
    await a.callTool({ name: 'call_tool', arguments: { name: 'bump', arguments: {} } });
    await until(() => toA.length === 2 && toB.length === 1, 'second update to a and b');
    // b's stream is ordered: had the first update reached b, it would be here before the second.
    expect(toB).toEqual(['counter://value']);
    await a.unsubscribeResource({ uri: 'counter://value' });
    expect((await logOf()).slice(before)).toEqual(['subscribe counter://value']);
    await b.unsubscribeResource({ uri: 'counter://value' });
    expect((await logOf()).slice(before)).toEqual(['subscribe counter://value', 'unsubscribe counter://value']);
  });
});
