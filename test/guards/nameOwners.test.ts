/**
 * Issue 18, item 11: "did you mean" never proposes another server's tool for a name that
 * says its upstream (`a__whoami`) or was an upstream's tool while that upstream is down;
 * and an upstream's tool literally named `a__search` never reads as a's. The built gateway
 * over two `who` fixtures (SDK McpServers over stdio), `b` also listing a tool named
 * `a__search`; the SDK's Client as host over stdio. The second run shares the first's
 * store, with `a` down.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectGateway } from '../helpers/reference.js';
const WHO = join(import.meta.dirname, 'fixtures', 'who.mjs');
const dir = mkdtempSync(join(tmpdir(), 'tc-owners-'));
const aDown = join(dir, 'a-is-down');
const configPath = join(dir, 'gateway.config.yaml');
writeFileSync(
  configPath,
  dump({
    upstreams: {
      a: { command: process.execPath, args: [WHO, 'a', aDown] },
      b: { command: process.execPath, args: [WHO, 'b', join(dir, 'b-never-down'), 'a'] },
    },
    curator: { mode: 'bm25', embedder: 'none' },
    store: join(dir, 'store.db'),
    timeouts: { startup_ms: 60_000 },
  }),
);

const said = async (client: Client, name: string) => ((await client.callTool({ name, arguments: {} })) as CallToolResult).content.map((c) => (c as { text: string }).text).join('\n');

describe('with both upstreams up', () => {
  let client: Client;
  beforeAll(async () => void ({ client } = await connectGateway(configPath, [], {}, 120_000)));
  afterAll(() => client?.close());

  it("b's literal a__search is exposed as b__a__search, never as a's", async () => {
    const names = (await client.callTool({ name: 'find_tools', arguments: { query: 'search whoami list items', limit: 10 } })) as CallToolResult;
    const found = (names.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name).sort();
    expect(found).toEqual(['b__a__search', 'b__list_items', 'b__whoami', 'list_items', 'whoami']);
    expect(await said(client, 'b__a__search')).toBe('b searched');
    expect(await said(client, 'a__search')).toBe("unknown tool a__search; call find_tools with a short description of what you want to do to get the right tool's name");
  });

  it("a__whoami is compared with a's tools only: never corrected onto b__whoami", async () => {
    expect(await said(client, 'a__whoami')).toBe('unknown tool a__whoami; did you mean whoami? Nothing was run: call the tool you mean by its exact name.');
    expect(await said(client, 'b__whoamii')).toBe('[tool-curator] b__whoamii does not exist; resolved to b__whoami\nb');
  });
});

describe('with a down', () => {
  let client: Client;
  beforeAll(async () => {
    writeFileSync(aDown, '');
    ({ client } = await connectGateway(configPath, [], {}, 120_000));
  });
  afterAll(() => client?.close());

  it("a's names, plain or qualified, are answered with a's state; b's tools still run", async () => {
    // Since when (ISO time, UTC) and what its operator checks (docs/PROTOCOL.md, "Start-up").
    const why = /^whoami belongs to upstream "a", which is unavailable \((not connected since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ, when it failed to start; .*)\); nothing was run\. Try again later\.$/.exec(await said(client, 'whoami'))?.[1];
    expect(why).toMatch(/; `tool-curator doctor` tells its operator why \(check its command in the config\)$/);
    expect(await said(client, 'a__whoami')).toBe(`a__whoami belongs to upstream "a", which is unavailable (${why}); nothing was run. Try again later.`);
    expect(await said(client, 'A__list_items')).toBe(`A__list_items belongs to upstream "a", which is unavailable (${why}); nothing was run. Try again later.`);
    expect(await said(client, 'b__whoami')).toBe('b');
  });
});
