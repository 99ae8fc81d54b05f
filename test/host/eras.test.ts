/**
 * One gateway, two protocol eras, seen by real SDK clients: a 2026-07-28 client (pinned)
 * and a 2025-11-25 client on the same HTTP endpoint, and a 2026 client over stdio. The
 * 2026 host gets the static list whatever the configured mode (dynamic here), cache hints,
 * and a confirmation asked through input_required whose sealed state runs the call once:
 * replayed, forged or carried to other arguments, it runs nothing.
 */
import { Client, StreamableHTTPClientTransport, type CallToolResult, type Tool } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { CONFIRM_KEY } from '../../src/guards/confirmInput.js';
import { serveHttp, type HttpFace } from '../../src/host/http.js';
import { conformanceConfig } from '../helpers/conformance.js';
import { CLI, ROOT } from '../helpers/reference.js';

const TOKEN = 'eras-test-token-0123456789';
const names = (tools: Tool[]) => tools.map((t) => t.name);
const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;
const PIN = { versionNegotiation: { mode: { pin: '2026-07-28' as const } } };

/** A config whose test_simple_text needs confirmation (an action), dynamic exposure, one pinned tool. */
function config(): string {
  return conformanceConfig({
    exposure: { mode: 'dynamic', pinned: ['test_image_content'] },
    confirmation: { actions: ['conformance.test_simple_text'], read_only: ['conformance.*'] },
    http: { tokens: [{ token: TOKEN, persona: 'tester', user_id: 'u1', confirm_via: 'elicitation' }] },
  });
}

function http(face: HttpFace): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${face.port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } });
}

/** A 2026 client whose user answers every confirmation with `answer`; `asked` collects the questions. */
function modernHost(answer: 'accept' | 'decline', asked: string[]): Client {
  const client = new Client({ name: 'host-2026', version: '1.0.0' }, { ...PIN, capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler('elicitation/create', async (req) => {
    asked.push(req.params.message);
    return answer === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
  });
  return client;
}

describe('the HTTP face, both eras on one endpoint', () => {
  let gateway: Gateway;
  let face: HttpFace;
  beforeAll(async () => {
    gateway = await Gateway.start(loadConfig(config()), { noEmbedder: true });
    face = await serveHttp(gateway, 0, '127.0.0.1');
  }, 60_000);
  afterAll(async () => {
    await face?.close();
    await gateway?.close();
  });

  it('a 2026 host sees the static list with private cache hints; a 2025 host on the same endpoint keeps dynamic exposure', async () => {
    const modern = new Client({ name: 'host-2026', version: '1.0.0' }, PIN);
    await modern.connect(http(face));
    expect(modern.getProtocolEra()).toBe('modern');
    const listed = await modern.listTools();
    expect(names(listed.tools)).toEqual(['find_tools', 'call_tool', 'test_image_content']);
    expect(listed).toMatchObject({ ttlMs: 60_000, cacheScope: 'private' });
    const found = (await modern.callTool({ name: 'find_tools', arguments: { query: 'a simple text response', limit: 3 } })) as CallToolResult;
    // Full definitions in the result: it is the only place a 2026 host learns a found tool.
    expect((found.structuredContent as { tools: Tool[] }).tools.find((t) => t.name === 'test_simple_text')).toMatchObject({ title: 'Simple text', annotations: { readOnlyHint: true } });
    expect(names((await modern.listTools()).tools)).toEqual(['find_tools', 'call_tool', 'test_image_content']);

    const legacy = new Client({ name: 'host-2025', version: '1.0.0' });
    await legacy.connect(http(face));
    expect(legacy.getProtocolEra()).toBe('legacy');
    await legacy.callTool({ name: 'find_tools', arguments: { query: 'a simple text response', limit: 3 } });
    expect(names((await legacy.listTools()).tools)).toContain('test_simple_text');
    await Promise.all([modern.close(), legacy.close()]);
  });

  it('a 2026 host is not offered resource subscriptions, which its listen streams would never deliver; a 2025 host is', async () => {
    const modern = new Client({ name: 'host-2026', version: '1.0.0' }, PIN);
    await modern.connect(http(face));
    expect(modern.getServerCapabilities()?.resources).toEqual({ listChanged: true });
    const listening = await modern.listen({ resourcesListChanged: true, resourceSubscriptions: ['test://watched-resource'] });
    // The acknowledgement promises only what comes: list changes, no URI.
    expect(listening.honoredFilter.resourcesListChanged).toBe(true);
    expect(listening.honoredFilter.resourceSubscriptions ?? []).toEqual([]);
    await listening.close();
    const legacy = new Client({ name: 'host-2025', version: '1.0.0' });
    await legacy.connect(http(face));
    expect(legacy.getServerCapabilities()?.resources).toEqual({ listChanged: true, subscribe: true });
    await Promise.all([modern.close(), legacy.close()]);
  });

  it('confirms a 2026 call through input_required: accepted it runs, declined it does not', async () => {
    const asked: string[] = [];
    const yes = modernHost('accept', asked);
    await yes.connect(http(face));
    expect(text(await yes.callTool({ name: 'test_simple_text', arguments: {} }))).toBe('This is a simple text response for testing.');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/^Allow test_simple_text \(upstream conformance\) to run with these arguments\?/);
    const no = modernHost('decline', asked);
    await no.connect(http(face));
    const refused = (await no.callTool({ name: 'call_tool', arguments: { name: 'test_simple_text', arguments: {} } })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe('the user did not approve test_simple_text (decline); it has not run. Do not retry unless the user asks for it.');
    expect(asked).toHaveLength(2);
    await Promise.all([yes.close(), no.close()]);
  });

  it('a sealed state runs its call once: a replay, a forged state and an answer without the state run nothing', async () => {
    const host = new Client({ name: 'manual-2026', version: '1.0.0' }, { ...PIN, capabilities: { elicitation: { form: {} } }, inputRequired: { autoFulfill: false } });
    await host.connect(http(face));
    const call = (extra: Record<string, unknown>) => host.callTool({ name: 'test_simple_text', arguments: {}, ...extra } as never, { allowInputRequired: true });
    const first = (await call({})) as unknown as { resultType: string; inputRequests: Record<string, unknown>; requestState: string };
    expect(first.resultType).toBe('input_required');
    expect(Object.keys(first.inputRequests)).toEqual([CONFIRM_KEY]);
    expect(first.requestState).toMatch(/^tcs1\./);
    const yes = { [CONFIRM_KEY]: { action: 'accept', content: { confirm: true } } };
    // An answer without the gateway's state is no answer: asked again, nothing ran.
    expect(((await call({ inputResponses: yes })) as unknown as { resultType: string }).resultType).toBe('input_required');
    const forged = first.requestState.slice(0, -4) + (first.requestState.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    await expect(call({ inputResponses: yes, requestState: forged })).rejects.toThrow(/Invalid or expired requestState/);
    expect(text(await call({ inputResponses: yes, requestState: first.requestState }))).toBe('This is a simple text response for testing.');
    await expect(call({ inputResponses: yes, requestState: first.requestState })).rejects.toThrow(/Invalid or expired requestState/);
    const audit = (await gateway.store.audit.tail(20)).filter((a) => a.tool === 'test_simple_text' && a.outcome === 'ok');
    expect(audit.filter((a) => a.notes.includes('approved through input_required')).length).toBeGreaterThanOrEqual(1);
    await host.close();
  });
});

describe('the stdio face, a 2026 host', () => {
  it('negotiates 2026-07-28 on serve (stdio) and confirms through input_required', { timeout: 90_000 }, async () => {
    const asked: string[] = [];
    const host = modernHost('accept', asked);
    await host.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--config', config()], cwd: ROOT, stderr: 'ignore' }));
    expect(host.getProtocolEra()).toBe('modern');
    expect(names((await host.listTools()).tools)).toEqual(['find_tools', 'call_tool', 'test_image_content']);
    expect(text(await host.callTool({ name: 'test_simple_text', arguments: {} }))).toBe('This is a simple text response for testing.');
    expect(asked).toHaveLength(1);
    await host.close();
  });
});

