/**
 * The exposed-name memory on each backend, and the fleet's way of using it: replicas that
 * start at once decide names under the `names` lock, each from what the others saved, so
 * they assign the same names and the first owner keeps the plain one.
 */
import { describe, expect, test } from 'vitest';
import { assignNames, toolKey } from '../../src/catalog/names.js';
import { BACKENDS, freshStores, setupBackends } from '../helpers/stores.js';

setupBackends();

const tools = (spec: Record<string, string[]>) => new Map(Object.entries(spec).map(([server, names]) => [server, names.map((name) => ({ name, inputSchema: { type: 'object' as const } }))]));

describe.each(BACKENDS)('names on $kind', (backend) => {
  const stores = freshStores(backend);
  const another = stores.another;

  test('save inserts and replaces; rows of tools not listed stay; a change is announced', async () => {
    const store = await another();
    const announced: unknown[] = [];
    store.events.on('names', (p) => announced.push(p));
    await store.names.save([{ server: 'a', upstreamName: 'search', name: 'search' }, { server: 'b', upstreamName: 'search', name: 'b__search' }]);
    await store.names.save([{ server: 'b', upstreamName: 'search', name: 'b__search' }]);
    expect(announced).toHaveLength(1);
    await store.names.save([{ server: 'b', upstreamName: 'search', name: 'b_search' }, { server: 'b', upstreamName: 'search', name: 'b_search2' }]);
    expect(await store.names.load()).toEqual(new Map([[toolKey('a', 'search'), 'search'], [toolKey('b', 'search'), 'b_search2']]));
    expect(announced).toHaveLength(2);
  });

  test('three replicas starting at once assign the same names; the first owner keeps the plain one', async () => {
    const replicas = [await another(), await another(), await another()];
    // Each replica lists its upstreams in another order: without the shared memory, each would crown another owner.
    const orders = [{ a: ['search', 'read'], b: ['search'] }, { b: ['search'], a: ['search', 'read'] }, { b: ['search'], a: ['read', 'search'] }];
    const assigned = await Promise.all(
      replicas.map((r, i) =>
        r.lock('names', async () => {
          const remembered = await r.names.load();
          const { names } = assignNames(tools(orders[i]!), remembered);
          await r.names.save([...names].map(([k, name]) => ({ server: k.split('\0')[0]!, upstreamName: k.split('\0')[1]!, name })));
          return names;
        }),
      ),
    );
    expect(assigned[1]).toEqual(assigned[0]);
    expect(assigned[2]).toEqual(assigned[0]);
    // Whichever replica took the lock first crowned the owner of the plain name; the others kept it.
    const first = assigned[0]!;
    const owner = first.get(toolKey('a', 'search')) === 'search' ? 'a' : 'b';
    const other = owner === 'a' ? 'b' : 'a';
    expect(first).toEqual(new Map([[toolKey('a', 'read'), 'read'], [toolKey(owner, 'search'), 'search'], [toolKey(other, 'search'), `${other}__search`]]));
    expect(await replicas[2]!.names.load()).toEqual(first);
  });
});

describe.each(BACKENDS)('relayed names on $kind', (backend) => {
  const stores = freshStores(backend);

  test('each kind apart; insert and replace; rows not listed stay; a second store sees them', async () => {
    const [store, replica] = [await stores.another(), await stores.another()];
    await store.relayNames.save('prompts', [{ server: 'beta', upstreamName: 'summarize', name: 'summarize' }, { server: 'alpha', upstreamName: 'summarize', name: 'alpha__summarize' }], 100);
    await store.relayNames.save('resources', [{ server: 'alpha', upstreamName: 'shared://config', name: 'tool-curator://alpha/shared://config' }], 100);
    await store.relayNames.save('prompts', [{ server: 'alpha', upstreamName: 'summarize', name: 'alpha__summarize_1' }], 100);
    expect(await replica.relayNames.load('prompts')).toEqual(new Map([[toolKey('beta', 'summarize'), 'summarize'], [toolKey('alpha', 'summarize'), 'alpha__summarize_1']]));
    expect(await replica.relayNames.load('resources')).toEqual(new Map([[toolKey('alpha', 'shared://config'), 'tool-curator://alpha/shared://config']]));
    expect(await replica.relayNames.load('templates')).toEqual(new Map());
  });

  test('bounded per kind: past the bound, the names assigned longest ago go', async () => {
    const store = await stores.another();
    const prompt = (i: number) => ({ server: 's', upstreamName: `p${i}`, name: `p${i}` });
    await store.relayNames.save('prompts', [prompt(1), prompt(2)], 3);
    await new Promise((r) => setTimeout(r, 5));
    await store.relayNames.save('prompts', [prompt(3), prompt(4)], 3);
    await store.relayNames.save('templates', [prompt(9)], 3);
    // p1 and p2 were saved at one instant: the one last in key order of those stays.
    expect([...(await store.relayNames.load('prompts')).values()].sort()).toEqual(['p2', 'p3', 'p4']);
    expect([...(await store.relayNames.load('templates')).values()]).toEqual(['p9']);
  });
});
