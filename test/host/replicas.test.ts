/**
 * Two replicas of the gateway on one store, and a 2026-07-28 host whose requests go to
 * whichever replica it is pointed at, as round robin would send them: the confirmation a
 * replica asks through input_required is answered on the other replica (the sealing key is
 * the store's, not a process's), runs the call once, and the state echoed again to the
 * first replica runs nothing (the single-use record is the store's too).
 */
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { CONFIRM_KEY } from '../../src/guards/confirmInput.js';
import { serveHttp, type HttpFace } from '../../src/host/http.js';
import { conformanceConfig } from '../helpers/conformance.js';

const TOKEN = 'replicas-test-token-0123456789';
const SIMPLE_TEXT = 'This is a simple text response for testing.';
const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

interface InputRequired {
  resultType: string;
  inputRequests: Record<string, unknown>;
  requestState: string;
}

describe('two replicas on one store, a 2026 host answered by both', () => {
  const replicas: { gateway: Gateway; face: HttpFace }[] = [];
  beforeAll(async () => {
    // One config file, so one store: test_simple_text needs confirmation, asked by elicitation.
    const config = conformanceConfig({
      confirmation: { actions: ['conformance.test_simple_text'], read_only: ['conformance.*'] },
      http: { tokens: [{ token: TOKEN, persona: 'tester', user_id: 'u1', confirm_via: 'elicitation' }] },
    });
    for (let i = 0; i < 2; i++) {
      const gateway = await Gateway.start(loadConfig(config), { noEmbedder: true });
      replicas.push({ gateway, face: await serveHttp(gateway, 0, '127.0.0.1') });
    }
  }, 120_000);
  afterAll(async () => {
    for (const r of replicas) {
      await r.face.close();
      await r.gateway.close();
    }
  });

  it('a confirmation asked on one replica is answered on the other, runs once, and is spent for both', { timeout: 120_000 }, async () => {
    // Which replica the next request goes to, and which replica answered each one.
    let target = 0;
    const servedBy: number[] = [];
    const routed: typeof fetch = async (_input, init) => {
      servedBy.push(target);
      return fetch(`http://127.0.0.1:${replicas[target]!.face.port}/mcp`, init);
    };
    const host = new Client(
      { name: 'host-2026', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} } }, inputRequired: { autoFulfill: false } },
    );
    await host.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${replicas[0]!.face.port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } }, fetch: routed }));
    const call = (extra: Record<string, unknown>) => host.callTool({ name: 'test_simple_text', arguments: {}, ...extra } as never, { allowInputRequired: true });

    target = 0;
    const asked = (await call({})) as unknown as InputRequired;
    expect(asked.resultType).toBe('input_required');
    expect(Object.keys(asked.inputRequests)).toEqual([CONFIRM_KEY]);
    expect(asked.requestState).toMatch(/^tcs1\./);

    const yes = { [CONFIRM_KEY]: { action: 'accept', content: { confirm: true } } };
    target = 1;
    expect(text(await call({ inputResponses: yes, requestState: asked.requestState }))).toBe(SIMPLE_TEXT);
    // Spent: neither replica runs it again.
    target = 0;
    await expect(call({ inputResponses: yes, requestState: asked.requestState })).rejects.toThrow(/Invalid or expired requestState/);
    target = 1;
    await expect(call({ inputResponses: yes, requestState: asked.requestState })).rejects.toThrow(/Invalid or expired requestState/);
    expect(new Set(servedBy)).toEqual(new Set([0, 1]));

    // The call ran once, on the replica that took the answer; the store both write has its one row.
    const ran = (await replicas[0]!.gateway.store.audit.tail(50)).filter((a) => a.tool === 'test_simple_text' && a.outcome === 'ok');
    expect(ran).toHaveLength(1);
    expect(ran[0]!.notes).toContain('approved through input_required');
    await host.close();
  });
});
