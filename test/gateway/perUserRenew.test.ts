/**
 * A host's subscription to a per-user upstream's resource outlives the upstream going away:
 * through the built gateway's HTTP face (test/helpers/perUser.ts: a real OpenID provider, a
 * real OAuth-protected stateful MCP upstream, an SDK client as host), the upstream stops
 * (its listener and every connection end, its sessions are gone) and starts again on the
 * same port, still starting at first (its first new sessions get 503); once it serves, the
 * gateway has opened a new connection for the user with their stored tokens (no consent
 * asked again) and subscribed again, and an update of the resource reaches the host.
 */
import type { ServerNotification } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPerUserGateway, type Host, type PerUserGateway } from '../helpers/perUser.js';
import { BACKENDS } from '../helpers/stores.js';


const PERSONAS = `staff:
  allow: ["tracker.*"]
  confirm: none
  resources: { allow: ["tracker.*"] }
`;

const LONG = { timeout: 300_000 };

describe('a per-user subscription across an upstream restart', () => {
  let g: PerUserGateway;
  let alice: Host;
  const updated: string[] = [];

  beforeAll(async () => {
    g = await startPerUserGateway(BACKENDS[0]!, PERSONAS, ['alice'], [], { stateful: true });
    alice = await g.host('alice', 'alice-at-tracker');
    alice.client.setNotificationHandler('notifications/resources/updated', (n: ServerNotification & { method: 'notifications/resources/updated' }) => void updated.push(n.params.uri));
  }, 300_000);

  afterAll(async () => {
    await g?.close();
  });

  /** Resolves once `ok()` holds, looking every 50 ms (the test's timeout is the bound). */
  async function until(ok: () => boolean): Promise<void> {
    while (!ok()) await new Promise((r) => setTimeout(r, 50));
  }

  it('the host subscribed before the restart gets the update made after it', async () => {
    await alice.client.subscribeResource({ uri: 'notes://mine' }, LONG);
    expect(alice.asked).toHaveLength(1);
    expect(g.upstream.subscriptions).toEqual(['alice-at-tracker notes://mine']);
    expect(await g.upstream.touch('notes://mine')).toBe(1);
    await until(() => updated.length === 1);

    await g.upstream.stop();
    await g.upstream.restart(2);
    // Ready again: the gateway has subscribed alice's new connection (after two refused attempts).
    await until(() => g.upstream.subscriptions.length === 2);
    expect(g.upstream.subscriptions).toEqual(['alice-at-tracker notes://mine', 'alice-at-tracker notes://mine']);
    expect(await g.upstream.touch('notes://mine')).toBe(1);
    await until(() => updated.length === 2);
    expect(updated).toEqual(['notes://mine', 'notes://mine']);
    // Renewed with her stored tokens: no second consent.
    expect(alice.asked).toHaveLength(1);
  }, 300_000);
});
