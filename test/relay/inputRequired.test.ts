/**
 * A 2026 upstream's input_required relayed to a 2026 host (src/relay/inputRequired.ts):
 * the real pool against the era fixture's 2026-only HTTP face, the real sealer on a real
 * store. Round one gives the host the upstream's question under the upstream's key and a
 * sealed state (never the upstream's own); the retry, with that state opened as the host
 * face opens it, reaches the upstream with the host's answer and the upstream's state
 * byte for byte; a state sealed for another call is refused.
 */
import { isInputRequiredResult, type InputRequiredResult } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { upstreamSchema } from '../../src/config/schema.js';
import { sealerFor } from '../../src/guards/sealed.js';
import type { CallContext, CallOutcome } from '../../src/guards/types.js';
import { UPSTREAM_CAPABILITIES } from '../../src/relay/calls.js';
import { withUpstreamInput } from '../../src/relay/inputRequired.js';
import { openStore } from '../../src/store/index.js';
import { UpstreamPool } from '../../src/upstream/pool.js';
import { serveHttp } from '../upstream/fixtures/eraServer.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function setup() {
  const server = await serveHttp('2026');
  cleanup.push(() => server.close());
  const store = await openStore(':memory:');
  cleanup.push(() => store.close());
  const pool = new UpstreamPool({ up: upstreamSchema.parse({ url: server.url }) }, { baseDir: '.', startupMs: 20_000, callMs: 20_000, memory: store, capabilities: UPSTREAM_CAPABILITIES });
  cleanup.push(() => pool.close());
  await pool.start();
  const sealer = sealerFor(store.sealing);
  const binding = { persona: 'student', account: 'u:s1' };
  /** The call path's context for a 2026 host's call of `tool` (what the host face builds). */
  const ctx = (tool: string, input?: CallContext['input']) =>
    ({ era: 'modern', session: { sessionId: 's', persona: 'student' }, requestedName: tool, tool: { name: tool, server: 'up', upstreamName: tool }, args: {}, decisions: [], notes: [], ...(input && { input }) }) as unknown as CallContext;
  const call = (c: CallContext) => withUpstreamInput(c, 'up', { sealer, binding }, (extra) => pool.call('up', c.tool!.name, c.args, extra.upstream));
  return { server, sealer, ctx, call };
}

const text = (o: CallOutcome) => ((o as { content: { text: string }[] }).content[0]!.text);

describe('withUpstreamInput (2026 upstream → 2026 host)', () => {
  it("relays the upstream's question under its own key with a sealed state, and the retry's answer and the upstream's state back", async () => {
    const { server, sealer, ctx, call } = await setup();
    const first = await call(ctx('ask_name'));
    expect(isInputRequiredResult(first)).toBe(true);
    const asked = first as InputRequiredResult;
    expect(Object.keys(asked.inputRequests ?? {})).toEqual(['user_name']);
    expect(asked.requestState).toMatch(/^tcs1\./);
    expect(asked.requestState).not.toContain('upstream-round-1');
    const state = await sealer.open(asked.requestState);
    const done = await call(ctx('ask_name', { responses: { user_name: { action: 'accept', content: { name: 'Ada' } } }, state }));
    expect(text(done)).toBe('Hello, Ada (state upstream-round-1)');
    expect(server.counts.get('tools/call')).toBe(2);
  });

  it('refuses a state sealed for another call, before the upstream sees the retry', async () => {
    const { server, sealer, ctx, call } = await setup();
    const asked = (await call(ctx('ask_name'))) as InputRequiredResult;
    const state = await sealer.open(asked.requestState);
    await expect(call(ctx('echo', { responses: { user_name: { action: 'accept', content: { name: 'Eve' } } }, state }))).rejects.toThrow(/requestState does not continue this request/);
    expect(server.counts.get('tools/call')).toBe(1);
  });

  it("leaves a 2025 host's call to the upstream client's handlers (no input_required comes back)", async () => {
    const { ctx, call } = await setup();
    const legacy = { ...ctx('echo'), era: 'legacy', args: { text: 'hi' } } as CallContext;
    expect(text(await call(legacy))).toBe('hi (modern)');
  });
});
