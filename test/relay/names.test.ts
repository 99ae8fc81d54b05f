/** Relayed names and the gateway's cursor, without a network. */
import type { Prompt, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, test } from 'vitest';
import { encodeCursor, paginate } from '../../src/relay/cursor.js';
import { buildRelayCatalog, prefixUri, unprefixUri } from '../../src/relay/names.js';

const upstream = (name: string, resources: string[], templates: string[], prompts: string[]) => ({
  name,
  caps: {},
  lists: {
    resources: resources.map((uri): Resource => ({ uri, name: uri })),
    templates: templates.map((uriTemplate): ResourceTemplate => ({ uriTemplate, name: uriTemplate })),
    prompts: prompts.map((n): Prompt => ({ name: n, description: `${name} ${n}` })),
  },
});

describe('buildRelayCatalog', () => {
  const catalog = buildRelayCatalog([
    upstream('files', ['file:///a.txt', 'shared://x', 'file:///a.txt'], ['file:///{path}'], ['summarize', 'lint']),
    upstream('web', ['shared://x', 'https://e.com/'], ['file:///{path}', 'https://{host}/'], ['summarize']),
  ]);

  test('every holder of a colliding URI or template is prefixed; unique ones stay; an upstream duplicate is listed once', () => {
    expect(catalog.resources.map((e) => [e.server, e.upstream, e.exposed])).toEqual([
      ['files', 'file:///a.txt', 'file:///a.txt'],
      ['files', 'shared://x', 'tool-curator://files/shared://x'],
      ['web', 'shared://x', 'tool-curator://web/shared://x'],
      ['web', 'https://e.com/', 'https://e.com/'],
    ]);
    expect(catalog.templates.map((e) => e.item.uriTemplate)).toEqual(['tool-curator://files/file:///{path}', 'tool-curator://web/file:///{path}', 'https://{host}/']);
    expect(catalog.resources[1]!.item).toEqual({ uri: 'tool-curator://files/shared://x', name: 'shared://x' });
  });

  test('colliding prompts are <server>__<name>, everything else about them kept', () => {
    expect(catalog.prompts.map((e) => e.item)).toEqual([
      { name: 'files__summarize', description: 'files summarize' },
      { name: 'lint', description: 'files lint' },
      { name: 'web__summarize', description: 'web summarize' },
    ]);
  });

  test("a prefixed template still expands and matches the upstream's own template", () => {
    const t = catalog.templates[1]!;
    expect(t.matcher?.match('file:///b.md')).toEqual({ path: 'b.md' });
    // Simple expansion (RFC 6570) does not span a '/': a host sends it encoded.
    expect(t.matcher?.match('file:///docs/b.md')).toBeNull();
  });
});

describe('prefixed URIs', () => {
  const servers = new Set(['files', 'web']);
  test('round-trip, with the upstream URI verbatim (query, fragment, template braces)', () => {
    for (const uri of ['file:///a b.txt', 'https://e.com/x?q=1#f', 'file:///{path}', 'tool-curator://web/nested']) {
      expect(unprefixUri(prefixUri('files', uri), servers)).toEqual({ server: 'files', uri });
    }
  });

  test('a URI that names no configured server is not a prefixed one', () => {
    expect(unprefixUri('tool-curator://other/file:///a', servers)).toBeUndefined();
    expect(unprefixUri('file:///a', servers)).toBeUndefined();
    expect(unprefixUri('tool-curator://files', servers)).toBeUndefined();
  });
});

describe('paginate', () => {
  const items = ['a', 'b', 'c', 'd', 'e'];
  test('pages follow one another to the end; the last has no cursor', () => {
    const first = paginate(items, 2, 'prompts', 'v1');
    const second = paginate(items, 2, 'prompts', 'v1', first.nextCursor);
    const third = paginate(items, 2, 'prompts', 'v1', second.nextCursor);
    expect([first.items, second.items, third.items]).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(third.nextCursor).toBeUndefined();
  });

  test('a cursor of another list, an older version, or garbage is refused with -32602', () => {
    const cursor = encodeCursor({ k: 'prompts', v: 'v1', o: 2 });
    expect(() => paginate(items, 2, 'resources', 'v1', cursor)).toThrow('invalid cursor for resources; list again without a cursor');
    expect(() => paginate(items, 2, 'prompts', 'v2', cursor)).toThrow('the prompts list changed since this cursor was issued; list again without a cursor');
    expect(() => paginate(items, 2, 'prompts', 'v1', 'not-a-cursor')).toThrow(expect.objectContaining({ code: -32602 }));
    expect(() => paginate(items, 2, 'prompts', 'v1', encodeCursor({ k: 'prompts', v: 'v1', o: -1 }))).toThrow('invalid cursor');
  });
});
