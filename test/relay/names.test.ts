/** Relayed names and the gateway's cursor, without a network. */
import type { Prompt, Resource, ResourceTemplateType } from '@modelcontextprotocol/server';
import { describe, expect, test } from 'vitest';
import { encodeCursor, paginate } from '../../src/relay/cursor.js';
import { buildRelayCatalog, MemoryRelayNames, prefixUri, unprefixUri } from '../../src/relay/names.js';

const upstream = (name: string, resources: string[], templates: string[], prompts: string[]) => ({
  name,
  caps: {},
  lists: {
    resources: resources.map((uri): Resource => ({ uri, name: uri })),
    templates: templates.map((uriTemplate): ResourceTemplateType => ({ uriTemplate, name: uriTemplate })),
    prompts: prompts.map((n): Prompt => ({ name: n, description: `${name} ${n}` })),
  },
});

describe('buildRelayCatalog', () => {
  const catalog = buildRelayCatalog([
    upstream('files', ['file:///a.txt', 'shared://x', 'file:///a.txt'], ['file:///{path}'], ['summarize', 'lint']),
    upstream('web', ['shared://x', 'https://e.com/'], ['file:///{path}', 'https://{host}/'], ['summarize']),
  ]);

  test('the first holder of a URI or template keeps it, a later holder is prefixed; an upstream duplicate is listed once', () => {
    expect(catalog.resources.map((e) => [e.server, e.upstream, e.exposed])).toEqual([
      ['files', 'file:///a.txt', 'file:///a.txt'],
      ['files', 'shared://x', 'shared://x'],
      ['web', 'shared://x', 'tool-curator://web/shared://x'],
      ['web', 'https://e.com/', 'https://e.com/'],
    ]);
    expect(catalog.templates.map((e) => e.item.uriTemplate)).toEqual(['file:///{path}', 'tool-curator://web/file:///{path}', 'https://{host}/']);
    expect(catalog.resources[2]!.item).toEqual({ uri: 'tool-curator://web/shared://x', name: 'shared://x' });
  });

  test('a later holder of a prompt is <server>__<name>, everything else about it kept', () => {
    expect(catalog.prompts.map((e) => e.item)).toEqual([
      { name: 'summarize', description: 'files summarize' },
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

  test("resource URIs are canonical; one that does not parse is left out", () => {
    const c = buildRelayCatalog([upstream('files', ['FILE:///a/./b.txt', 'not a uri', 'docs://x/%7Eme'], [], [])]);
    expect(c.resources.map((e) => e.exposed)).toEqual(['file:///a/b.txt', 'docs://x/~me']);
  });
});

describe('names stay with their first holder', () => {
  test('a server joining later with the same prompt, URI and template gets the prefixed ones; the first keeps its names', () => {
    const memory = new MemoryRelayNames();
    const alpha = upstream('alpha', ['shared://config'], ['files:///{path}'], ['documentation']);
    const beta = upstream('beta', ['shared://config'], ['files:///{path}'], ['documentation']);
    const before = buildRelayCatalog([alpha], memory, ['beta', 'alpha']);
    expect(before.prompts.map((e) => e.exposed)).toEqual(['documentation']);
    // beta comes first in config order, but joins after alpha.
    const after = buildRelayCatalog([beta, alpha], memory, ['beta', 'alpha']);
    expect(after.prompts.map((e) => [e.server, e.exposed])).toEqual([['beta', 'beta__documentation'], ['alpha', 'documentation']]);
    expect(after.resources.map((e) => [e.server, e.exposed])).toEqual([['beta', 'tool-curator://beta/shared://config'], ['alpha', 'shared://config']]);
    expect(after.templates.map((e) => [e.server, e.exposed])).toEqual([['beta', 'tool-curator://beta/files:///{path}'], ['alpha', 'files:///{path}']]);
    // alpha goes away and comes back: the names are still where they were.
    buildRelayCatalog([beta], memory, ['beta', 'alpha']);
    expect(buildRelayCatalog([beta, alpha], memory, ['beta', 'alpha']).prompts.map((e) => e.exposed)).toEqual(['beta__documentation', 'documentation']);
    // Without the memory, config order alone decides.
    expect(buildRelayCatalog([beta, alpha]).prompts.map((e) => e.exposed)).toEqual(['documentation', 'alpha__documentation']);
  });

  test("an upstream's prompt named like another upstream's, or a URI in the gateway's scheme, is always qualified", () => {
    const c = buildRelayCatalog([upstream('beta', ['tool-curator://alpha/secret://keys', 'TOOL-CURATOR://alpha/x'], [], ['alpha__review', 'beta__own'])], new MemoryRelayNames(), ['alpha', 'beta']);
    expect(c.prompts.map((e) => e.exposed)).toEqual(['beta__alpha__review', 'beta__own']);
    expect(c.resources.map((e) => e.exposed)).toEqual(['tool-curator://beta/tool-curator://alpha/secret://keys', 'tool-curator://beta/tool-curator://alpha/x']);
    expect(unprefixUri(c.resources[0]!.exposed, new Set(['alpha', 'beta']))).toEqual({ server: 'beta', uri: 'tool-curator://alpha/secret://keys' });
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
