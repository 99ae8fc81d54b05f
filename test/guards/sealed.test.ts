/**
 * Sealed requestState on each store backend: one key for every replica, a state opened by
 * another replica, and refused when forged, tampered, expired, made for another
 * authorization or echoed a second time (on the same replica or another).
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { isSealed, matches, RequestStateSealer, SealedStateError, SEALED_PREFIX } from '../../src/guards/sealed.js';
import type { Store } from '../../src/store/index.js';
import { bindingOf } from '../../src/host/era.js';
import { credentialOf } from '../../src/host/http.js';
import { BACKENDS, setupBackends } from '../helpers/stores.js';

setupBackends();

const ALICE = { persona: 'student', account: 'u:S0001' };
const CONFIRM = { kind: 'confirm', tool: 'make_payment', argsDigest: 'a1', definitionDigest: 'd1' };

/** The reason a promise rejected with, or 'resolved'. */
async function reasonOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'resolved';
  } catch (err) {
    return err instanceof SealedStateError ? err.reason : `other: ${(err as Error).message}`;
  }
}

describe.each(BACKENDS)('sealed requestState on $kind', (backend) => {
  let t: number;
  let stores: Store[];
  let replicaA: RequestStateSealer;
  let replicaB: RequestStateSealer;

  beforeEach(async () => {
    t = 1_800_000_000_000;
    const location = await backend.fresh();
    stores = [await backend.open(location, { now: () => t }), await backend.open(location, { now: () => t })];
    replicaA = new RequestStateSealer(stores[0]!.sealing, () => t);
    replicaB = new RequestStateSealer(stores[1]!.sealing, () => t);
  });
  afterEach(async () => {
    await Promise.all(stores.map((s) => s.close()));
  });

  test('both replicas read one key; a state sealed by one opens on the other, once', async () => {
    const [k1, k2] = await Promise.all([stores[0]!.sealing.key(), stores[1]!.sealing.key()]);
    expect(k1.length).toBe(32);
    expect(k2.equals(k1)).toBe(true);
    const state = await replicaA.seal(CONFIRM, ALICE, 60_000);
    expect(isSealed(state)).toBe(true);
    // Opaque: nothing of the payload is readable in the token.
    expect(Buffer.from(state.slice(SEALED_PREFIX.length), 'base64url').toString('latin1')).not.toContain('make_payment');
    const opened = await replicaB.take(state, ALICE);
    expect(opened).toMatchObject({ ...CONFIRM, ...ALICE, expiresAt: t + 60_000 });
    expect(matches(opened, CONFIRM)).toBe(true);
    expect(matches(opened, { ...CONFIRM, argsDigest: 'a2' })).toBe(false);
    expect(matches(opened, { ...CONFIRM, definitionDigest: 'd2' })).toBe(false);
    // Replayed: on the replica that opened it, and on the one that sealed it.
    expect(await reasonOf(replicaB.take(state, ALICE))).toBe('replayed');
    expect(await reasonOf(replicaA.take(state, ALICE))).toBe('replayed');
  });

  test('a forged, tampered, expired or foreign state is refused without being spent', async () => {
    const state = await replicaA.seal(CONFIRM, ALICE, 60_000);
    const raw = Buffer.from(state.slice(SEALED_PREFIX.length), 'base64url');
    raw[20] = raw[20]! ^ 1;
    expect(await reasonOf(replicaA.take(SEALED_PREFIX + raw.toString('base64url'), ALICE))).toBe('forged');
    expect(await reasonOf(replicaA.take('eyJhbGciOiJub25lIn0.eyJraW5kIjoiY29uZmlybSJ9.', ALICE))).toBe('malformed');
    expect(await reasonOf(replicaA.take(`${SEALED_PREFIX}AAAA`, ALICE))).toBe('malformed');
    expect(await reasonOf(replicaA.take(state, { persona: 'student', account: 'u:S0002' }))).toBe('other-authorization');
    expect(await reasonOf(replicaA.take(state, { account: 'u:S0001' }))).toBe('other-authorization');
    // A state sealed with another key (another gateway's store) does not open here.
    const foreign = new RequestStateSealer({ key: async () => Buffer.alloc(32, 7), spend: async () => true }, () => t);
    expect(await reasonOf(replicaA.take(await foreign.seal(CONFIRM, ALICE, 60_000), ALICE))).toBe('forged');
    t += 60_000;
    expect(await reasonOf(replicaA.take(state, ALICE))).toBe('expired');
    t -= 1;
    // None of the refusals above spent it: its owner, in time, still gets it once.
    expect(await reasonOf(replicaA.take(state, ALICE))).toBe('resolved');
  });

  test('two static tokens of one persona without a user are two authorizations', async () => {
    // What host/era.ts bindingOf gives their sessions: the persona and each token's fingerprint.
    const tokenA = bindingOf({ sessionId: 's1', persona: 'student', credential: credentialOf('static-token-a-0123456789') });
    const tokenB = bindingOf({ sessionId: 's2', persona: 'student', credential: credentialOf('static-token-b-0123456789') });
    expect(tokenA).toEqual({ persona: 'student', credential: credentialOf('static-token-a-0123456789') });
    expect(tokenA.credential).toMatch(/^[0-9a-f]{32}$/);
    expect(tokenA.credential).not.toContain('static-token');
    const state = await replicaA.seal(CONFIRM, tokenA, 60_000);
    expect(await reasonOf(replicaA.take(state, tokenB))).toBe('other-authorization');
    expect(await reasonOf(replicaA.take(state, { persona: 'student' }))).toBe('other-authorization');
    expect(await reasonOf(replicaB.take(state, tokenA))).toBe('resolved');
    // With a user named, the user is the authorization: the token it came with does not matter.
    const alice = bindingOf({ sessionId: 's3', persona: 'student', userId: 'alice', credential: credentialOf('static-token-a-0123456789') });
    expect(alice.credential).toBeUndefined();
  });
});
