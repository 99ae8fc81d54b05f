/**
 * Resources, prompts, completions and subscriptions of a per-user upstream, end to end on
 * loopback (test/helpers/perUser.ts: a real OpenID provider, a real OAuth-protected MCP
 * upstream whose resources and prompt answer for the account of the token that asks, the
 * gateway's HTTP face, SDK clients as hosts), on both store backends: two users each read
 * their own account's notes and get their own prompt text through the same gateway, never
 * the other's nor the gateway's own account's; a user without consent sees none of them
 * and gets the consent link when reading one (in the error, or as a URL elicitation); a
 * URI the persona denies is refused for every user, consent or not; doctor counts the
 * users who hold their own authorization.
 */
import { ProtocolError, type ReadResourceResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDoctor } from '../../src/gateway/doctor.js';
import { linkIn, startPerUserGateway, type Host, type PerUserGateway } from '../helpers/perUser.js';
import { BACKENDS, setupBackends } from '../helpers/stores.js';

setupBackends();

const PERSONAS = `staff:
  allow: ["tracker.*"]
  confirm: none
  resources: { allow: ["tracker.*"], deny: ["tracker.notes://secret"] }
  prompts: { allow: ["tracker.*"] }
`;

const LONG = { timeout: 300_000 };
const textOf = (r: ReadResourceResult) => r.contents.map((c) => ('text' in c ? c.text : '')).join('\n');

/** The error a request ends with. */
async function failure(p: Promise<unknown>): Promise<ProtocolError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProtocolError);
  return err as ProtocolError;
}

describe.each(BACKENDS)('per-user resources and prompts on $kind', (backend) => {
  let g: PerUserGateway;
  let alice: Host;
  let bob: Host;
  let carol: Host;

  beforeAll(async () => {
    g = await startPerUserGateway(backend, PERSONAS, ['alice', 'bob', 'carol']);
    carol = await g.host('carol');
  }, 300_000);

  afterAll(async () => {
    await g?.close();
  });

  it("a user without consent lists none of the upstream's resources or prompts, and reading or getting one brings the link", async () => {
    expect((await carol.client.listResources()).resources.map((r) => r.uri)).toEqual([]);
    expect((await carol.client.listPrompts()).prompts.map((p) => p.name)).toEqual([]);
    const read = await failure(carol.client.readResource({ uri: 'notes://mine' }, LONG));
    expect(read.message).toContain('user "carol" has not connected theirs');
    expect(read.message).toContain('then read notes://mine again');
    expect(linkIn(read.message)?.startsWith(`${g.base}/oauth/consent/`)).toBe(true);
    const get = await failure(carol.client.getPrompt({ name: 'greeting', arguments: { topic: 'daily' } }, LONG));
    expect(get.message).toContain('then get the prompt greeting again');
    expect(linkIn(get.message)).not.toBe(linkIn(read.message));
    // No consent link for a keystroke: completion suggests nothing.
    const none = await carol.client.complete({ ref: { type: 'ref/prompt', name: 'greeting' }, argument: { name: 'topic', value: 'd' } }, LONG);
    expect(none.completion.values).toEqual([]);
    expect(await g.tokensOf('carol')).toBeUndefined();
  }, 300_000);

  it('a host with URL elicitation is asked to connect on its first read, then reads its own account', async () => {
    alice = await g.host('alice', 'alice-at-tracker');
    const changed: string[] = [];
    alice.client.setNotificationHandler('notifications/resources/list_changed', (n) => void changed.push(n.method));
    carol.client.setNotificationHandler('notifications/resources/list_changed', (n) => void changed.push(`carol ${n.method}`));
    const r = await alice.client.readResource({ uri: 'notes://mine' }, LONG);
    expect(textOf(r)).toBe('notes of alice-at-tracker');
    expect(alice.asked).toHaveLength(1);
    expect(alice.asked[0]!.mode).toBe('url');
    expect(alice.asked[0]!.url.startsWith(`${g.base}/oauth/consent/`)).toBe(true);
    // Her lists now hold the upstream's items as her account lists them, less what the persona denies.
    expect((await alice.client.listResources()).resources.map((x) => x.uri)).toEqual(['notes://mine']);
    expect((await alice.client.listPrompts()).prompts.map((p) => p.name)).toEqual(['greeting']);
    // Carol's lists are as before; only alice's sessions were told hers changed.
    expect((await carol.client.listResources()).resources).toEqual([]);
    await expect.poll(() => changed).toEqual(['notifications/resources/list_changed']);
  }, 300_000);

  it("two users each read their own notes and get their own prompt text, never the other's", async () => {
    bob = await g.host('bob', 'bob-at-tracker');
    const hello = (h: Host) => h.client.getPrompt({ name: 'greeting', arguments: { topic: 'weekly' } }, LONG);
    const first = await hello(bob);
    expect(first.messages[0]!.content).toEqual({ type: 'text', text: 'Hello bob-at-tracker, about weekly' });
    expect(bob.asked).toHaveLength(1);
    const read = (h: Host) => h.client.readResource({ uri: 'notes://mine' }, LONG).then(textOf);
    const both = await Promise.all([read(alice), read(bob), read(alice), read(bob)]);
    expect(both).toEqual(['notes of alice-at-tracker', 'notes of bob-at-tracker', 'notes of alice-at-tracker', 'notes of bob-at-tracker']);
    const prompts = await Promise.all([hello(alice), hello(bob)]);
    expect(prompts.map((p) => p.messages[0]!.content)).toEqual([
      { type: 'text', text: 'Hello alice-at-tracker, about weekly' },
      { type: 'text', text: 'Hello bob-at-tracker, about weekly' },
    ]);
    // Prefixed, the URI reaches the same user's own account.
    expect(textOf(await bob.client.readResource({ uri: 'tool-curator://tracker/notes://mine' }, LONG))).toBe('notes of bob-at-tracker');
    expect([alice.asked.length, bob.asked.length]).toEqual([1, 1]);
  }, 300_000);

  it('completions and subscriptions go through the asking user\'s own connection', async () => {
    const done = await alice.client.complete({ ref: { type: 'ref/prompt', name: 'greeting' }, argument: { name: 'topic', value: 'd' } }, LONG);
    expect(done.completion.values).toEqual(['daily']);
    await alice.client.subscribeResource({ uri: 'notes://mine' }, LONG);
    await bob.client.subscribeResource({ uri: 'notes://mine' }, LONG);
    expect(g.upstream.subscriptions).toEqual(['alice-at-tracker notes://mine', 'bob-at-tracker notes://mine']);
  }, 300_000);

  it('a URI the persona denies is refused for every user, with or without consent, and brings no link', async () => {
    for (const h of [alice, bob, carol]) {
      for (const uri of ['notes://secret', 'tool-curator://tracker/notes://secret', 'NOTES://secret']) {
        const err = await failure(h.client.readResource({ uri }, LONG));
        expect(err.code).toBe(-32602);
        expect(err.message).toBe(`Resource not found: ${uri}`);
      }
      const sub = await failure(h.client.subscribeResource({ uri: 'notes://secret' }, LONG));
      expect(sub.code).toBe(-32602);
    }
    expect(g.upstream.subscriptions.filter((s) => s.endsWith('notes://secret'))).toEqual([]);
    expect([alice.asked.length, bob.asked.length]).toEqual([1, 1]);
    expect(await g.tokensOf('carol')).toBeUndefined();
  }, 300_000);

  it('doctor reports the catalog authorization and how many users hold their own, never a token', async () => {
    const report = await runDoctor(g.loaded.file);
    const perUser = report.findings.filter((f) => f.check === 'per-user');
    expect(perUser.map((f) => [f.level, f.key])).toEqual([
      ['ok', 'upstreams.tracker.auth.per_user'],
      ['ok', 'per_user.public_url'],
    ]);
    expect(perUser[0]!.message).toBe("tracker: acts with each user's own account; the gateway's own (catalog) authorization lists its 2 tools; 2 user(s) hold their own authorization (tool-curator auth tracker --users)");
    expect(perUser[1]!.message).toBe(`consent links start at ${g.base}/oauth/consent/; the upstreams' redirect URI is ${g.base}/oauth/callback`);
    const everything = JSON.stringify(report);
    for (const secret of g.upstream.provider.secrets) expect(everything).not.toContain(secret);
  }, 300_000);
});
