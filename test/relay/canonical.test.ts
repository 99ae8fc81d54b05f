/**
 * Issue 18, item 1: resource deny rules hold against every spelling of a denied URI (and
 * a deny rule written in another spelling than the canonical one still denies). The
 * built gateway fronts the `docs` fixture (an SDK McpServer with public and secret files
 * and a careless `file:///{+path}` reader) for the persona of the issue, with the SDK's
 * Client as host over stdio and over Streamable HTTP. Each spelling below reaches a secret
 * when sent to the upstream directly (checked here); through the gateway, read and
 * subscribe refuse every one, the public files still read, and completion never offers a
 * value that leads to a secret.
 */
import { Client, type CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS, DOCS_TOKEN as TOKEN, docsConfig } from './docs.js';
import { httpGateway, mcpError, stdioHost } from './setup.js';

/** Spellings that Windows (trailing dots and spaces, NTFS streams, 8.3 short names, best-fit slashes) or a C reader (a NUL ends the path) take for file:///secret/keys.txt; the docs fixture does not. */
const WINDOWS_AND_C = [
  'file:///secret./keys.txt',
  'file:///secret%20/keys.txt',
  'file:///secret::$INDEX_ALLOCATION/keys.txt',
  'file:///SECRE~1/keys.txt',
  'file:///public/..\u2215secret/keys.txt',
  'file:///secret/keys.txt%00.png',
];

/** Spellings that a reader takes for file:///secret/keys.txt or secret://keys. */
const SECRET_SPELLINGS = [
  // From the issue.
  'tool-curator://docs/file:///public/../secret/keys.txt',
  'tool-curator://docs/file:///public/%2e%2e/secret/keys.txt',
  'tool-curator://docs/file:///public\\..\\secret\\keys.txt',
  'file:///se\tcret/keys.txt',
  'SECRET://keys',
  ' secret://keys',
  // Dot segments, encoded or not, and the scheme's case.
  'file:///public/../secret/keys.txt',
  'file:///public/./../secret/keys.txt',
  'file:///public/%2E%2E/secret/keys.txt',
  'file:///public/.%2e/secret/keys.txt',
  'FILE:///secret/keys.txt',
  'file:/secret/keys.txt',
  'file://localhost/secret/keys.txt',
  '  file:///secret/keys.txt\n',
  // Encoded unreserved characters, double encoding, encoded slashes and backslashes.
  'file:///%73ecret/keys.txt',
  'file:///public/%252e%252e/secret/keys.txt',
  'file:///public/%25252e%25252e/secret/keys.txt',
  'file:///public/..%2fsecret%2fkeys.txt',
  'file:///public/..%5csecret%5ckeys.txt',
  'file:///public/%2e%2e%2fsecret/keys.txt',
  // Repeated slashes, query and fragment, case of the path and the host.
  'file:////secret/keys.txt',
  'file:///secret/keys.txt?download=1',
  'file:///secret/keys.txt#top',
  'file:///SECRET/keys.txt',
  'secret://KEYS',
  'secret://ke%79s',
  'secret:\\\\keys',
  // The gateway's own scheme, in another case or naming no configured upstream.
  'TOOL-CURATOR://docs/file:///secret/keys.txt',
  'tool-curator://DOCS/file:///secret/keys.txt',
  'tool-curator://docs/tool-curator://docs/file:///secret/keys.txt',
  // Encoded more times over than the readings decode (six), for a reader that decodes until stable.
  'file:///public/%25252525252e%25252525252e/secret/keys.txt',
  // Unicode compatibility forms: fullwidth dots and solidus, fullwidth letters, the long s.
  'file:///public/．．/secret/keys.txt',
  'file:///public/%EF%BC%8E%EF%BC%8E%EF%BC%8Fsecret/keys.txt',
  'file:///ｓｅｃｒｅｔ/keys.txt',
  'file:///\u017Fecret/keys.txt',
  // Under a deny pattern written with a space: the URI as listed (%20) and as a person writes it.
  'file:///secret%20dir/notes.txt',
  'file:///secret dir/notes.txt',
  'file:///public/..;/secret/keys.txt',
  ...WINDOWS_AND_C,
];

/** Spellings of the public files, with what each must read. */
const PUBLIC_SPELLINGS: [string, string][] = [
  ['file:///public/readme.txt', 'public readme'],
  ['file:///public/./readme.txt', 'public readme'],
  ['file:///public/secret/../readme.txt', 'public readme'],
  ['FILE:///public/guide.txt', 'public guide'],
  [' file:///public/%72eadme.txt', 'public readme'],
  ['tool-curator://docs/file:///public/readme.txt', 'public readme'],
];

const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

let configPath: string;
let direct: Client;

beforeAll(async () => {
  configPath = docsConfig().configPath;
  direct = new Client({ name: 'direct', version: '1.0.0' });
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [DOCS], stderr: 'ignore' }));
});
afterAll(async () => {
  await direct?.close();
});

describe('the docs fixture without the gateway', () => {
  it('serves a secret for all but a few spellings: they are real attacks', async () => {
    const harmless: string[] = [];
    for (const uri of SECRET_SPELLINGS) {
      const body = await direct.readResource({ uri: uri.replace(/^tool-curator:\/\/docs\//i, '') }).then(
        (r) => (r.contents[0] as { text: string }).text,
        () => '',
      );
      if (!body.startsWith('SECRET')) harmless.push(uri);
    }
    // These need a reader other than this one: a case-insensitive file system or host, one
    // that ignores the query or fragment, decodes the host, reads `\\` as `//`, strips
    // the gateway's prefix twice, or reads paths as Windows or C do.
    expect(harmless).toEqual([
      'file:///secret/keys.txt?download=1',
      'file:///secret/keys.txt#top',
      'file:///SECRET/keys.txt',
      'secret://KEYS',
      'secret://ke%79s',
      'secret:\\\\keys',
      'tool-curator://docs/tool-curator://docs/file:///secret/keys.txt',
      ...WINDOWS_AND_C,
    ]);
  });
});

function canonicalSuite(host: () => Client): void {
  it('refuses every spelling of a secret for resources/read, as "not found", echoing only what was sent', async () => {
    for (const uri of SECRET_SPELLINGS) {
      const err = await mcpError(host().readResource({ uri }));
      expect([err.code, err.message], JSON.stringify(uri)).toEqual([-32602, `Resource not found: ${uri}`]);
    }
  });

  it('refuses every spelling for resources/subscribe; the upstream is asked only for canonical public URIs', async () => {
    for (const uri of SECRET_SPELLINGS) expect((await mcpError(host().subscribeResource({ uri }))).code, JSON.stringify(uri)).toBe(-32602);
    await host().subscribeResource({ uri: 'file:///public/./readme.txt' });
    await host().unsubscribeResource({ uri: 'FILE:///public/readme.txt' });
    const log = JSON.parse(text(await host().callTool({ name: 'call_tool', arguments: { name: 'subscription_log', arguments: {} } }))) as string[];
    expect(log.slice(-2)).toEqual(['subscribe file:///public/readme.txt', 'unsubscribe file:///public/readme.txt']);
    expect(log.filter((l) => /secret/i.test(l))).toEqual([]);
  });

  it('reads the public files under any spelling, from the canonical URI', async () => {
    for (const [uri, body] of PUBLIC_SPELLINGS) {
      const read = await host().readResource({ uri });
      expect((read.contents[0] as { text: string }).text, JSON.stringify(uri)).toBe(body);
    }
  });

  it('lists only the public files', async () => {
    expect((await host().listResources()).resources.map((r) => r.uri)).toEqual(['file:///public/readme.txt', 'file:///public/guide.txt']);
  });

  it('completion of the template and of a prompt never offers a value that leads to a secret', async () => {
    const ref = { type: 'ref/resource' as const, uri: 'file:///{+path}' };
    const offered = await direct.complete({ ref, argument: { name: 'path', value: '' } });
    expect(offered.completion.values).toEqual(['public/readme.txt', 'public/guide.txt', 'secret/keys.txt', 'public/../secret/keys.txt', 'public/%2e%2e/secret/keys.txt']);
    const all = await host().complete({ ref, argument: { name: 'path', value: '' } });
    expect(all.completion).toEqual({ values: ['public/readme.txt', 'public/guide.txt'], total: 2, hasMore: false });
    expect((await host().complete({ ref, argument: { name: 'path', value: 'public/' } })).completion.values).toEqual(['public/readme.txt', 'public/guide.txt']);
    expect((await host().complete({ ref, argument: { name: 'path', value: 'secret' } })).completion.values).toEqual([]);
    const cite = { type: 'ref/prompt' as const, name: 'cite' };
    expect((await direct.complete({ ref: cite, argument: { name: 'source', value: '' } })).completion.values).toHaveLength(5);
    expect((await host().complete({ ref: cite, argument: { name: 'source', value: '' } })).completion.values).toEqual(['file:///public/readme.txt', 'chapter one']);
  });
}

describe('host over stdio', () => {
  let client: Client;
  beforeAll(async () => {
    client = await stdioHost(configPath, 'reader');
  });
  afterAll(async () => {
    await client?.close();
  });
  canonicalSuite(() => client);
});

describe('host over Streamable HTTP', () => {
  let client: Client;
  let gateway: Awaited<ReturnType<typeof httpGateway>>;
  beforeAll(async () => {
    gateway = await httpGateway(configPath);
    client = await gateway.host(TOKEN);
  });
  afterAll(async () => {
    await client?.close();
    gateway?.child.kill();
  });
  canonicalSuite(() => client);
});
