/**
 * A 2026 upstream's questions during prompts/get and resources/read, relayed by the gateway
 * as they are during tools/call (docs/PROTOCOL.md, "Questions across eras"): the asking
 * upstream (fixtures/askingUpstream.ts, 2026-07-28 over Streamable HTTP), an in-process
 * gateway served over HTTP, and real v2 SDK clients. A 2026 host gets the upstream's
 * question as input_required with a sealed requestState, and its retry reaches the upstream
 * with the answer and the upstream's own state; that state continues only the request it
 * was sealed for, once. A 2025 host is asked the same question as an elicitation request on
 * its session.
 */
import { Client, StreamableHTTPClientTransport, type ElicitRequestFormParams, type GetPromptResult, type ReadResourceResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { serveHttp, type HttpFace } from '../../src/host/http.js';
import { conformanceConfig } from '../helpers/conformance.js';
import { DIARY_URI, serveAskingUpstream, type AskingUpstream } from './fixtures/askingUpstream.js';

const TOKEN = 'questions-test-token-0123456789';
const PIN = { versionNegotiation: { mode: { pin: '2026-07-28' as const } } };
const BRIEFING_QUESTION = '[notes asks] Who is the briefing on tides for?';

interface Asked {
  resultType: string;
  inputRequests: Record<string, { method: string; params: { message: string } }>;
  requestState: string;
}

const promptText = (r: GetPromptResult) => (r.messages[0]!.content as { text: string }).text;
const contentsText = (r: ReadResourceResult) => (r.contents[0] as { text: string }).text;

/** A host whose user answers each form with the audience and passphrase given; `asked` collects the messages it was shown. */
function host(era: 'modern' | 'legacy', audience: string, asked: string[], manual = false): Client {
  const client = new Client(
    { name: `host-${era}`, version: '1.0.0' },
    { ...(era === 'modern' && PIN), capabilities: { elicitation: { form: {} } }, ...(manual && { inputRequired: { autoFulfill: false } }) },
  );
  client.setRequestHandler('elicitation/create', async (req) => {
    const params = req.params as ElicitRequestFormParams;
    asked.push(params.message);
    const field = Object.keys(params.requestedSchema.properties)[0]!;
    return { action: 'accept', content: { [field]: field === 'audience' ? audience : 'open sesame' } };
  });
  return client;
}

describe("an upstream's questions during prompts/get and resources/read", () => {
  let upstream: AskingUpstream;
  let gateway: Gateway;
  let face: HttpFace;
  beforeAll(async () => {
    upstream = await serveAskingUpstream();
    const config = conformanceConfig({ upstreams: { notes: { url: upstream.url, transport: 'streamable-http' } }, http: { tokens: [{ token: TOKEN, persona: 'tester', user_id: 'u1' }] } });
    gateway = await Gateway.start(loadConfig(config), { noEmbedder: true });
    face = await serveHttp(gateway, 0, '127.0.0.1');
  }, 60_000);
  afterAll(async () => {
    await face?.close();
    await gateway?.close();
    await upstream?.close();
  });

  const connect = async (client: Client) => {
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${face.port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    return client;
  };
  const count = (key: string) => upstream.counts.get(key) ?? 0;

  it('2026 host: the question arrives as input_required, its SDK answers, and the prompt and the contents come back', async () => {
    const asked: string[] = [];
    const client = await connect(host('modern', 'pilots', asked));
    expect(client.getProtocolEra()).toBe('modern');
    const [prompts, reads] = [count('prompts/get briefing'), count(`resources/read ${DIARY_URI}`)];
    // The upstream's own state comes back to it byte for byte, inside the gateway's seal.
    expect(promptText(await client.getPrompt({ name: 'briefing', arguments: { topic: 'tides' } }))).toBe('Brief pilots on tides (state briefing:tides)');
    expect(contentsText(await client.readResource({ uri: DIARY_URI }))).toBe('Diary opened with open sesame (state diary)');
    expect(asked).toEqual([BRIEFING_QUESTION, '[notes asks] Passphrase for the diary?']);
    expect([count('prompts/get briefing') - prompts, count(`resources/read ${DIARY_URI}`) - reads]).toEqual([2, 2]);
    await client.close();
  });

  it('2026 host: the sealed state hides the upstream\'s, continues only the request it was sealed for, and only once', async () => {
    const client = await connect(host('modern', 'pilots', [], true));
    const get = (name: string, args: Record<string, string> | undefined, extra: Record<string, unknown> = {}) =>
      client.getPrompt({ name, ...(args && { arguments: args }), ...extra } as never, { allowInputRequired: true }) as Promise<unknown>;
    const ask = async () => (await get('briefing', { topic: 'tides' })) as Asked;
    const answer = { audience: { action: 'accept', content: { audience: 'divers' } } };

    const first = await ask();
    expect(first.resultType).toBe('input_required');
    expect(first.inputRequests.audience).toMatchObject({ method: 'elicitation/create', params: { message: BRIEFING_QUESTION } });
    expect(first.requestState).toMatch(/^tcs1\./);
    expect(first.requestState).not.toContain('briefing:tides');

    const before = { briefing: count('prompts/get briefing'), recap: count('prompts/get recap'), diary: count(`resources/read ${DIARY_URI}`) };
    const notThis = /requestState does not continue this request/;
    // Sealed for briefing on tides: refused for another prompt, other arguments, a resource.
    await expect(get('recap', undefined, { inputResponses: answer, requestState: (await ask()).requestState })).rejects.toThrow(notThis);
    await expect(get('briefing', { topic: 'reefs' }, { inputResponses: answer, requestState: (await ask()).requestState })).rejects.toThrow(notThis);
    const forRead = (await ask()).requestState;
    await expect(client.readResource({ uri: DIARY_URI, inputResponses: { passphrase: { action: 'accept', content: { passphrase: 'x' } } }, requestState: forRead } as never, { allowInputRequired: true })).rejects.toThrow(notThis);
    // Tampered: it does not open.
    const state = (await ask()).requestState;
    const tampered = state.slice(0, -4) + (state.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    await expect(get('briefing', { topic: 'tides' }, { inputResponses: answer, requestState: tampered })).rejects.toThrow(/Invalid or expired requestState/);
    // The real retry goes upstream once; the same state again is refused.
    expect(promptText((await get('briefing', { topic: 'tides' }, { inputResponses: answer, requestState: state })) as GetPromptResult)).toBe('Brief divers on tides (state briefing:tides)');
    await expect(get('briefing', { topic: 'tides' }, { inputResponses: answer, requestState: state })).rejects.toThrow(/Invalid or expired requestState/);
    // Four first rounds and the one answered retry: nothing refused reached the upstream.
    expect({ briefing: count('prompts/get briefing') - before.briefing, recap: count('prompts/get recap') - before.recap, diary: count(`resources/read ${DIARY_URI}`) - before.diary }).toEqual({
      briefing: 5,
      recap: 0,
      diary: 0,
    });
    await client.close();
  });

  it('2025 host: the question arrives as an elicitation request on its session, and the prompt and the contents come back', async () => {
    const asked: string[] = [];
    const client = await connect(host('legacy', 'sailors', asked));
    expect(client.getProtocolEra()).toBe('legacy');
    expect(promptText(await client.getPrompt({ name: 'briefing', arguments: { topic: 'tides' } }))).toBe('Brief sailors on tides (state briefing:tides)');
    expect(contentsText(await client.readResource({ uri: DIARY_URI }))).toBe('Diary opened with open sesame (state diary)');
    expect(asked).toEqual([BRIEFING_QUESTION, '[notes asks] Passphrase for the diary?']);
    await client.close();
  });
});
