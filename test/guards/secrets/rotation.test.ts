import { describe, expect, test, vi } from 'vitest';
import { HeldSecrets } from '../../../src/guards/secrets/held.js';
import { SecretRedactor } from '../../../src/guards/secrets/redactor.js';
import { OAuthSecrets } from '../../../src/guards/secrets/store.js';
import type { Store } from '../../../src/store/types.js';
import { BACKENDS, freshStores, setupBackends } from '../../helpers/stores.js';

setupBackends();

const URL_TRACKER = 'https://tracker.example/mcp';
const key = (subject = '') => ({ upstream: 'tracker', subject, url: URL_TRACKER });
const tokens = (n: number, who = 'gw') => JSON.stringify({ access_token: `at-${who}-${n}-9c1f4e7a2b`, refresh_token: `rt-${who}-${n}-5d8e0f3a6c`, token_type: 'Bearer' });
const held = (r: SecretRedactor, text: string) => r.redactText(text) !== text;

describe.each(BACKENDS)('OAuth secrets follow the store, on $kind', (backend) => {
  const stores = freshStores(backend);
  /** A held set following `store`'s OAuth state for the upstream tracker, and its redactor. */
  const follow = async (store: Store) => {
    const set = new HeldSecrets();
    const follower = new OAuthSecrets(set, store, [{ upstream: 'tracker', url: URL_TRACKER }]);
    await follower.start();
    return { set, r: new SecretRedactor(set, 'off'), follower };
  };

  test('tokens rotated by another process (a replica, the auth command) are held once its event arrives; one generation back stays held', async () => {
    const writer = await stores.another();
    const gateway = await stores.another();
    await writer.oauth.set(key(), 'tokens', tokens(1));
    const { r, follower } = await follow(gateway);
    try {
      expect(r.redactText('echo at-gw-1-9c1f4e7a2b rt-gw-1-5d8e0f3a6c')).toBe('echo [secret removed: OAuth access token of upstream tracker] [secret removed: OAuth refresh token of upstream tracker]');
      expect(held(r, 'at-gw-2-9c1f4e7a2b')).toBe(false);

      await writer.oauth.set(key(), 'tokens', tokens(2));
      await vi.waitFor(() => expect(held(r, 'at-gw-2-9c1f4e7a2b')).toBe(true), { timeout: 20_000, interval: 50 });
      expect(held(r, 'at-gw-1-9c1f4e7a2b')).toBe(true);

      await writer.oauth.set(key(), 'tokens', tokens(3));
      await vi.waitFor(() => expect(held(r, 'at-gw-3-9c1f4e7a2b')).toBe(true), { timeout: 20_000, interval: 50 });
      expect(held(r, 'at-gw-2-9c1f4e7a2b')).toBe(true);
      expect(held(r, 'at-gw-1-9c1f4e7a2b')).toBe(false);

      await writer.oauth.set(key('alice'), 'tokens', tokens(1, 'alice'));
      await writer.oauth.set(key('alice'), 'client_information', JSON.stringify({ client_id: 'c1', client_secret: 'dyn-client-secret-44af' }));
      await vi.waitFor(() => expect(held(r, 'dyn-client-secret-44af')).toBe(true), { timeout: 20_000, interval: 50 });
      expect(r.redactText('at-alice-1-9c1f4e7a2b')).toBe('[secret removed: OAuth access token of upstream tracker]');
      expect(r.redactText('dyn-client-secret-44af')).toBe('[secret removed: OAuth client secret of upstream tracker]');
    } finally {
      follower.stop();
    }
  });

  test('a write in this process is held once the tracked re-read settles, which the host step waits for', async () => {
    const store = await stores.another();
    const { set, r, follower } = await follow(store);
    try {
      expect(held(r, 'at-gw-7-9c1f4e7a2b')).toBe(false);
      await store.oauth.set(key(), 'tokens', tokens(7));
      await set.settled();
      expect(held(r, 'at-gw-7-9c1f4e7a2b')).toBe(true);
    } finally {
      follower.stop();
    }
  });

  test('tokens a provider is about to use are held at once, before any store event', async () => {
    const { r, follower } = await follow(await stores.another());
    try {
      follower.observe('tracker', 'bob', JSON.parse(tokens(3, 'bob')) as object);
      expect(held(r, 'rt-bob-3-5d8e0f3a6c')).toBe(true);
      follower.observe('unknown-upstream', '', JSON.parse(tokens(4, 'x')) as object);
      expect(held(r, 'at-x-4-9c1f4e7a2b')).toBe(false);
    } finally {
      follower.stop();
    }
  });
});
