/**
 * The bridge's rounds (src/relay/bridge.ts) without a network: questions an upstream sends
 * together go to the host in one input_required; a retry's answers reach the waiting
 * requests and the call's result comes back; a question the upstream withdraws is not
 * asked; a bridge no retry reaches in time refuses its questions and cancels the call; a
 * retry naming a bridge this process does not hold is refused (CallRelay.during).
 */
import type { InputRequiredResult, Server } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Bridge, BRIDGE_TTL_MS, bridgeOf, MAX_OPEN_BRIDGES } from '../../src/relay/bridge.js';
import { CallRelay } from '../../src/relay/calls.js';
import type { HostRequest } from '../../src/relay/types.js';

/** A host request as the relay sees one; `cancel` aborts it. */
function hostRequest(): HostRequest & { cancel(): void } {
  const controller = new AbortController();
  return {
    session: { id: 's1', server: {} as Server },
    requestId: 1,
    signal: controller.signal,
    sendRequest: (() => Promise.reject(new Error('a 2026 host is never sent a request'))) as HostRequest['sendRequest'],
    sendNotification: async () => undefined,
    cancel: () => controller.abort(new Error('host cancelled')),
  };
}

const ask = (bridge: Bridge<unknown>, method: string, options: { signal?: AbortSignal; timeout?: number } = {}) =>
  (bridge.request.sendRequest as unknown as (r: { method: string; params?: unknown }, o: object) => Promise<unknown>)({ method, params: { n: method } }, options);

/** An elicitation sent to the host request the relay routes an upstream's question to. */
const askVia = (host: HostRequest) => (host.sendRequest as unknown as (r: object, o: object) => Promise<unknown>)({ method: 'elicitation/create', params: {} }, {});

afterEach(() => vi.useRealTimers());

describe('Bridge', () => {
  it('two questions sent together go out in one round; the answers reach the upstream and its result comes back', async () => {
    const bridge = new Bridge<string>(hostRequest(), 'up', { sampling: {}, roots: {} });
    let ended = false;
    bridge.start(async () => {
      const [sampled, roots] = await Promise.all([ask(bridge, 'sampling/createMessage'), ask(bridge, 'roots/list')]);
      return `${JSON.stringify(sampled)} ${JSON.stringify(roots)}`;
    }, () => (ended = true));
    const first = (await bridge.run(hostRequest())) as InputRequiredResult;
    expect(first).toEqual({
      resultType: 'input_required',
      inputRequests: { q1: { method: 'sampling/createMessage', params: { n: 'sampling/createMessage' } }, q2: { method: 'roots/list', params: { n: 'roots/list' } } },
      requestState: bridge.id,
    });
    expect(bridgeOf(first)).toBe(bridge.id);
    bridge.answer({ q1: { model: 'm' }, q2: { roots: [] } });
    expect(await bridge.run(hostRequest())).toBe('{"model":"m"} {"roots":[]}');
    expect(ended).toBe(true);
  });

  it('questions asked one after another take one round each', async () => {
    const bridge = new Bridge<unknown[]>(hostRequest(), 'up', {});
    bridge.start(async () => [await ask(bridge, 'elicitation/create'), await ask(bridge, 'elicitation/create')], () => undefined);
    const first = (await bridge.run(hostRequest())) as InputRequiredResult;
    expect(Object.keys(first.inputRequests ?? {})).toEqual(['q1']);
    bridge.answer({ q1: { action: 'accept' } });
    const second = (await bridge.run(hostRequest())) as InputRequiredResult;
    expect(Object.keys(second.inputRequests ?? {})).toEqual(['q2']);
    bridge.answer({ q2: { action: 'decline' } });
    expect(await bridge.run(hostRequest())).toEqual([{ action: 'accept' }, { action: 'decline' }]);
  });

  it('a question the upstream withdraws before the round is not asked', async () => {
    const bridge = new Bridge<string>(hostRequest(), 'up', {});
    const withdraw = new AbortController();
    bridge.start(async () => {
      const gone = ask(bridge, 'sampling/createMessage', { signal: withdraw.signal }).catch((err: Error) => `withdrawn: ${err.message}`);
      withdraw.abort(new Error('upstream cancelled it'));
      const kept = ask(bridge, 'roots/list');
      return `${await gone}; ${JSON.stringify(await kept)}`;
    }, () => undefined);
    const first = (await bridge.run(hostRequest())) as InputRequiredResult;
    expect(Object.values(first.inputRequests ?? {}).map((r) => (r as { method: string }).method)).toEqual(['roots/list']);
    bridge.answer({ q2: { roots: [] } });
    expect(await bridge.run(hostRequest())).toBe('withdrawn: upstream cancelled it; {"roots":[]}');
  });

  it('the host cancelling its retry cancels the upstream call', async () => {
    const bridge = new Bridge<string>(hostRequest(), 'up', {});
    bridge.start(async (signal) => {
      await ask(bridge, 'elicitation/create');
      await new Promise((_, reject) => {
        if (signal.aborted) reject(signal.reason as Error);
        signal.addEventListener('abort', () => reject(signal.reason as Error));
      });
      return 'never';
    }, () => undefined);
    await bridge.run(hostRequest());
    bridge.answer({ q1: { action: 'accept' } });
    const retry = hostRequest();
    const outcome = bridge.run(retry);
    retry.cancel();
    await expect(outcome).rejects.toThrow('host cancelled');
  });

  it(`no retry within ${BRIDGE_TTL_MS / 60_000} minutes: the question is refused, the call cancelled and the bridge forgotten`, async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let forgotten = false;
    const bridge = new Bridge<string>(hostRequest(), 'up', {}, () => (forgotten = true));
    let cancelled: unknown;
    const refused = new Promise<string>((resolve) => {
      bridge.start(async (signal) => {
        signal.addEventListener('abort', () => (cancelled = signal.reason));
        return ask(bridge, 'elicitation/create').then(() => 'answered', (err: Error) => {
          resolve(err.message);
          return 'refused';
        });
      }, () => undefined);
    });
    await bridge.run(hostRequest());
    vi.advanceTimersByTime(BRIDGE_TTL_MS + 1);
    expect(await refused).toBe("elicitation/create refused by the gateway: the host's request ended before it was answered");
    expect(forgotten).toBe(true);
    expect(String(cancelled)).toContain('did not answer the upstream');
  });
});

describe('CallRelay.during with a bridge', () => {
  it('a retry naming a bridge this process does not hold is refused, and nothing is called', async () => {
    const relay = new CallRelay({ mayUse: () => true, requestMs: 60_000 });
    let called = 0;
    const call = async () => {
      called++;
      return 'ran';
    };
    await expect(relay.during(hostRequest(), 'up', call, { capabilities: {}, resume: { bridge: 'not-held-here', responses: {} } })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('requestState names questions no longer open on this gateway'),
    });
    expect(called).toBe(0);
    // A call that asks nothing ends as a plain call.
    expect(await relay.during(hostRequest(), 'up', call, { capabilities: {} })).toBe('ran');
    expect(called).toBe(1);
    expect(relay.inFlight.size).toBe(0);
  });

  it('a held call that ends with no retry is forgotten: it holds no place among the open bridges, and its state is told to call again', async () => {
    const relay = new CallRelay({ mayUse: () => true, requestMs: 60_000 });
    const capabilities = { elicitation: { form: {} } };
    /** A call whose upstream asks, then gives up unanswered (as at timeouts.call_ms); its input_required once the call has ended. */
    const abandoned = async (): Promise<InputRequiredResult> => {
      let giveUp!: () => void;
      const call = () =>
        new Promise<string>((resolve) => {
          askVia(relay.inFlight.askee('up', 'elicitation/create', () => true)).catch(() => undefined);
          giveUp = () => resolve('upstream "up" failed on ask: Request timed out');
        });
      const asked = (await relay.during(hostRequest(), 'up', call, { capabilities })) as InputRequiredResult;
      expect(asked.resultType).toBe('input_required');
      giveUp();
      await vi.waitFor(() => expect(relay.inFlight.size).toBe(0), { interval: 1 });
      return asked;
    };
    const first = await abandoned();
    for (let i = 1; i < MAX_OPEN_BRIDGES; i++) await abandoned();
    // None of those calls is held any more: the next call's question still reaches its host.
    expect(Object.keys((await abandoned()).inputRequests ?? {})).toEqual(['q1']);
    // A retry after the call ended is told to call again (docs/PROTOCOL.md), not handed how the call ended.
    await expect(
      relay.during(hostRequest(), 'up', async () => 'ran again', { capabilities, resume: { bridge: first.requestState!, responses: { q1: { action: 'accept' } } } }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('requestState names questions no longer open on this gateway') });
  });

  it("progress the upstream reports during a retry reaches that retry under the retry's own progress token", async () => {
    const relay = new CallRelay({ mayUse: () => true, requestMs: 60_000 });
    const sent: { to: string; params: unknown }[] = [];
    const withToken = (token: string): HostRequest => ({
      ...hostRequest(),
      progressToken: token,
      sendNotification: async (n) => void sent.push({ to: token, params: n.params }),
    });
    const call = async (opts: { onprogress?: (p: { progress: number; total?: number }) => void }) => {
      await askVia(relay.inFlight.askee('up', 'elicitation/create', () => true));
      opts.onprogress?.({ progress: 1, total: 2 });
      return 'done';
    };
    const first = (await relay.during(withToken('first'), 'up', call, { capabilities: { elicitation: { form: {} } } })) as InputRequiredResult;
    expect(await relay.during(withToken('retry'), 'up', call, { capabilities: {}, resume: { bridge: first.requestState!, responses: { q1: { action: 'accept' } } } })).toBe('done');
    expect(sent).toEqual([{ to: 'retry', params: { progress: 1, total: 2, progressToken: 'retry' } }]);
  });
});
