/**
 * Learned evidence on each backend: the SQL counts distinct users and uses per (query,
 * tool) within a persona and tenant, from a time on; forget deletes what matches.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { BACKENDS, setupBackends } from '../helpers/stores.js';

setupBackends();

describe.each(BACKENDS)('learned on $kind', (backend) => {
  let store: Store;
  beforeEach(async () => {
    store = await backend.open(await backend.fresh(), { now: () => 5_000 });
  });
  afterEach(() => store.close());

  test('pairs: distinct users, uses and the latest time, at least minUsers, since a time, per persona and tenant', async () => {
    const add = (userId: string, query: string, tool: string, at: number, persona = 'student', tenant?: string) =>
      store.learned.add({ persona, userId, query, tool, at, ...(tenant !== undefined && { tenant }) });
    await add('u1', 'pay my fees', 'make_payment', 100);
    await add('u1', 'pay my fees', 'make_payment', 200);
    await add('u2', 'pay my fees', 'make_payment', 300);
    await add('u3', 'pay my fees', 'make_payment', 50);
    await add('u1', 'pay my fees', 'get_fee_dues', 400);
    await add('u9', 'pay my fees', 'make_payment', 500, 'faculty');
    await add('u8', 'pay my fees', 'make_payment', 600, 'student', 'acme');
    await store.learned.add({ persona: 'student', userId: 'u4', query: 'grades', tool: 'get_my_grades' });
    expect(await store.learned.pairs({ persona: 'student', minUsers: 2 })).toEqual([{ query: 'pay my fees', tool: 'make_payment', users: 3, count: 4, lastAt: 300 }]);
    expect(await store.learned.pairs({ persona: 'student', minUsers: 2, since: 100 })).toEqual([{ query: 'pay my fees', tool: 'make_payment', users: 2, count: 3, lastAt: 300 }]);
    expect(await store.learned.pairs({ persona: 'student', minUsers: 1, since: 1_000 })).toEqual([{ query: 'grades', tool: 'get_my_grades', users: 1, count: 1, lastAt: 5_000 }]);
    expect(await store.learned.pairs({ persona: 'student', tenant: 'acme', minUsers: 1 })).toEqual([{ query: 'pay my fees', tool: 'make_payment', users: 1, count: 1, lastAt: 600 }]);
  });

  test('forget deletes the rows matching every given field', async () => {
    for (const [persona, tool] of [['student', 'a'], ['student', 'b'], ['faculty', 'a']]) await store.learned.add({ persona: persona!, userId: 'u', query: 'q', tool: tool!, at: 1 });
    expect(await store.learned.forget({ persona: 'student', tool: 'a' })).toBe(1);
    expect(await store.learned.forget({ tool: 'a' })).toBe(1);
    expect(await store.learned.pairs({ persona: 'student', minUsers: 1 })).toEqual([{ query: 'q', tool: 'b', users: 1, count: 1, lastAt: 1 }]);
    expect(await store.learned.forget({})).toBe(1);
  });

  test('scopes lists each persona and tenant with evidence since a time; forget before a time prunes old rows only', async () => {
    await store.learned.add({ persona: 'student', userId: 'u1', query: 'q', tool: 'a', at: 10 });
    await store.learned.add({ persona: 'student', tenant: 'acme', userId: 'u2', query: 'q', tool: 'a', at: 20 });
    await store.learned.add({ persona: 'faculty', userId: 'u3', query: 'q', tool: 'a', at: 30 });
    expect(await store.learned.scopes()).toEqual([{ persona: 'faculty', tenant: '' }, { persona: 'student', tenant: '' }, { persona: 'student', tenant: 'acme' }]);
    expect(await store.learned.scopes({ since: 20 })).toEqual([{ persona: 'faculty', tenant: '' }, { persona: 'student', tenant: 'acme' }]);
    expect(await store.learned.forget({ before: 30 })).toBe(2);
    expect(await store.learned.scopes()).toEqual([{ persona: 'faculty', tenant: '' }]);
  });
});
