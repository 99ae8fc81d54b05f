/**
 * The relay's routing without transports: which session a question or a log message of
 * an upstream goes to, how progress maps back to the host's token, what is refused, and
 * that a cancelled call is never forwarded.
 */
import type { ClientCapabilities, LoggingMessageNotification, Server, ServerNotification } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { compose, type CallContext } from '../../src/guards/types.js';
import { cancellationGuard } from '../../src/relay/cancel.js';
import { MAX_OPEN_URL_ELICITATIONS, UrlElicitations } from '../../src/relay/elicitation.js';
import { deliverLog, mostVerbose, passes } from '../../src/relay/logging.js';
import { relayProgress } from '../../src/relay/progress.js';
import { InFlight } from '../../src/relay/registry.js';
import { CallRelay as Relay } from '../../src/relay/calls.js';
import type { HostRequest, HostSession, RelayError } from '../../src/relay/types.js';

/** A session whose server records the notifications sent outside calls. */
function session(id: string, caps: ClientCapabilities = {}, persona?: string): HostSession & { sent: ServerNotification[] } {
  const sent: ServerNotification[] = [];
  const server = { getClientCapabilities: () => caps, notification: async (n: ServerNotification) => void sent.push(n) } as unknown as Server;
  return { id, persona, server, sent };
}

/** A host request whose related notifications are recorded. */
function request(s: HostSession, requestId: number, progressToken?: string): HostRequest & { sent: ServerNotification[] } {
  const sent: ServerNotification[] = [];
  const sendRequest = async () => {
    throw new Error('no request to the host expected');
  };
  return { session: s, requestId, signal: new AbortController().signal, progressToken, sendRequest, sendNotification: async (n) => void sent.push(n), sent };
}

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return { name: (err as Error).name, code: (err as RelayError).code, message: (err as Error).message };
  }
  throw new Error('expected a refusal');
};

describe('InFlight.askee', () => {
  const sampling = (c: ClientCapabilities) => c.sampling !== undefined;

  it('refuses when no session has a call in flight to the upstream', () => {
    const inFlight = new InFlight();
    inFlight.begin('other', request(session('s1', { sampling: {} }), 1));
    expect(refusal(() => inFlight.askee('files', 'sampling/createMessage', sampling))).toEqual({
      name: 'RelayError',
      code: -32600,
      message: 'sampling/createMessage refused by the gateway: no host session has a tools/call in flight to upstream "files"',
    });
  });

  it("picks the oldest call of the one session waiting, and forgets a call once it ends", () => {
    const inFlight = new InFlight();
    const s1 = session('s1', { sampling: {} });
    const first = request(s1, 1);
    const end = inFlight.begin('files', first);
    inFlight.begin('files', request(s1, 2));
    expect(inFlight.askee('files', 'sampling/createMessage', sampling).requestId).toBe(1);
    end();
    expect(inFlight.askee('files', 'sampling/createMessage', sampling).requestId).toBe(2);
    expect(inFlight.size).toBe(1);
  });

  it('refuses when two sessions have calls in flight to the upstream: it cannot tell whom to ask', () => {
    const inFlight = new InFlight();
    inFlight.begin('files', request(session('s1', { sampling: {} }), 1));
    inFlight.begin('files', request(session('s2', { sampling: {} }), 1));
    expect(refusal(() => inFlight.askee('files', 'roots/list', () => true))).toMatchObject({
      code: -32600,
      message: 'roots/list refused by the gateway: 2 host sessions have tools/calls in flight to upstream "files", so it cannot tell whom to ask',
    });
  });

  it('answers MethodNotFound when the host did not declare the capability', () => {
    const inFlight = new InFlight();
    inFlight.begin('files', request(session('s1', { roots: {} }), 1));
    expect(refusal(() => inFlight.askee('files', 'sampling/createMessage', sampling))).toMatchObject({
      code: -32601,
      message: 'sampling/createMessage is not supported by the host connected to the gateway',
    });
  });
});

describe('relayProgress', () => {
  it("re-addresses the upstream's progress to the host's token, values unchanged", async () => {
    const r = request(session('s1'), 7, 'host-token');
    relayProgress(r)!({ progress: 2, total: 5, message: 'two of five' });
    await Promise.resolve();
    expect(r.sent).toEqual([{ method: 'notifications/progress', params: { progress: 2, total: 5, message: 'two of five', progressToken: 'host-token' } }]);
  });

  it('asks for no progress when the host gave no token', () => {
    expect(relayProgress(request(session('s1'), 7))).toBeUndefined();
  });
});

describe('logging', () => {
  it('orders levels as RFC 5424 does', () => {
    expect(passes('error', 'warning')).toBe(true);
    expect(passes('info', 'warning')).toBe(false);
    expect(passes('debug', undefined)).toBe(true);
    expect(mostVerbose([undefined, 'error', 'info', 'critical'])).toBe('info');
    expect(mostVerbose([undefined])).toBeUndefined();
  });

  const message = (level: LoggingMessageNotification['params']['level'], data: string) => ({ level, logger: 'x', data });

  it('sends to the sessions in flight, once per session, on the call, at each session level', async () => {
    const quiet = Object.assign(session('quiet'), { logLevel: 'error' as const });
    const loud = session('loud');
    const [q, l1, l2] = [request(quiet, 1), request(loud, 2), request(loud, 3)];
    const bystander = session('bystander');
    await deliverLog('files', message('info', 'hello'), { inFlight: [q, l1, l2], mayUse: [quiet, loud, bystander] });
    expect(l1.sent).toEqual([{ method: 'notifications/message', params: message('info', 'hello') }]);
    expect([q.sent, l2.sent, bystander.sent, loud.sent]).toEqual([[], [], [], []]);
  });

  it('outside any call, sends to every session that may use the upstream, at its level', async () => {
    const a = session('a');
    const b = Object.assign(session('b'), { logLevel: 'critical' as const });
    await deliverLog('files', message('warning', 'between calls'), { inFlight: [], mayUse: [a, b] });
    expect(a.sent).toEqual([{ method: 'notifications/message', params: message('warning', 'between calls') }]);
    expect(b.sent).toEqual([]);
  });

  it('outside any call, a session whose persona may not use the upstream gets nothing', async () => {
    const relay = new Relay({ mayUse: (persona, upstream) => persona === 'files-user' && upstream === 'files', requestMs: 1000 });
    const server = (sent: ServerNotification[]) =>
      ({ setRequestHandler: () => undefined, setNotificationHandler: () => undefined, notification: async (n: ServerNotification) => void sent.push(n) }) as unknown as Server;
    const [mine, theirs]: ServerNotification[][] = [[], []];
    relay.join({ id: 'a', persona: 'files-user' }, server(mine));
    relay.join({ id: 'b', persona: 'web-user' }, server(theirs));
    await relay.log('files', message('info', 'file indexed'));
    expect(mine).toHaveLength(1);
    expect(theirs).toEqual([]);
  });
});

describe('Relay.hostRequest', () => {
  it("takes the host's progress token apart from its other _meta", () => {
    const relay = new Relay({ mayUse: () => true, requestMs: 1000 });
    const s = session('s1');
    const signal = new AbortController().signal;
    const mcpReq = { id: 4, signal, _meta: { progressToken: 'p1', 'example.com/trace': 't' }, send: async () => undefined, notify: async () => undefined };
    const r = relay.hostRequest(s, { mcpReq } as never);
    expect({ requestId: r.requestId, progressToken: r.progressToken, meta: r.meta, signal: r.signal === signal }).toEqual({
      requestId: 4,
      progressToken: 'p1',
      meta: { 'example.com/trace': 't' },
      signal: true,
    });
    expect(relay.hostRequest(s, { mcpReq: { ...mcpReq, _meta: undefined } } as never)).not.toHaveProperty('meta');
  });
});

describe('UrlElicitations', () => {
  it('routes a completion to the session asked, once, and forgets the oldest past its bound', () => {
    const urls = new UrlElicitations();
    const [a, b] = [session('a'), session('b')];
    urls.remember('files', 'e1', a);
    urls.remember('web', 'e1', b);
    expect(urls.take('files', 'e1')?.id).toBe('a');
    expect(urls.take('files', 'e1')).toBeUndefined();
    for (let i = 0; i < MAX_OPEN_URL_ELICITATIONS; i++) urls.remember('files', `n${i}`, a);
    expect(urls.take('web', 'e1')).toBeUndefined();
    expect(urls.take('files', `n${MAX_OPEN_URL_ELICITATIONS - 1}`)?.id).toBe('a');
  });
});

describe('cancellationGuard', () => {
  it('never forwards a call whose host cancelled it, and notes why', async () => {
    let forwarded = 0;
    const call = compose([cancellationGuard], async () => {
      forwarded++;
      return { content: [] };
    });
    const abort = new AbortController();
    const ctx: CallContext = { session: { sessionId: 's1' }, requestedName: 'slow', args: {}, decisions: [], notes: [], host: { ...request(session('s1'), 1), signal: abort.signal } };
    await call(ctx);
    expect(forwarded).toBe(1);
    abort.abort();
    const r = await call({ ...ctx, decisions: [], notes: [] });
    expect(forwarded).toBe(1);
    expect(r).toEqual({ isError: true, content: [{ type: 'text', text: 'the host cancelled slow; it has not run' }] });
  });
});
