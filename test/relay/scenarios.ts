/**
 * What every host transport must show, with exact assertions on both sides: the host's
 * received requests and notifications (recorded by harness.ts) and the upstream's view
 * (its tool results and its `observations`).
 */
import type { Progress } from '@modelcontextprotocol/server';
import { expect, it } from 'vitest';
import { FORM_SCHEMA, RICH_RESULT, RICH_TOOL } from './fixtures/shapes.js';
import { CALL_MS, json, observations, ROOTS, text, type Host } from './harness.js';

export function relayScenarios(host: () => Host, bare: () => Host): void {
  it('keeps every field of a tool definition and every part of a result', async () => {
    const { tools } = await host().client.listTools();
    expect(tools.find((t) => t.name === 'rich')).toEqual({ ...RICH_TOOL, title: 'Rich result' });
    expect(await host().client.callTool({ name: 'rich', arguments: {} })).toEqual(RICH_RESULT);
  });

  it("relays progress under the host's own token and passes the host's other _meta upstream", async () => {
    const seen: Progress[] = [];
    const r = await host().client.callTool({ name: 'progress_job', arguments: { steps: 3, delay_ms: 20 }, _meta: { 'example.com/trace': 't1' } }, {
      onprogress: (p) => void seen.push(p),
    });
    expect(text(r)).toBe('finished 3 steps; progress token present; _meta keys example.com/trace,progressToken');
    expect(seen).toEqual([1, 2, 3].map((i) => ({ progress: i, total: 3, message: `step ${i} of 3` })));
  });

  it(`lets a job that reports progress run past call_ms (${CALL_MS} ms); one that does not is cut there`, async () => {
    // Steps well inside call_ms and a total well past it: a loaded machine delays a step's
    // progress by up to 1.75 s before the job is cut wrongly, and only makes the quiet job's cut surer.
    const steps = 6;
    const delay = Math.round(CALL_MS * 0.3);
    const seen: Progress[] = [];
    const long = await host().client.callTool({ name: 'progress_job', arguments: { steps, delay_ms: delay } }, { onprogress: (p) => void seen.push(p) });
    expect(long.isError).toBeFalsy();
    expect(text(long)).toBe(`finished ${steps} steps; progress token present; _meta keys progressToken`);
    // Every step's progress in order. The last may be lost by this host alone: an SDK client (1.32) drops a progress
    // notification read in the same chunk as its request's result (typescript-sdk #2580), which a loaded machine allows
    // despite the fixture's pause; the gateway keeps the order (src/relay/order.ts).
    const progressed = seen.map((p) => p.progress);
    expect(progressed.length).toBeGreaterThanOrEqual(steps - 1);
    expect(progressed).toEqual([1, 2, 3, 4, 5, 6].slice(0, progressed.length));
    const quiet = await host().client.callTool({ name: 'progress_job', arguments: { steps, delay_ms: delay } });
    expect(quiet.isError).toBe(true);
    expect(text(quiet)).toMatch(/^upstream "fixture" failed on progress_job: Request timed out/);
  }, 30_000);

  it("relays the upstream's sampling request to the host and the host's answer back", async () => {
    const before = host().received.sampling.length;
    const r = json(await host().client.callTool({ name: 'sample', arguments: { prompt: 'Say hi' } }));
    expect(host().received.sampling.slice(before)).toEqual([
      { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], systemPrompt: 'You are a test.', maxTokens: 64 },
    ]);
    expect({ ...r, ms: undefined }).toEqual({ model: 'test-model', role: 'assistant', content: { type: 'text', text: 'echo: Say hi' }, stopReason: 'endTurn', ms: undefined });
  });

  it('relays a form elicitation; the answer reaches the upstream with its schema default filled in', async () => {
    const before = host().received.elicitations.length;
    const r = json(await host().client.callTool({ name: 'elicit_form', arguments: {} }));
    expect(host().received.elicitations.slice(before)).toEqual([
      {
        mode: 'form',
        message: '[fixture asks] What is your name?',
        requestedSchema: FORM_SCHEMA,
      },
    ]);
    expect(r).toEqual({ action: 'accept', content: { name: 'Ada', color: 'green' } });
  });

  it('relays a URL elicitation and its completion notice', async () => {
    const before = host().received.elicitations.length;
    const r = json(await host().client.callTool({ name: 'elicit_url', arguments: {} }));
    expect(r).toEqual({ action: 'accept', elicitationId: expect.stringMatching(/^elic-/) });
    expect(host().received.elicitations.slice(before)).toEqual([{ mode: 'url', message: '[fixture asks] Sign in to continue', url: 'https://example.com/login?state=1', elicitationId: r.elicitationId }]);
    await expect.poll(() => host().received.completed, { timeout: 5000 }).toContain(r.elicitationId);
  });

  it('passes an upstream\'s -32042 (URL elicitation required) to the host as that error, then its completion', async () => {
    const failure = await host().client.callTool({ name: 'needs_authorization', arguments: {} }).catch((err: unknown) => err);
    expect(failure).toMatchObject({
      code: -32042,
      // The upstream's own message: exactly what a host connected to the upstream directly would see.
      message: 'Authorize first',
      data: { elicitations: [{ mode: 'url', message: '[fixture asks] Authorize the fixture', url: 'https://example.com/authorize', elicitationId: expect.stringMatching(/^auth-/) }] },
    });
    const id = (failure as { data: { elicitations: { elicitationId: string }[] } }).data.elicitations[0]!.elicitationId;
    await expect.poll(() => host().received.completed, { timeout: 5000 }).toContain(id);
  });

  it("answers the upstream's roots/list with the host's roots", async () => {
    expect(json(await host().client.callTool({ name: 'roots', arguments: {} }))).toEqual({ roots: ROOTS });
  });

  it("passes the host's roots/list_changed on to the upstream", async () => {
    const count = async () => (await observations(host())).filter((o) => o === 'roots list changed').length;
    const before = await count();
    await host().client.sendRootsListChanged();
    await expect.poll(count, { timeout: 5000 }).toBe(before + 1);
  });

  it("relays log messages at or above the host's level, and passes the level upstream", async () => {
    await host().client.setLoggingLevel('warning');
    expect(await observations(host())).toContain('setLevel warning');
    const before = host().received.logs.length;
    expect(text(await host().client.callTool({ name: 'log', arguments: { level: 'info', text: 'quiet' } }))).toBe('logged');
    expect(text(await host().client.callTool({ name: 'log', arguments: { level: 'error', text: 'loud' } }))).toBe('logged');
    await expect.poll(() => host().received.logs.length, { timeout: 5000 }).toBeGreaterThan(before);
    expect(host().received.logs.slice(before)).toEqual([{ level: 'error', logger: 'fixture', data: 'loud' }]);
  });

  it('answers the upstream at once with an MCP error when the host lacks sampling with tools', async () => {
    const before = host().received.sampling.length;
    const r = await host().client.callTool({ name: 'sample', arguments: { prompt: 'Look it up', with_tools: true } });
    expect(json(r)).toEqual({ code: -32601, message: 'sampling/createMessage with tools is not supported by the host connected to the gateway' });
    expect(host().received.sampling.length).toBe(before);
  });

  it('answers the upstream at once with an MCP error when the host lacks sampling, elicitation or roots', async () => {
    for (const [tool, what, args] of [
      ['sample', 'sampling/createMessage', { prompt: 'Say hi' }],
      ['elicit_form', 'elicitation/create (form mode)', {}],
      ['elicit_url', 'elicitation/create (url mode)', {}],
      ['roots', 'roots/list', {}],
    ] as const) {
      const r = await bare().client.callTool({ name: tool, arguments: args });
      expect(r.isError, tool).toBe(true);
      expect(json(r), tool).toEqual({ code: -32601, message: `${what} is not supported by the host connected to the gateway` });
    }
  });

  it("cancels the upstream call when the host cancels its tools/call, with the host's reason", async () => {
    const abort = new AbortController();
    const call = host().client.callTool({ name: 'slow', arguments: { ms: 60_000 } }, {
      signal: abort.signal,
      onprogress: () => abort.abort('user pressed stop'),
    });
    await expect(call).rejects.toThrow();
    await expect.poll(async () => (await observations(host())).filter((o) => o.startsWith('slow')).slice(-2), { timeout: 10_000 }).toEqual([
      'slow started',
      'slow cancelled: user pressed stop',
    ]);
  });
}
