import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/server';
import { describe, expect, test } from 'vitest';
import { buildCatalog } from '../../src/catalog/catalog.js';
import { assignNames, MAX_EXPOSED_LENGTH, toolKey, validName } from '../../src/catalog/names.js';
import { openStore } from '../../src/store/index.js';

const tool = (name: string): Tool => ({ name, inputSchema: { type: 'object' } });
const servers = (spec: Record<string, string[]>) => new Map(Object.entries(spec).map(([s, names]) => [s, names.map(tool)]));
const exposed = (byServer: Map<string, Tool[]>, remembered?: Map<string, string>) => {
  const { names } = assignNames(byServer, remembered);
  return buildCatalog(byServer, undefined, names).map((t) => `${t.server}:${t.upstreamName}=${t.name}`);
};
const VALID = /^[A-Za-z0-9_.-]{1,64}$/;

describe('exposed names', () => {
  test('two upstreams sharing a 50-character name: the first keeps it, the second gets ≤ 64 valid characters with a stable hash', () => {
    const long = 'sync_customer_records_between_crm_and_warehouse_v2';
    expect(long).toHaveLength(50);
    const byServer = servers({ crm_sync_primary: [long], crm_sync_secondary: [long] });
    const { names } = assignNames(byServer);
    const first = names.get(toolKey('crm_sync_primary', long))!;
    const second = names.get(toolKey('crm_sync_secondary', long))!;
    expect(first).toBe(long);
    expect(second.length).toBeLessThanOrEqual(MAX_EXPOSED_LENGTH);
    expect(second).toMatch(VALID);
    expect(second).toMatch(/^crm_sync_secondary__sync_customer_records_between_crm_a_[0-9a-f]{8}$/);
    expect(assignNames(byServer).names.get(toolKey('crm_sync_secondary', long))).toBe(second); // same on every start
  });

  test('characters outside [A-Za-z0-9_.-] become _, and an over-long name is shortened with its hash', () => {
    expect(validName('send mail!', 'k')).toBe('send_mail_');
    const n = validName('a'.repeat(200), 's\0a');
    expect(n).toHaveLength(64);
    expect(n).toMatch(/^a{55}_[0-9a-f]{8}$/);
    expect(validName('a'.repeat(200), 'other\0a')).not.toBe(n);
  });

  test("an upstream's literal x__y, x being another upstream, is renamed: it never reads as x's tool", () => {
    const byServer = servers({ web: ['y'], x: ['y'], other: ['x__y', 'other__z', 'X__Y2'] });
    const list = exposed(byServer);
    expect(list).toEqual(['other:x__y=other__x__y', 'other:X__Y2=other__X__Y2', 'other:other__z=other__z', 'web:y=y', 'x:y=x__y']);
    // A configured upstream that is not connected counts as well.
    const { names } = assignNames(servers({ other: ['down__search'] }), new Map(), ['other', 'down']);
    expect(names.get(toolKey('other', 'down__search'))).toBe('other__down__search');
  });

  test('a remembered x__y is not kept once an upstream x is configured', () => {
    const { names, changed } = assignNames(servers({ other: ['x__y'] }), new Map([[toolKey('other', 'x__y'), 'x__y']]), ['other', 'x']);
    expect(names.get(toolKey('other', 'x__y'))).toBe('other__x__y');
    expect(changed).toEqual([{ server: 'other', upstreamName: 'x__y', from: 'x__y', to: 'other__x__y' }]);
  });

  test('a second server adding an existing name at runtime: the first owner keeps the plain name', () => {
    const before = assignNames(servers({ github: ['search', 'get_issue'] }));
    expect(before.names.get(toolKey('github', 'search'))).toBe('search');
    // gitlab (earlier in config order) now lists search as well.
    const after = assignNames(new Map([['gitlab', [tool('search')]], ['github', [tool('search'), tool('get_issue')]]]), before.names);
    expect(after.names.get(toolKey('github', 'search'))).toBe('search');
    expect(after.names.get(toolKey('gitlab', 'search'))).toBe('gitlab__search');
    expect(after.changed).toEqual([]);
    // Without the memory (the old behaviour), config order alone would have taken the name from github.
    expect(assignNames(new Map([['gitlab', [tool('search')]], ['github', [tool('search')]]])).names.get(toolKey('github', 'search'))).toBe('github__search');
  });

  test('restart: the mapping comes back from the store, whatever the config order', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tc-names-')), 'store.db');
    const first = await openStore(file);
    const run1 = assignNames(servers({ a: ['search', 'read'], b: ['search'] }), await first.names.load());
    await first.names.save([...run1.names].map(([k, name]) => ({ server: k.split('\0')[0]!, upstreamName: k.split('\0')[1]!, name })));
    expect(run1.names.get(toolKey('a', 'search'))).toBe('search');
    await first.close();

    const second = await openStore(file);
    const run2 = assignNames(servers({ b: ['search'], a: ['search', 'read'] }), await second.names.load());
    await second.close();
    expect(run2.names).toEqual(run1.names);
    expect(run2.changed).toEqual([]);
  });

  test('a remembered name that cannot be kept is reassigned and reported', () => {
    const remembered = new Map([[toolKey('a', 'search'), 'search'], [toolKey('b', 'search'), 'search']]);
    const { names, changed } = assignNames(servers({ a: ['search'], b: ['search'] }), remembered);
    expect(names.get(toolKey('a', 'search'))).toBe('search');
    expect(changed).toEqual([{ server: 'b', upstreamName: 'search', from: 'search', to: 'b__search' }]);
  });

  test('every name is unique and valid over a catalog of clashing, long and odd names', () => {
    const odd = ['search', 'x'.repeat(70), 'a b', 'a_b', 'a__search', 'search.v2'];
    const byServer = servers({ a: odd, b: odd, c: odd, a__a: ['search'] });
    const names = [...assignNames(byServer).names.values()];
    expect(names).toHaveLength(19);
    expect(new Set(names).size).toBe(19);
    for (const n of names) expect(n).toMatch(VALID);
  });
});
