/**
 * Events on each backend: delivered at once in the emitting process, to another process
 * on the same store (NOTIFY; SQLite: the events table, read every second), never twice,
 * and `resync` when listening starts.
 */
import { describe, expect, test } from 'vitest';
import type { StoreEvents } from '../../src/store/index.js';
import { BACKENDS, freshStores, setupBackends } from '../helpers/stores.js';

setupBackends();

describe.each(BACKENDS)('events on $kind', (backend) => {
  const stores = freshStores(backend);
  const another = stores.another;

  test('the emitting process hears its event at once, once; another hears it once too; unsubscribing stops delivery', async () => {
    const [a, b] = [await another(), await another()];
    const inA: StoreEvents['approval'][] = [];
    const inB: StoreEvents['approval'][] = [];
    const offA = a.events.on('approval', (p) => inA.push(p));
    b.events.on('approval', (p) => inB.push(p));
    await new Promise<void>((resolve) => b.events.on('resync', () => resolve()));
    const reached = new Promise<void>((resolve) => b.events.on('approval', (p) => p.id === 'two' && resolve()));
    await a.events.emit('approval', { id: 'one', status: 'approved' });
    expect(inA).toEqual([{ id: 'one', status: 'approved' }]);
    offA();
    await a.events.emit('approval', { id: 'two', status: 'denied' });
    await reached;
    expect(inA).toHaveLength(1);
    expect(inB).toEqual([{ id: 'one', status: 'approved' }, { id: 'two', status: 'denied' }]);
  });

  test('a topic only reaches its own listeners', async () => {
    const [a, b] = [await another(), await another()];
    const names: unknown[] = [];
    b.events.on('names', (p) => names.push(p));
    await new Promise<void>((resolve) => b.events.on('resync', () => resolve()));
    const oauth = new Promise((resolve) => b.events.on('oauth', resolve));
    await a.events.emit('oauth', { upstream: 'u', subject: '' });
    expect(await oauth).toEqual({ upstream: 'u', subject: '' });
    expect(names).toEqual([]);
  });
});
