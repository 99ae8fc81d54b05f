/**
 * A per-user 2025 upstream that asks during a call, for a 2026 host (gateway/consent.ts
 * `withUpstreamInput`, relay/bridge.ts; docs/PROTOCOL.md, "Questions across eras"): a real
 * OAuth-protected upstream held to 2025-11-25, whose tool `title_note` asks the user for
 * a title by a request of its own (`elicitation/create`) and answers for the account of
 * the token that called it; the gateway's HTTP face with a real OpenID provider; v2 SDK
 * clients pinned to 2026-07-28 as hosts. Each user's call goes out with that user's own
 * upstream account, the question comes back to that user's host as `input_required`, and
 * the answer reaches the waiting upstream request: the tool runs once per call.
 */
import { randomUUID } from 'node:crypto';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { McpServer } from '@modelcontextprotocol/server';
import type { Request, Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPerUserGateway, text, type PerUserGateway } from '../helpers/perUser.js';
import { BACKENDS, setupBackends } from '../helpers/stores.js';

setupBackends();

const PERSONAS = `staff:
  allow: ["tracker.*"]
  confirm: none
`;

/** The upstream's MCP side: stateful 2025 sessions, one tool that asks before it answers; `runs` counts its runs. */
function askingTracker() {
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  const counts = { runs: 0 };
  const serve = async (req: Request, res: Response, body?: unknown) => {
    const sid = req.headers['mcp-session-id'];
    const known = typeof sid === 'string' ? sessions.get(sid) : undefined;
    if (known) return known.handleRequest(req, res, body);
    if (sid !== undefined) return void res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (id) => void sessions.set(id, transport) });
    const server = new McpServer({ name: 'asking-tracker', version: '1.0.0' });
    server.registerTool('title_note', { description: 'Files a note under the title the user gives when asked', annotations: { readOnlyHint: true } }, async (ctx) => {
      counts.runs++;
      const answer = await ctx.mcpReq.send({
        method: 'elicitation/create',
        params: { mode: 'form', message: 'Title of the note?', requestedSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] } },
      });
      const title = answer.action === 'accept' ? String(answer.content?.title) : `(${answer.action})`;
      return { content: [{ type: 'text', text: `note "${title}" filed for ${String(ctx.http?.authInfo?.extra?.account)}` }] };
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
  return { serve, counts };
}

interface Asked {
  resultType: string;
  inputRequests: Record<string, { method: string; params: { message?: string } }>;
  requestState: string;
}

describe('a per-user 2025 upstream asks a 2026 host', () => {
  let g: PerUserGateway;
  const tracker = askingTracker();
  const hosts: Client[] = [];

  beforeAll(async () => {
    g = await startPerUserGateway(BACKENDS[0]!, PERSONAS, ['alice', 'bob'], [], { mcp: tracker.serve, protocol: '2025-11-25' });
    // Each user connects their own account first (a 2025 host with URL elicitation: the consent link).
    for (const [user, account] of [['alice', 'alice-acct'], ['bob', 'bob-acct']] as const) {
      const consenting = await g.host(user, account);
      const first = (await consenting.client.callTool({ name: 'call_tool', arguments: { name: 'title_note', arguments: {} } }, { timeout: 300_000 })) as CallToolResult;
      expect(consenting.asked.length, text(first)).toBe(1);
      await consenting.client.close();
    }
  }, 300_000);

  afterAll(async () => {
    await Promise.all(hosts.map((h) => h.close().catch(() => undefined)));
    await g?.close();
  });

  /** The form questions the hosts were asked, by client. */
  const questions = new Map<Client, string[]>();

  /** A 2026 host signed in as `user` (a 2025 one with `legacy`); `title` answers the form question, unless `manual` (the SDK hands input_required back). */
  async function host2026(user: string, title?: string, manual = false, legacy = false): Promise<Client> {
    const now = Math.floor(Date.now() / 1000);
    const token = await g.idp.mint({ iss: g.idp.issuer, aud: `${g.base}/mcp`, sub: user, scope: 'mcp:tools', groups: ['staff'], iat: now, exp: now + 600 });
    const client = new Client(
      { name: `host-2026-of-${user}`, version: '1.0.0' },
      { versionNegotiation: { mode: legacy ? 'legacy' : { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} } }, ...(manual && { inputRequired: { autoFulfill: false } }) },
    );
    questions.set(client, []);
    client.setRequestHandler('elicitation/create', async (req) => {
      questions.get(client)!.push(req.params.message);
      return { action: 'accept', content: { title: title ?? 'unset' } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${g.base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    expect(client.getProtocolEra()).toBe(legacy ? 'legacy' : 'modern');
    hosts.push(client);
    return client;
  }

  const titleNote = (client: Client, extra: Record<string, unknown> = {}, manual = false) =>
    client.callTool({ name: 'call_tool', arguments: { name: 'title_note', arguments: {} }, ...extra } as never, { timeout: 120_000, ...(manual && { allowInputRequired: true }) }) as Promise<unknown>;

  it("each user's host answers the question and gets the result of that user's own account; the tool runs once per call", { timeout: 300_000 }, async () => {
    const alice = await host2026('alice', 'Quarterly plan');
    const bob = await host2026('bob', 'Rota');
    const before = tracker.counts.runs;
    expect(text((await titleNote(alice)) as CallToolResult)).toBe('note "Quarterly plan" filed for alice-acct');
    expect(text((await titleNote(bob)) as CallToolResult)).toBe('note "Rota" filed for bob-acct');
    expect(tracker.counts.runs - before).toBe(2);
    // The question reads as the configured upstream's, never with the user's connection key (issuer and subject).
    expect(questions.get(alice)).toEqual(['[tracker asks] Title of the note?']);
  });

  it('a 2025 host of the same user is asked by a request of the gateway, marked the same way', { timeout: 300_000 }, async () => {
    const alice = await host2026('alice', 'Agenda', false, true);
    expect(text((await titleNote(alice)) as CallToolResult)).toBe('note "Agenda" filed for alice-acct');
    expect(questions.get(alice)).toEqual(['[tracker asks] Title of the note?']);
  });

  it("by hand: the question comes as input_required under a sealed state that another user's host cannot continue", { timeout: 300_000 }, async () => {
    const alice = await host2026('alice', undefined, true);
    const bob = await host2026('bob', undefined, true);
    const asked = (await titleNote(alice, {}, true)) as Asked;
    expect(asked.resultType).toBe('input_required');
    expect(Object.keys(asked.inputRequests)).toEqual(['q1']);
    expect(asked.inputRequests.q1).toMatchObject({ method: 'elicitation/create', params: { message: '[tracker asks] Title of the note?' } });
    const answer = { q1: { action: 'accept', content: { title: 'Minutes' } } };
    // Bob holds Alice's state: refused before anything reaches the upstream, and Alice's call still waits for her.
    await expect(titleNote(bob, { inputResponses: answer, requestState: asked.requestState }, true)).rejects.toThrow(/requestState/);
    const done = (await titleNote(alice, { inputResponses: answer, requestState: asked.requestState }, true)) as CallToolResult;
    expect(text(done)).toBe('note "Minutes" filed for alice-acct');
  });
});
