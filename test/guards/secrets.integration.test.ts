/**
 * Issue 29, item 1: an upstream that echoes the credentials the gateway gave it (a static
 * Authorization header, an API key header, env values marked secret, OAuth access and
 * refresh tokens, also after a refresh) gets none of them to the host, over the gateway's
 * stdio and HTTP faces, in results, errors, log and progress notifications, the upstream's
 * elicitation and sampling requests, find_tools output, resource reads and prompts — and
 * none into the audit rows. Every message the host receives is recorded raw. The host is
 * a 2025-11-25 one; the upstreams are spoken to in either era (a 2026 upstream's
 * `input_required` questions reach this host as requests of its own). The 2026-07-28
 * host: secrets2026.integration.test.ts.
 */
import { type CallToolResult, type Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { HEADED, heldBy, MARKERS, PLAIN, startEchoGateway, type EchoGateway, type UpstreamProtocol } from './secretsSetup.js';

const CASES: ['stdio' | 'http', UpstreamProtocol][] = [
  ['stdio', '2025-11-25'],
  ['http', '2025-11-25'],
  ['stdio', '2026-07-28'],
  ['http', '2026-07-28'],
];

describe.each(CASES)('secrets never reach a 2025-11-25 host, gateway over %s, upstreams spoken to in %s', (face, protocol) => {
  let g: EchoGateway;

  beforeAll(async () => {
    g = await startEchoGateway(face, '2025', protocol);
  }, 300_000);

  afterAll(async () => {
    await g?.close();
  });

  const call = (client: Client, name: string) =>
    client.callTool({ name: 'call_tool', arguments: { name, arguments: {} } }, { timeout: 120_000, onprogress: () => undefined }).then(
      (r) => r as CallToolResult,
      (err: Error) => ({ isError: true, content: [{ type: 'text', text: `thrown: ${err.message}` }] }) as CallToolResult,
    );

  test('results, errors, notifications, questions, find_tools, resources and prompts: 0 credentials, each echo marked', async () => {
    const { host, raw, oauth } = g;
    const { client } = host;
    const tools = ['echo', 'echo_error', 'echo_throw', 'echo_needs', 'echo_log', 'echo_progress', 'echo_elicit', 'echo_sample'];
    const answers = new Map<string, string>();
    const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
    for (const prefix of ['', 'headed__', 'oauthed__']) for (const tool of tools) answers.set(`${prefix}${tool}`, text(await call(client, `${prefix}${tool}`)));
    // The access token expires: the gateway refreshes it, and the new one is echoed too.
    oauth.provider.expireAccessTokens();
    answers.set('refreshed', text(await call(client, 'oauthed__echo')));
    expect(oauth.provider.refreshes).toBe(1);
    await client.callTool({ name: 'find_tools', arguments: { query: 'echo configured with' } });
    for (const r of (await client.listResources()).resources) await client.readResource({ uri: r.uri });
    for (const p of (await client.listPrompts()).prompts) await client.getPrompt({ name: p.name });

    const received = raw.join('\n');
    const held = heldBy(g);
    expect(held.filter((s) => received.includes(s))).toEqual([]);
    // Each kind was echoed, and arrived marked.
    for (const marker of Object.values(MARKERS)) expect(received).toContain(marker);
    expect(received).toContain(PLAIN);
    expect(raw.filter((m) => m.includes('notifications/progress') && m.includes('working with') && m.includes('[secret removed: ')).length).toBe(3);
    expect(raw.some((m) => m.includes('Configured with') && m.includes(MARKERS.oauthAccess))).toBe(true);
    expect(answers.get('headed__echo_error')).toBe(`rejected request with header ${HEADED}`);
    expect(answers.get('headed__echo_throw')).toContain(`upstream failure; request carried ${HEADED}`);
    // A 2025 host's revision has no -32021: the gateway answers a result naming what the upstream needs.
    expect(answers.get('headed__echo_needs')).toBe('headed__echo_needs needs a capability this app did not declare (sampling, experimental); it has not run');
    // A 2026 upstream asks through input_required, which the gateway's client fulfils by asking this host; the retry brings back its state.
    expect(answers.get('headed__echo_elicit')).toBe(protocol === '2026-07-28' ? `elicitation accept, state intact; request carried ${HEADED}` : 'elicitation accept');
    expect(answers.get('oauthed__echo_sample')).toBe(protocol === '2026-07-28' ? `sampled test-model, state intact; request carried authorization: Bearer ${MARKERS.oauthAccess}` : 'sampled test-model');
    expect(answers.get('echo')).toContain(`called with\nECHO_API_TOKEN: ${MARKERS.envToken}\nDB_URL: ${MARKERS.envDb}\nNOTE: plain-value-not-secret-42`);
    for (const key of ['oauthed__echo', 'oauthed__echo_error', 'refreshed']) expect(answers.get(key)).toContain(`authorization: Bearer ${MARKERS.oauthAccess}`);
    expect(host.received.logs.map((l) => String(l.data))).toEqual(expect.arrayContaining([expect.stringContaining(MARKERS.headerAuthorization)]));
    expect(host.received.elicitations.map((e) => e.message)).toEqual(expect.arrayContaining([expect.stringContaining(MARKERS.oauthAccess)]));
    expect(host.received.sampling.map((s) => JSON.stringify(s.messages))).toEqual(expect.arrayContaining([expect.stringContaining(MARKERS.envToken)]));

    const rows = g.auditRows();
    expect(rows).toContain('echo_error');
    expect(held.filter((s) => rows.includes(s))).toEqual([]);
  }, 300_000);
});
