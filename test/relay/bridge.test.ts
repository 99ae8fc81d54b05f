/**
 * A 2025 upstream's questions for a 2026 host (src/relay/bridge.ts; docs/PROTOCOL.md,
 * "Questions across eras"): the relay fixture upstream held to 2025-11-25 (`protocol`), so
 * it asks by requests of its own during a call (elicitation/create, sampling/createMessage,
 * roots/list), the built gateway over Streamable HTTP and over stdio, and v2 SDK clients
 * pinned to 2026-07-28. The gateway holds each question and the upstream's call, answers
 * the host `input_required`, and the retry's answers go to the upstream's waiting requests:
 * the tool runs once. A host whose SDK fulfils input_required sees the same results a 2025
 * host does; a host that retries by hand is held to the sealed state (the same request,
 * once), and a question it leaves out is refused to the upstream. prompts/get and
 * resources/read of a 2025 upstream that asks while it works (fixtures/askingLegacy.ts) go
 * the same way.
 */
import { Client, StreamableHTTPClientTransport, type CallToolResult, type ClientCapabilities } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { connectGateway, ROOT } from '../helpers/reference.js';
import { DIARY_URI } from './fixtures/askingLegacy.js';
import { FULL_HOST, httpGateway, json, observations, record, relayConfig, ROOTS, stdioUpstream, text, TOKENS, httpTokens, type Host } from './harness.js';

const PIN = { versionNegotiation: { mode: { pin: '2026-07-28' as const } } };
/** The upstream waits for the host's retry: its call must not time out meanwhile on a loaded machine. */
/** A second token of the first token's persona, naming no user either. */
const TWIN = 'relay-token-twin-0123456789abcdef';
const config = () =>
  relayConfig({ ...stdioUpstream(), protocol: '2025-11-25' }, { http: { tokens: [...httpTokens.http.tokens, { token: TWIN, persona: 'host0' }] }, timeouts: { call_ms: 60_000, call_max_ms: 120_000 } });

interface Asked {
  resultType: string;
  inputRequests: Record<string, { method: string; params: Record<string, unknown> }>;
  requestState: string;
}

describe("a 2025 upstream's questions for a 2026 host, over HTTP", () => {
  let gateway: { base: string; stop: () => void };
  beforeAll(async () => {
    gateway = await httpGateway(config());
  }, 120_000);
  afterAll(() => gateway?.stop());

  /** A 2026 host; `manual`: its SDK hands back input_required instead of answering it. */
  const host = async (capabilities: ClientCapabilities = FULL_HOST, manual = false, token = TOKENS[0]!): Promise<Host> => {
    const client = new Client({ name: 'host-2026', version: '1.0.0' }, { ...PIN, capabilities, ...(manual && { inputRequired: { autoFulfill: false } }) });
    const h = record(client, capabilities);
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.base), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    expect(client.getProtocolEra()).toBe('modern');
    return h;
  };

  it("the host's SDK answers each question and gets the tool's result, as a 2025 host would", { timeout: 120_000 }, async () => {
    const h = await host();
    h.answerForm = async () => ({ action: 'accept', content: { name: 'Grace' } });
    expect(json(await h.client.callTool({ name: 'elicit_form', arguments: { message: 'Who is there?' } }))).toEqual({ action: 'accept', content: { name: 'Grace', color: 'green' } });
    expect(h.received.elicitations.map((e) => e.message)).toEqual(['[fixture asks] Who is there?']);
    const sampled = json(await h.client.callTool({ name: 'sample', arguments: { prompt: 'hello' } }));
    expect(sampled).toMatchObject({ model: 'test-model', content: { type: 'text', text: 'echo: hello' } });
    expect(json(await h.client.callTool({ name: 'roots', arguments: {} }))).toEqual({ roots: ROOTS });
    await h.close();
  });

  it('by hand: input_required with the question under a sealed state; the retry runs nothing twice and the state is spent', { timeout: 120_000 }, async () => {
    const h = await host(FULL_HOST, true);
    const call = (extra: Record<string, unknown> = {}) =>
      h.client.callTool({ name: 'elicit_form', arguments: { message: 'Your name?' }, ...extra } as never, { allowInputRequired: true }) as Promise<unknown>;
    const first = (await call()) as Asked;
    expect(first.resultType).toBe('input_required');
    expect(Object.keys(first.inputRequests)).toEqual(['q1']);
    expect(first.inputRequests.q1).toMatchObject({ method: 'elicitation/create', params: { mode: 'form', message: '[fixture asks] Your name?' } });
    expect(first.requestState).toMatch(/^tcs1\./);
    const answer = { q1: { action: 'accept', content: { name: 'Linus', color: 'red' } } };
    const done = (await call({ inputResponses: answer, requestState: first.requestState })) as CallToolResult;
    expect(json(done)).toEqual({ action: 'accept', content: { name: 'Linus', color: 'red' } });
    // Spent: the same state again is refused before anything reaches the upstream.
    await expect(call({ inputResponses: answer, requestState: first.requestState })).rejects.toThrow(/Invalid or expired requestState/);
    await h.close();
  });

  it("another token of the same persona cannot continue the call: its retry is refused and the owner's still works", { timeout: 120_000 }, async () => {
    const [owner, twin] = [await host(FULL_HOST, true), await host(FULL_HOST, true, TWIN)];
    const call = (h: Host, extra: Record<string, unknown> = {}) =>
      h.client.callTool({ name: 'elicit_form', arguments: { message: 'Whose call?' }, ...extra } as never, { allowInputRequired: true }) as Promise<unknown>;
    const asked = (await call(owner)) as Asked;
    const answer = { q1: { action: 'accept', content: { name: 'Mallory' } } };
    await expect(call(twin, { inputResponses: answer, requestState: asked.requestState })).rejects.toThrow(/Invalid or expired requestState/);
    const done = (await call(owner, { inputResponses: { q1: { action: 'accept', content: { name: 'Olive' } } }, requestState: asked.requestState })) as CallToolResult;
    expect(json(done)).toEqual({ action: 'accept', content: { name: 'Olive', color: 'green' } });
    await Promise.all([owner.close(), twin.close()]);
  });

  it('by hand: a retry that leaves the question out refuses it to the upstream, which says so in its result', { timeout: 120_000 }, async () => {
    const h = await host(FULL_HOST, true);
    const first = (await h.client.callTool({ name: 'elicit_form', arguments: {} }, { allowInputRequired: true })) as unknown as Asked;
    expect(first.inputRequests.q1?.method).toBe('elicitation/create');
    const done = (await h.client.callTool({ name: 'elicit_form', arguments: {}, inputResponses: {}, requestState: first.requestState } as never, { allowInputRequired: true })) as CallToolResult;
    expect(done.isError).toBe(true);
    expect(json(done)).toEqual({ code: -32600, message: "the host's retry did not answer elicitation/create (q1)" });
    await h.close();
  });

  it('a host that did not declare elicitation is not asked: the upstream is refused at once', { timeout: 120_000 }, async () => {
    const h = await host({ sampling: {} }, true);
    const done = (await h.client.callTool({ name: 'elicit_form', arguments: {} }, { allowInputRequired: true })) as CallToolResult;
    expect(done.isError).toBe(true);
    expect(json(done)).toMatchObject({ code: -32601, message: expect.stringContaining('elicitation/create (form mode) is not supported by the host') });
    await h.close();
  });

  it('by hand: a state sealed for one tool call does not continue another, and the call it held ends', { timeout: 120_000 }, async () => {
    const h = await host(FULL_HOST, true);
    const ask = (message: string, extra: Record<string, unknown> = {}) =>
      h.client.callTool({ name: 'elicit_form', arguments: { message }, ...extra } as never, { allowInputRequired: true }) as Promise<unknown>;
    const first = (await ask('Your name?')) as Asked;
    expect(first.resultType).toBe('input_required');
    const answer = { q1: { action: 'accept', content: { name: 'Linus' } } };
    await expect(ask('Someone else?', { inputResponses: answer, requestState: first.requestState })).rejects.toThrow(/requestState does not continue this request/);
    // The state is spent, so the held call was ended: it no longer counts as in flight, and the next call's question is asked.
    const next = (await ask('Your name, again?')) as Asked;
    expect(next.inputRequests?.q1?.params.message).toBe('[fixture asks] Your name, again?');
    const done = (await ask('Your name, again?', { inputResponses: answer, requestState: next.requestState })) as CallToolResult;
    expect(json(done)).toEqual({ action: 'accept', content: { name: 'Linus', color: 'green' } });
    // What the upstream saw of the ended call (the latest failure it recorded): its question refused.
    expect((await observations(h)).filter((o) => o.startsWith('elicitation form failed')).at(-1)).toBe("elicitation form failed: -32603 the host's retry did not continue this request");
    await h.close();
  });
});

describe("a 2025 upstream's questions for a 2026 host, over stdio", () => {
  it("the host's SDK answers the question and gets the tool's result", { timeout: 120_000 }, async () => {
    const { client } = await connectGateway(config(), [], FULL_HOST, 120_000, { options: PIN });
    const h = record(client, FULL_HOST);
    try {
      expect(client.getProtocolEra()).toBe('modern');
      expect(json(await client.callTool({ name: 'elicit_form', arguments: { message: 'Name, please?' } }))).toEqual({ action: 'accept', content: { name: 'Ada', color: 'green' } });
      expect(h.received.elicitations.map((e) => e.message)).toEqual(['[fixture asks] Name, please?']);
      expect(text(await client.callTool({ name: 'roots', arguments: {} }))).toBe(JSON.stringify({ roots: ROOTS }));
    } finally {
      await client.close();
    }
  });
});

describe("a 2025 upstream's questions during prompts/get and resources/read, for a 2026 host", () => {
  it('the question comes as input_required; the retry answers it and the upstream runs each request once', { timeout: 120_000 }, async () => {
    const legacy = relayConfig({ command: process.execPath, args: [join(ROOT, 'dist/test/relay/fixtures/askingLegacy.js')], protocol: '2025-11-25' }, { timeouts: { call_ms: 60_000, call_max_ms: 120_000 } });
    const { client } = await connectGateway(legacy, [], FULL_HOST, 120_000, { options: { ...PIN, inputRequired: { autoFulfill: false } } });
    try {
      const getPrompt = (extra: Record<string, unknown> = {}) => client.getPrompt({ name: 'briefing', arguments: { topic: 'tides' }, ...extra } as never, { allowInputRequired: true }) as Promise<unknown>;
      const first = (await getPrompt()) as Asked;
      expect(first.inputRequests).toEqual({ q1: { method: 'elicitation/create', params: expect.objectContaining({ message: '[fixture asks] Who is the briefing on tides for?' }) } });
      const prompt = (await getPrompt({ inputResponses: { q1: { action: 'accept', content: { audience: 'pilots' } } }, requestState: first.requestState })) as { messages: { content: { text: string } }[] };
      expect(prompt.messages[0]!.content.text).toBe('Brief pilots on tides');

      const read = (extra: Record<string, unknown> = {}) => client.readResource({ uri: DIARY_URI, ...extra } as never, { allowInputRequired: true }) as Promise<unknown>;
      const asked = (await read()) as Asked;
      expect(Object.values(asked.inputRequests).map((r) => r.params.message)).toEqual(['[fixture asks] Passphrase for the diary?']);
      const contents = (await read({ inputResponses: { q1: { action: 'accept', content: { passphrase: 'open sesame' } } }, requestState: asked.requestState })) as { contents: { text: string }[] };
      expect(contents.contents[0]!.text).toBe('Diary opened with open sesame');
      // A state sealed for the prompt does not continue the read.
      const again = (await getPrompt()) as Asked;
      await expect(read({ inputResponses: { q1: { action: 'accept', content: { passphrase: 'x' } } }, requestState: again.requestState })).rejects.toThrow(/requestState does not continue this request/);
      // One run per request the host made: the retries continued them.
      expect(JSON.parse(text(await client.callTool({ name: 'counts', arguments: {} })))).toEqual({ prompt: 2, read: 1 });
    } finally {
      await client.close();
    }
  });
});
