/**
 * The OAuth part on each backend: state per (upstream, subject) bound to the URL, a
 * version that grows with every write (also across a clear), compare-and-set, and the
 * `oauth` event other replicas see.
 */
import { describe, expect, test } from 'vitest';
import { BACKENDS, freshStores, setupBackends } from '../helpers/stores.js';

setupBackends();

const URL_A = 'https://notes.example.com/mcp';
const key = (subject?: string, url = URL_A) => ({ upstream: 'notes', url, ...(subject !== undefined && { subject }) });

describe.each(BACKENDS)('oauth on $kind', (backend) => {
  const stores = freshStores(backend);
  const another = stores.another;

  test("fields per (upstream, subject); '' is the gateway's own; another URL reads as absent and is replaced", async () => {
    const store = await another();
    await store.oauth.set(key(), 'tokens', '{"access_token":"gw"}');
    await store.oauth.set(key('u1'), 'tokens', '{"access_token":"u1"}');
    await store.oauth.set(key(), 'client_information', '{"client_id":"c"}');
    expect(await store.oauth.get(key(), 'tokens')).toBe('{"access_token":"gw"}');
    expect(await store.oauth.get(key(''), 'client_information')).toBe('{"client_id":"c"}');
    expect(await store.oauth.get(key('u1'), 'tokens')).toBe('{"access_token":"u1"}');
    expect(await store.oauth.get(key('u1'), 'client_information')).toBeUndefined();
    expect(await store.oauth.get(key(undefined, 'https://other.example.com/mcp'), 'tokens')).toBeUndefined();
    await store.oauth.set(key(undefined, 'https://other.example.com/mcp'), 'discovery', '{}');
    expect(await store.oauth.get(key(), 'tokens')).toBeUndefined();
    expect(await store.oauth.get(key('u1'), 'tokens')).toBe('{"access_token":"u1"}');
    expect(await store.oauth.clear('notes')).toBe(true);
    expect(await store.oauth.clear('notes')).toBe(false);
    expect(await store.oauth.get(key('u1'), 'tokens')).toBe('{"access_token":"u1"}');
  });

  test('the version grows with every write, a clear included; 0 when nothing was ever stored', async () => {
    const store = await another();
    expect(await store.oauth.version('notes')).toBe(0);
    const seen = [];
    for (const v of ['1', '2', '3']) {
      await store.oauth.set(key(), 'tokens', v);
      seen.push(await store.oauth.version('notes'));
    }
    await store.oauth.clear('notes');
    seen.push(await store.oauth.version('notes'));
    await store.oauth.set(key(), 'tokens', '4');
    seen.push(await store.oauth.version('notes'));
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(await store.oauth.get(key(), 'tokens')).toBe('4');
  });

  test('setIf writes only over the expected value: a refresh never clears what another just stored', async () => {
    const store = await another();
    expect(await store.oauth.setIf(key(), 'tokens', undefined, 'first')).toBe(true);
    expect(await store.oauth.setIf(key(), 'tokens', undefined, 'again')).toBe(false);
    await store.oauth.set(key(), 'tokens', 'newer');
    expect(await store.oauth.setIf(key(), 'tokens', 'first', undefined)).toBe(false);
    expect(await store.oauth.get(key(), 'tokens')).toBe('newer');
    expect(await store.oauth.setIf(key(), 'tokens', 'newer', undefined)).toBe(true);
    expect(await store.oauth.get(key(), 'tokens')).toBeUndefined();
    expect(await store.oauth.setIf(key(), 'tokens', undefined, 'after')).toBe(true);
  });

  test('consented lists the subjects holding tokens, never a logged-out one', async () => {
    const store = await another();
    await store.oauth.set(key('bob'), 'tokens', '{"access_token":"b"}');
    await store.oauth.set(key('alice'), 'tokens', '{"access_token":"a"}');
    await store.oauth.set(key('carol'), 'client_information', '{"client_id":"c"}');
    await store.oauth.set(key(), 'tokens', '{"access_token":"gw"}');
    expect((await store.oauth.consented('notes')).map((c) => c.subject)).toEqual(['', 'alice', 'bob']);
    await store.oauth.clear('notes', 'alice');
    expect((await store.oauth.consented('notes')).map((c) => c.subject)).toEqual(['', 'bob']);
    expect(await store.oauth.get(key('bob'), 'tokens')).toBe('{"access_token":"b"}');
    expect((await store.oauth.consented('notes', 1)).map((c) => c.subject)).toEqual(['']);
    expect(await store.oauth.consented('other')).toEqual([]);
  });

  test('a flow is taken once, by one of two replicas, and never after it expired', async () => {
    const a = await another();
    const b = await another();
    const flow = { upstream: 'notes', subject: 'alice', data: '{"kind":"link"}' };
    await a.oauth.putFlow('f1', flow, Date.now() + 60_000);
    await a.oauth.putFlow('old', flow, Date.now() - 1);
    const taken = await Promise.all([a.oauth.takeFlow('f1'), b.oauth.takeFlow('f1')]);
    expect(taken.filter((t) => t !== undefined)).toEqual([flow]);
    expect(await b.oauth.takeFlow('old')).toBeUndefined();
    expect(await b.oauth.takeFlow('never')).toBeUndefined();
  });

  test('a flow is read by any replica, as often as asked, until it is taken or expires', async () => {
    const a = await another();
    const b = await another();
    const flow = { upstream: 'tool-curator:approvals', subject: 'session', data: '{"until":1}' };
    await a.oauth.putFlow('s1', flow, Date.now() + 60_000);
    await a.oauth.putFlow('stale', flow, Date.now() - 1);
    expect(await b.oauth.readFlow('s1')).toEqual(flow);
    expect(await a.oauth.readFlow('s1')).toEqual(flow);
    expect(await b.oauth.readFlow('stale')).toBeUndefined();
    expect(await b.oauth.takeFlow('s1')).toEqual(flow);
    expect(await a.oauth.readFlow('s1')).toBeUndefined();
    expect(await a.oauth.readFlow('never')).toBeUndefined();
  });

  test("with keep, only the latest-expiring flows of that (upstream, subject) stay; others' are untouched", async () => {
    const store = await another();
    const now = Date.now();
    const of = (subject: string) => ({ upstream: 'notes', subject, data: '{}' });
    await store.oauth.putFlow('bob-1', of('bob'), now + 60_000, 2);
    for (let i = 1; i <= 4; i++) await store.oauth.putFlow(`alice-${i}`, of('alice'), now + i * 60_000, 2);
    const left = await Promise.all(['alice-1', 'alice-2', 'alice-3', 'alice-4', 'bob-1'].map(async (id) => (await store.oauth.takeFlow(id)) !== undefined));
    expect(left).toEqual([false, false, true, true, true]);
  });

  test('another replica hears of every write', async () => {
    const writer = await another();
    const listener = await another();
    const heard: unknown[] = [];
    const all = new Promise<void>((resolve) =>
      listener.events.on('oauth', (p) => {
        heard.push(p);
        if (heard.length === 2) resolve();
      }),
    );
    // Listening may take a moment to start; events before it are missed by design (resync).
    await new Promise<void>((resolve) => listener.events.on('resync', () => resolve()));
    await writer.oauth.set(key('u7'), 'tokens', 'x');
    await writer.oauth.clear('notes', 'u7');
    await all;
    expect(heard).toEqual([{ upstream: 'notes', subject: 'u7' }, { upstream: 'notes', subject: 'u7' }]);
  });
});
