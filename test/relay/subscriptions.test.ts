/**
 * Subscriptions counted across sessions, against a real SDK server (2025-11-25) over an
 * in-process transport pair (the pool is reduced to what Subscriptions reads: the
 * connection's resource subscriptions, upstream/listen.ts, and events).
 */
import { EventEmitter } from 'node:events';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, Server } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { Subscriptions } from '../../src/relay/subscriptions.js';
import { watchChanges } from '../../src/upstream/listen.js';
import type { UpstreamPool } from '../../src/upstream/pool.js';

async function upstream() {
  const calls: string[] = [];
  const server = new Server({ name: 'up', version: '1' }, { capabilities: { resources: { subscribe: true } } });
  server.setRequestHandler('resources/subscribe', (req) => (calls.push(`subscribe ${req.params.uri}`), {}));
  server.setRequestHandler('resources/unsubscribe', (req) => (calls.push(`unsubscribe ${req.params.uri}`), {}));
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'gateway', version: '1' });
  await client.connect(b);
  const watch = watchChanges('up', { client, era: '2025' }, { current: () => true, timeoutMs: 10_000 });
  const pool = Object.assign(new EventEmitter(), {
    subscribeResource: (s: string, uri: string) => (s === 'up' ? watch.subscribe(uri) : Promise.reject(new Error(`upstream "${s}" is unavailable; try again later`))),
    unsubscribeResource: (s: string, uri: string) => (s === 'up' ? watch.unsubscribe(uri) : Promise.resolve()),
  });
  return { calls, pool, subs: new Subscriptions(pool as unknown as UpstreamPool) };
}

const target = { server: 'up', uri: 'db://rows', exposed: 'db://rows' };

describe('Subscriptions', () => {
  it('subscribes upstream once for many sessions and unsubscribes when the last session ends', async () => {
    const { calls, subs } = await upstream();
    const got: Record<string, string[]> = { s1: [], s2: [] };
    await subs.subscribe('s1', target, { notify: (u) => got.s1!.push(u), mayRead: () => true });
    await subs.subscribe('s2', { ...target, exposed: 'tool-curator://up/db://rows' }, { notify: (u) => got.s2!.push(u), mayRead: () => true });
    await subs.subscribe('s1', target, { notify: (u) => got.s1!.push(u), mayRead: () => true });
    expect(calls).toEqual(['subscribe db://rows']);
    expect(subs.holders('up', 'db://rows')).toBe(2);
    await subs.dropSession('s1');
    expect(calls).toEqual(['subscribe db://rows']);
    await subs.dropSession('s2');
    expect(calls).toEqual(['subscribe db://rows', 'unsubscribe db://rows']);
    expect(subs.holders('up', 'db://rows')).toBe(0);
  });

  it('an update goes to each subscribed session under the URI it used, and to no other', async () => {
    const { pool, subs } = await upstream();
    const got: Record<string, string[]> = { s1: [], s2: [], s3: [] };
    await subs.subscribe('s1', target, { notify: (u) => got.s1!.push(u), mayRead: () => true });
    await subs.subscribe('s2', { ...target, exposed: 'tool-curator://up/db://rows' }, { notify: (u) => got.s2!.push(u), mayRead: () => true });
    await subs.subscribe('s3', { ...target, uri: 'db://other', exposed: 'db://other' }, { notify: (u) => got.s3!.push(u), mayRead: () => true });
    pool.emit('resource-updated', 'up', 'db://rows');
    expect(got).toEqual({ s1: ['db://rows'], s2: ['tool-curator://up/db://rows'], s3: [] });
  });

  it('a reconnected upstream is subscribed again to what sessions still hold', async () => {
    const { calls, pool, subs } = await upstream();
    await subs.subscribe('s1', target, { notify: () => undefined, mayRead: () => true });
    pool.emit('reconnected', 'up');
    await expect.poll(() => calls).toEqual(['subscribe db://rows', 'subscribe db://rows']);
  });

  it('an unavailable upstream fails the subscribe and leaves nothing held', async () => {
    const { subs } = await upstream();
    await expect(subs.subscribe('s1', { ...target, server: 'gone' }, { notify: () => undefined, mayRead: () => true })).rejects.toThrow('upstream "gone" is unavailable; try again later');
    expect(subs.holders('gone', 'db://rows')).toBe(0);
  });
});
