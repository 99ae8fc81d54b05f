/**
 * Pinned tool definitions on each backend: a definition pinned once however many
 * replicas see it first, a change recorded as pending, accepted only as the digest the
 * person was shown (with the signature of who accepted it), and the `definition` event.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { BACKENDS, setupBackends } from '../helpers/stores.js';

setupBackends();

describe.each(BACKENDS)('definitions on $kind', (backend) => {
  let t: number;
  let location: string;
  const open: Store[] = [];
  const another = async () => {
    const s = await backend.open(location, { now: () => t });
    open.push(s);
    return s;
  };
  beforeEach(async () => {
    t = 1_000;
    location = await backend.fresh();
  });
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
  });

  const pin = (digest: string) => ({ server: 'mail', upstreamName: 'send_email', digest, definition: `{"d":"${digest}"}` });

  test('replicas seeing a tool first at once pin one definition: the first wins, the rest get it back', async () => {
    const replicas = [await another(), await another(), await another()];
    const results = await Promise.all(replicas.map((r, i) => r.definitions.pinIfAbsent(pin(`d${i}`))));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const winner = results.find((r) => r.created)!.pin;
    for (const r of results) expect(r.pin).toEqual(winner);
    expect(winner).toMatchObject({ status: 'accepted', firstSeenAt: 1_000 });
    expect(await replicas[0]!.definitions.list()).toEqual([winner]);
  });

  test('many first-seen definitions pinned together: more than one transaction of them, an existing pin kept, every row returned', async () => {
    const [a, b] = [await another(), await another()];
    await a.definitions.pinIfAbsent({ server: 'big', upstreamName: 'tool_7', digest: 'kept', definition: '{}' });
    const pins = Array.from({ length: 1_203 }, (_, i) => ({ server: i % 2 === 0 ? 'big' : 'other', upstreamName: `tool_${i}`, digest: `d${i}`, definition: `{"i":${i}}` }));
    const stored = await b.definitions.pinAllIfAbsent(pins);
    expect(stored).toHaveLength(1_203);
    const byKey = new Map(stored.map((p) => [`${p.server}/${p.upstreamName}`, p]));
    expect(byKey.get('other/tool_7')).toMatchObject({ digest: 'd7', status: 'accepted', firstSeenAt: 1_000 });
    // tool_7 of `big` was not listed by b (7 is odd: it went to `other`); tool_8 of big is new.
    expect(byKey.get('big/tool_8')).toMatchObject({ digest: 'd8', definition: '{"i":8}' });
    expect(await a.definitions.get('big', 'tool_7')).toMatchObject({ digest: 'kept' });
    // Pinning the same definitions again changes nothing and returns the same rows.
    const again = await a.definitions.pinAllIfAbsent([...pins.slice(0, 3), { server: 'big', upstreamName: 'tool_7', digest: 'other', definition: '{}' }]);
    expect(again.find((p) => p.server === 'big' && p.upstreamName === 'tool_7')).toMatchObject({ digest: 'kept' });
    expect((await a.definitions.list()).length).toBe(1_204);
    expect(await b.definitions.pinAllIfAbsent([])).toEqual([]);
  });

  test('a change waits as pending; accept takes only the digest shown; the pin moves and is announced', async () => {
    const [store, other] = [await another(), await another()];
    await store.definitions.pinIfAbsent(pin('d1'));
    t = 2_000;
    expect(await store.definitions.markChanged('mail', 'send_email', 'd2', '{"d":"d2"}')).toMatchObject({ digest: 'd1', status: 'changed', pendingDigest: 'd2', changedAt: 2_000 });
    t = 3_000;
    // Seen again: still the same change, first seen at 2 000.
    expect(await store.definitions.markChanged('mail', 'send_email', 'd2', '{"d":"d2"}')).toMatchObject({ changedAt: 2_000 });
    expect((await store.definitions.list({ status: 'changed' })).map((p) => p.upstreamName)).toEqual(['send_email']);
    expect(await store.definitions.markChanged('mail', 'nope', 'x', '{}')).toBeUndefined();

    const heard = new Promise((resolve) => other.events.on('definition', resolve));
    await new Promise<void>((resolve) => other.events.on('resync', () => resolve()));
    // Changed again before the person decided: what they saw (d2) is not what is pending (d3).
    await store.definitions.markChanged('mail', 'send_email', 'd3', '{"d":"d3"}');
    expect(await store.definitions.accept('mail', 'send_email', 'd2', 'ana')).toBe(false);
    t = 4_000;
    expect(await store.definitions.accept('mail', 'send_email', 'd3', 'ana', 'ed25519:signed-d3')).toBe(true);
    expect(await heard).toEqual({ server: 'mail', upstreamName: 'send_email' });
    expect(await store.definitions.get('mail', 'send_email')).toEqual({
      server: 'mail', upstreamName: 'send_email', digest: 'd3', definition: '{"d":"d3"}', status: 'accepted',
      firstSeenAt: 1_000, changedAt: 3_000, decidedAt: 4_000, decidedBy: 'ana', proof: 'ed25519:signed-d3',
      priorDigest: 'd1', priorDefinition: '{"d":"d1"}',
    });
    expect(await store.definitions.accept('mail', 'send_email', 'd3', 'ana')).toBe(false);
    // The time of an acceptance is the one its signature names, when given.
    await store.definitions.markChanged('mail', 'send_email', 'd4', '{"d":"d4"}');
    expect(await store.definitions.accept('mail', 'send_email', 'd4', 'web:ann', 'idp:3500:sig', 3_500)).toBe(true);
    expect(await store.definitions.get('mail', 'send_email')).toMatchObject({ digest: 'd4', decidedAt: 3_500, decidedBy: 'web:ann', priorDigest: 'd3' });
  });

  test('reopen: an acceptance that stopped counting puts back the definition it replaced, the accepted one pending again, and is announced', async () => {
    const [store, other] = [await another(), await another()];
    await store.definitions.pinIfAbsent(pin('d1'));
    // A definition pinned when first seen was accepted by no one: nothing to reopen.
    expect(await store.definitions.reopen('mail', 'send_email', 'd1', 'x')).toMatchObject({ digest: 'd1', status: 'accepted' });
    await store.definitions.markChanged('mail', 'send_email', 'd2', '{"d":"d2"}');
    t = 2_000;
    await store.definitions.accept('mail', 'send_email', 'd2', 'web:ann', 'idp:2000:sig:e30');
    const heard = new Promise((resolve) => other.events.on('definition', resolve));
    await new Promise<void>((resolve) => other.events.on('resync', () => resolve()));
    // Only the digest accepted: a replica that read an older pin changes nothing.
    expect(await store.definitions.reopen('mail', 'send_email', 'd1', 'ann is gone')).toMatchObject({ digest: 'd2', status: 'accepted' });
    t = 3_000;
    expect(await store.definitions.reopen('mail', 'send_email', 'd2', 'ann is gone')).toEqual({
      server: 'mail', upstreamName: 'send_email', digest: 'd1', definition: '{"d":"d1"}', status: 'changed', pendingDigest: 'd2',
      pendingDefinition: '{"d":"d2"}', firstSeenAt: 1_000, changedAt: 3_000, voided: 'ann is gone',
    });
    expect(await heard).toEqual({ server: 'mail', upstreamName: 'send_email' });
    // Accepted again by a person: the reason goes, d1 is the prior once more.
    expect(await store.definitions.accept('mail', 'send_email', 'd2', 'cli', 'ed25519:3000:sig', 3_000)).toBe(true);
    const again = (await store.definitions.get('mail', 'send_email'))!;
    expect(again).toMatchObject({ digest: 'd2', status: 'accepted', priorDigest: 'd1', decidedBy: 'cli' });
    expect(again).not.toHaveProperty('voided');

    // A later change pending when the acceptance stops counting stays the pending one (what the upstream lists).
    await store.definitions.markChanged('mail', 'send_email', 'd3', '{"d":"d3"}');
    expect(await store.definitions.reopen('mail', 'send_email', 'd2', 'key gone')).toMatchObject({ digest: 'd1', pendingDigest: 'd3', status: 'changed' });
  });

  test('clearChange drops a pending change (the upstream went back)', async () => {
    const store = await another();
    await store.definitions.pinIfAbsent(pin('d1'));
    await store.definitions.markChanged('mail', 'send_email', 'd2', '{}');
    await store.definitions.clearChange('mail', 'send_email');
    const p = await store.definitions.get('mail', 'send_email');
    expect(p).toMatchObject({ digest: 'd1', status: 'accepted' });
    expect(p).not.toHaveProperty('pendingDigest');
    expect(await store.definitions.list({ status: 'changed' })).toEqual([]);
  });
});
