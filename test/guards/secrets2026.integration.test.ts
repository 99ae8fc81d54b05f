/**
 * The credentials the gateway holds never reach a 2026-07-28 host either: the echoing
 * upstreams of secrets.integration.test.ts, a real SDK Client pinned to 2026-07-28 over
 * the gateway's stdio and HTTP faces, every message it receives recorded raw from the
 * first (server/discover included). Besides results, errors, progress and log messages
 * (the log level asked in the request's `_meta`), find_tools, resources and prompts, a
 * 2026 host meets paths of its own: the upstream's questions relayed as the gateway's
 * `input_required` (elicitation message, sampling messages) with a state the gateway
 * seals (the upstream's own state, which carries the credentials, inside it), the retry
 * with the host's answers and that state, an upstream's `-32021` with its `data`, and
 * `subscriptions/listen`. Against upstreams spoken to in 2025-11-25 the upstream asks by
 * a request of its own, which the gateway holds and relays as `input_required` too
 * (docs/PROTOCOL.md, "Questions across eras"): the same checks, keys `q1`.
 */
import { LOG_LEVEL_META_KEY, type CallToolResult, type Client, type InputRequiredResult, type Tool } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { HEADED, heldBy, MARKERS, PLAIN, startEchoGateway, type EchoGateway, type UpstreamProtocol } from './secretsSetup.js';

const CASES: ['stdio' | 'http', UpstreamProtocol][] = [
  ['stdio', '2026-07-28'],
  ['http', '2026-07-28'],
  ['stdio', '2025-11-25'],
  ['http', '2025-11-25'],
];
const TOOLS = ['echo', 'echo_error', 'echo_throw', 'echo_needs', 'echo_log', 'echo_progress', 'echo_elicit', 'echo_sample'];
/** What each upstream echoes of what it was given, once redacted. */
const ECHOED: Record<string, string> = {
  '': `ECHO_API_TOKEN: ${MARKERS.envToken}\nDB_URL: ${MARKERS.envDb}\nNOTE: ${PLAIN}`,
  headed__: HEADED,
  oauthed__: `authorization: Bearer ${MARKERS.oauthAccess}`,
};
const UPSTREAM: Record<string, string> = { '': 'envy', headed__: 'headed', oauthed__: 'oauthed' };

type Outcome = CallToolResult | InputRequiredResult | { thrown: { code?: number; message: string; data?: unknown } };
const text = (r: Outcome) => ('content' in r ? r.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n') : JSON.stringify(r));

/** The host's answer to each relayed question: accept the form, a model's reply to a sampling request. */
function answersTo(asked: InputRequiredResult): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(asked.inputRequests ?? {}).map(([key, request]) => [
      key,
      request.method === 'elicitation/create' ? { action: 'accept', content: { ok: true } } : { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'a summary' }, stopReason: 'endTurn' },
    ]),
  );
}

describe.each(CASES)('secrets never reach a 2026-07-28 host, gateway over %s, upstreams spoken to in %s', (face, protocol) => {
  let g: EchoGateway;
  const modernUpstreams = protocol === '2026-07-28';

  beforeAll(async () => {
    g = await startEchoGateway(face, '2026', protocol);
  }, 300_000);

  afterAll(async () => {
    await g?.close();
  });

  /** One tools/call through call_tool, asking for log messages at `debug` and for progress; `retry`: the answers and state of an input_required round. */
  const call = (client: Client, name: string, retry?: { inputResponses: Record<string, unknown>; requestState?: string }): Promise<Outcome> =>
    client
      .callTool({ name: 'call_tool', arguments: { name, arguments: {} }, _meta: { [LOG_LEVEL_META_KEY]: 'debug' }, ...retry } as never, {
        timeout: 120_000,
        onprogress: () => undefined,
        allowInputRequired: true,
      })
      .then(
        (r) => r as Outcome,
        (err: { code?: number; message: string; data?: unknown }) => ({ thrown: { code: err.code, message: err.message, data: err.data } }),
      );

  test('results, errors, notifications, input_required questions and their retry, find_tools, resources, prompts, listen: 0 credentials, each echo marked', async () => {
    const { host, raw, oauth } = g;
    const { client } = host;
    const outcomes = new Map<string, Outcome>();
    const asked = new Map<string, InputRequiredResult>();
    for (const prefix of Object.keys(ECHOED)) {
      for (const tool of TOOLS) {
        const name = `${prefix}${tool}`;
        let outcome = await call(client, name);
        if ('resultType' in outcome && outcome.resultType === 'input_required') {
          asked.set(name, outcome);
          outcome = await call(client, name, { inputResponses: answersTo(outcome), ...(outcome.requestState !== undefined && { requestState: outcome.requestState }) });
        }
        outcomes.set(name, outcome);
      }
    }
    oauth.provider.expireAccessTokens();
    outcomes.set('refreshed', await call(client, 'oauthed__echo'));
    expect(oauth.provider.refreshes).toBe(1);
    const found = (await client.callTool({ name: 'find_tools', arguments: { query: 'echo configured with' } })) as CallToolResult;
    const reads = [];
    for (const r of (await client.listResources()).resources) reads.push(await client.readResource({ uri: r.uri }));
    for (const p of (await client.listPrompts()).prompts) await client.getPrompt({ name: p.name });
    const listening = await client.listen({ toolsListChanged: true });
    await listening.close();

    const received = raw.join('\n');
    const held = heldBy(g);
    expect(held.filter((s) => received.includes(s))).toEqual([]);
    for (const marker of Object.values(MARKERS)) expect(received).toContain(marker);
    expect(raw.some((m) => m.includes('"supportedVersions"') && m.includes('2026-07-28'))).toBe(face === 'http');
    expect(raw.some((m) => m.includes('notifications/subscriptions/acknowledged'))).toBe(true);

    for (const [prefix, echoed] of Object.entries(ECHOED)) {
      const of = (tool: string) => text(outcomes.get(`${prefix}${tool}`)!);
      expect(of('echo_error')).toBe(`rejected request with header ${echoed}`);
      expect(of('echo_throw')).toContain(`upstream failure; request carried ${echoed}`);
      // An upstream's -32021 reaches a 2026 host as -32021, its message and data cleaned.
      const needs = outcomes.get(`${prefix}echo_needs`) as { thrown: { code: number; message: string; data: { requiredCapabilities: { experimental: { given: Record<string, string> } } } } };
      expect(needs.thrown.code).toBe(-32021);
      expect(needs.thrown.message).toContain(`needs sampling; request carried ${echoed}`);
      expect(Object.values(needs.thrown.data.requiredCapabilities.experimental.given).join('\n')).toMatch(/\[secret removed: /);
      if (modernUpstreams) {
        // The upstream's questions reach the host as input_required: marked as the upstream's, the credentials removed, the state the gateway's.
        const elicit = asked.get(`${prefix}echo_elicit`)!;
        expect(Object.keys(elicit.inputRequests ?? {})).toEqual(['ask']);
        expect((elicit.inputRequests!.ask!.params as { message: string }).message).toBe(`[${UPSTREAM[prefix]} asks] Confirm these credentials: ${echoed}`);
        // The gateway's state is sealed (encrypted): the upstream's own state, which carries the credentials, cannot be read from it.
        expect(elicit.requestState).toMatch(/^tcs1\./);
        expect(Buffer.from(elicit.requestState!.slice(5), 'base64url').toString('latin1')).not.toContain('asked with');
        const sample = asked.get(`${prefix}echo_sample`)!;
        expect(JSON.stringify(sample.inputRequests!.ask!.params)).toContain(JSON.stringify(`Summarise this request: ${echoed}`).slice(1, -1));
        // The retry with the answers and the sealed state: the upstream got its own state back intact, and its answer is clean.
        expect(of('echo_elicit')).toBe(`elicitation accept, state intact; request carried ${echoed}`);
        expect(of('echo_sample')).toBe(`sampled test-model, state intact; request carried ${echoed}`);
      } else {
        // A 2025 upstream asks by a request of its own: the gateway holds it and asks the host
        // through input_required (relay/bridge.ts), marked as the upstream's, the credentials removed.
        const elicit = asked.get(`${prefix}echo_elicit`)!;
        expect(Object.keys(elicit.inputRequests ?? {})).toEqual(['q1']);
        expect((elicit.inputRequests!.q1!.params as { message: string }).message).toBe(`[${UPSTREAM[prefix]} asks] Confirm these credentials: ${echoed}`);
        expect(elicit.requestState).toMatch(/^tcs1\./);
        const sample = asked.get(`${prefix}echo_sample`)!;
        expect(JSON.stringify(sample.inputRequests!.q1!.params)).toContain(JSON.stringify(`Summarise this request: ${echoed}`).slice(1, -1));
        // The retry's answers reach the upstream's waiting requests.
        expect(of('echo_elicit')).toBe('elicitation accept');
        expect(of('echo_sample')).toBe('sampled test-model');
      }
    }
    expect(text(outcomes.get('echo')!)).toContain(`called with\n${ECHOED['']}`);
    expect(text(outcomes.get('refreshed')!)).toContain(ECHOED.oauthed__);
    expect(raw.filter((m) => m.includes('notifications/progress') && m.includes('working with') && m.includes('[secret removed: ')).length).toBe(3);
    expect(host.received.logs.map((l) => String(l.data))).toEqual(expect.arrayContaining([expect.stringContaining(`request carried ${HEADED}`)]));
    // find_tools gives a 2026 host full definitions: the description that echoes the credentials arrives cleaned.
    const described = (found.structuredContent as { tools: Tool[] }).tools.filter((t) => t.name.endsWith('echo_described')).map((t) => t.description);
    expect(described).toContain(`Configured with ${ECHOED.oauthed__}`);
    expect(reads.map((r) => (r.contents[0] as { text: string }).text)).toContain(HEADED);

    const rows = g.auditRows();
    expect(rows).toContain('echo_error');
    expect(held.filter((s) => rows.includes(s))).toEqual([]);
  }, 300_000);
});
