/**
 * Two SDK generations as hosts of one gateway: a v1 SDK client (`@modelcontextprotocol/sdk`,
 * 2025-11-25 only, sessions) and a v2 SDK client pinned to 2026-07-28 (stateless), connected
 * at the same time. Each finds tools, runs a call that needs its user's confirmation, and
 * answers an upstream's elicitation relayed by the gateway: the v1 client as an
 * elicitation/create request on its session, the v2 client as an input_required result its
 * SDK fulfils through its elicitation handler. The upstream is the 2026 conformance upstream,
 * which asks a 2025 host's question through input_required too (the gateway's client fulfils
 * it through the host's session) — docs/PROTOCOL.md, "Questions across eras".
 *
 * Over stdio a gateway process serves one host, so there each client spawns `serve` on the
 * same config (one store) and both run side by side. Behind a 2025-only upstream, which
 * asks by a request of its own, the 2026 host is asked through input_required too: the
 * gateway holds the upstream's question and its call until the retry (relay/bridge.ts).
 */
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, SERVER_INFO_META_KEY, type CallToolResult, type ElicitRequestFormParams } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioClientTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { serveHttp, type HttpFace } from '../../src/host/http.js';
import { conformanceConfig, UPSTREAM_JS } from '../helpers/conformance.js';
import { CLI, ROOT } from '../helpers/reference.js';

const TOKEN = 'clients-test-token-0123456789';
const UPSTREAM_2026_JS = join(ROOT, 'dist/test/conformance/upstream2026.js');
const SIMPLE_TEXT = 'This is a simple text response for testing.';
const CONFIRMATION = /^Allow test_simple_text \(upstream conformance\) to run with these arguments\?/;

/** What one host's user is asked and answers: the gateway's confirmations, the upstream's form. */
interface User {
  asked: string[];
  answer(params: ElicitRequestFormParams): { action: 'accept'; content: Record<string, string | boolean> };
}

/** A user who approves every confirmation and fills the upstream's form with `username`. */
function user(username: string): User {
  const asked: string[] = [];
  return {
    asked,
    answer(params) {
      asked.push(params.message);
      const isConfirmation = Object.keys(params.requestedSchema.properties).includes('confirm');
      const content: Record<string, string | boolean> = isConfirmation ? { confirm: true } : { username, email: `${username}@example.com` };
      return { action: 'accept', content };
    },
  };
}

/** The v1 SDK host (2025-11-25 only): the gateway's questions arrive as elicitation/create requests. */
function v1Host(who: User): ClientV1 {
  const client = new ClientV1({ name: 'host-sdk-v1', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (req) => who.answer(req.params as ElicitRequestFormParams));
  return client;
}

/** The v2 SDK host pinned to 2026-07-28: its SDK fulfils input_required through this handler. */
function v2Host(who: User): Client {
  const client = new Client({ name: 'host-sdk-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler('elicitation/create', async (req) => who.answer(req.params as ElicitRequestFormParams));
  return client;
}

/** The part of the two clients' surfaces this test uses (their result types differ only in optional fields). */
interface Host {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
}

const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

/** The names of the tools a find_tools result shows. */
async function find(host: Host, query: string): Promise<string[]> {
  const found = (await host.callTool({ name: 'find_tools', arguments: { query, limit: 5 } })) as CallToolResult;
  expect(found.isError).toBeFalsy();
  return (found.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name);
}

/** One connected host: its client, its user, how it sees the upstream's question to `username`. */
interface Connected {
  client: Host;
  user: User;
}

/** An upstream's question as either host's user sees it: marked as the upstream's, never as the gateway's own confirmation. */
const marked = (message: string) => `[conformance asks] ${message}`;

/**
 * Both hosts, connected together: each finds tools, runs a confirmed call, answers the upstream's
 * form. The calls that ask run one after the other: an upstream question of a 2025 host is routed
 * to the one session with a call in flight to that upstream (docs/PROTOCOL.md).
 */
async function exercise(v1: Connected, v2: Connected): Promise<void> {
  const [v1Found, v2Found] = await Promise.all([find(v1.client, 'a simple text response'), find(v2.client, 'a simple text response')]);
  expect(v1Found).toContain('test_simple_text');
  expect(v2Found).toContain('test_simple_text');
  expect(await find(v1.client, 'ask the user for a username and an email address')).toContain('test_elicitation');
  expect(await find(v2.client, 'ask the user for a username and an email address')).toContain('test_elicitation');

  for (const host of [v1, v2]) {
    const simple = (await host.client.callTool({ name: 'test_simple_text', arguments: {} })) as CallToolResult;
    expect(text(simple)).toBe(SIMPLE_TEXT);
    expect(host.user.asked).toEqual([expect.stringMatching(CONFIRMATION)]);
    // The 2026 upstream names itself in its result; the host is told the gateway answered (and the 2025 host is told nothing).
    expect(simple._meta?.[SERVER_INFO_META_KEY]).toEqual(host === v2 ? expect.objectContaining({ name: 'tool-curator' }) : undefined);
  }

  for (const [host, name] of [
    [v1, 'ada'],
    [v2, 'grace'],
  ] as const) {
    const question = `Who is at the keyboard, ${name}?`;
    const answered = await host.client.callTool({ name: 'test_elicitation', arguments: { message: question } });
    expect(text(answered)).toBe(`Elicitation completed: action=accept, content={"username":"${name}","email":"${name}@example.com"}`);
    expect(host.user.asked.slice(1)).toEqual([marked(question)]);
  }
}

/** test_simple_text needs confirmation, asked by elicitation; the upstream (a conformance upstream's script) runs over stdio. */
function config(upstream = UPSTREAM_2026_JS): string {
  return conformanceConfig({
    upstreams: { conformance: { command: process.execPath, args: [upstream] } },
    confirmation: { actions: ['conformance.test_simple_text'], read_only: ['conformance.*'] },
    http: { tokens: [{ token: TOKEN, persona: 'tester', user_id: 'u1', confirm_via: 'elicitation' }] },
  });
}

/** Both hosts, not yet connected, each with its user. */
interface Pair {
  old: ClientV1;
  modern: Client;
  v1User: User;
  v2User: User;
}

/** Connects a fresh pair at the same time through `connect`, runs `body`, closes both. */
async function withPair(connect: (p: Pair) => [Promise<void>, Promise<void>], body: (p: Pair) => Promise<void>): Promise<void> {
  const v1User = user('ada');
  const v2User = user('grace');
  const p = { old: v1Host(v1User), modern: v2Host(v2User), v1User, v2User };
  await Promise.all(connect(p));
  try {
    await body(p);
  } finally {
    await Promise.all([p.old.close(), p.modern.close()]);
  }
}

/** The pair's v1 client is on 2025-11-25 with the gateway, its v2 client on 2026-07-28, and both pass exercise(). */
async function bothServed({ old, modern, v1User, v2User }: Pair): Promise<void> {
  expect(old.getServerVersion()?.name).toBe('tool-curator');
  expect(modern.getProtocolEra()).toBe('modern');
  await exercise({ client: old, user: v1User }, { client: modern, user: v2User });
}

/** An in-process gateway over `upstream`, served over HTTP for the enclosing describe; the HTTP connect of a pair to it. */
function httpGateway(upstream?: string): { gateway: () => Gateway; connect: (p: Pair) => [Promise<void>, Promise<void>] } {
  let gateway: Gateway;
  let face: HttpFace;
  beforeAll(async () => {
    gateway = await Gateway.start(loadConfig(config(upstream)), { noEmbedder: true });
    face = await serveHttp(gateway, 0, '127.0.0.1');
  }, 120_000);
  afterAll(async () => {
    await face?.close();
    await gateway?.close();
  });
  const init = () => ({ requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } });
  const url = () => new URL(`http://127.0.0.1:${face.port}/mcp`);
  return {
    gateway: () => gateway,
    connect: (p) => [p.old.connect(new StreamableHTTPClientTransportV1(url(), init())), p.modern.connect(new StreamableHTTPClientTransport(url(), init()))],
  };
}

describe('a v1 and a v2 SDK client on one gateway', () => {
  const served = httpGateway();

  it('HTTP: both connect to one endpoint, find tools, confirm a call and answer a relayed elicitation', { timeout: 120_000 }, async () => {
    await withPair(served.connect, async (p) => {
      await bothServed(p);
      // Each host's confirmation went its era's way: a request on the v1 session, input_required to the v2 client.
      const audit = await served.gateway().store.audit.tail(20);
      const approvals = audit.filter((a) => a.tool === 'test_simple_text' && a.outcome === 'ok').flatMap((a) => a.notes.filter((n) => n.startsWith('approved')));
      expect(approvals.sort()).toEqual(['approved through elicitation', 'approved through input_required']);
    });
  });

  it("HTTP: a tool whose upstream needs a capability neither host declared (sampling) runs for neither: the 2026 host gets -32021 naming it, the 2025 host a result", { timeout: 120_000 }, async () => {
    await withPair(served.connect, async ({ old, modern }) => {
      const refused = (await old.callTool({ name: 'test_missing_capability', arguments: {} })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(text(refused)).toBe('test_missing_capability needs a capability this app did not declare (sampling); it has not run');
      const err = await modern.callTool({ name: 'test_missing_capability', arguments: {} }).then(
        () => undefined,
        (e: { code?: number; data?: unknown }) => e,
      );
      expect(err?.code).toBe(-32021);
      expect(err?.data).toMatchObject({ requiredCapabilities: { sampling: {} } });
    });
  });

  it('stdio: each spawns serve on the same config, side by side, with the same results', { timeout: 120_000 }, async () => {
    const spawn = { command: process.execPath, args: [CLI, 'serve', '--config', config()], cwd: ROOT, stderr: 'ignore' as const };
    await withPair((p) => [p.old.connect(new StdioClientTransportV1(spawn)), p.modern.connect(new StdioClientTransport(spawn))], bothServed);
  });
});

/**
 * Behind a 2025-only upstream (upstream.ts) the upstream asks by a request of its own: the v1
 * host's session gets it; a 2026 host has no session to ask, so the gateway holds the question
 * and the upstream's call, answers input_required, and the retry's answer goes to the upstream
 * (docs/PROTOCOL.md, "Questions across eras": 2026 host, 2025 upstream).
 */
describe('a v1 and a v2 SDK client on one gateway, a 2025 upstream', () => {
  const served = httpGateway(UPSTREAM_JS);

  it("HTTP: each client answers the upstream's elicitation, the v1 client on its session, the v2 client through input_required", { timeout: 120_000 }, async () => {
    await withPair(served.connect, async ({ old, modern, v1User, v2User }) => {
      const answered = await old.callTool({ name: 'test_elicitation', arguments: { message: 'Who is at the keyboard, ada?' } });
      expect(text(answered)).toBe('Elicitation completed: action=accept, content={"username":"ada","email":"ada@example.com"}');
      expect(v1User.asked).toEqual([marked('Who is at the keyboard, ada?')]);
      const bridged = (await modern.callTool({ name: 'test_elicitation', arguments: { message: 'Who is at the keyboard, grace?' } })) as CallToolResult;
      expect(bridged.isError).toBeFalsy();
      expect(text(bridged)).toBe('Elicitation completed: action=accept, content={"username":"grace","email":"grace@example.com"}');
      expect(v2User.asked).toEqual([marked('Who is at the keyboard, grace?')]);
    });
  });
});
