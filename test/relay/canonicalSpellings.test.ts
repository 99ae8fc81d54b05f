/**
 * Resource deny rules against two more families of spellings (probe of 2026-12-03): path
 * parameters (`..;/`, `secret;v=1/`, as Tomcat and Jetty drop them per segment) and a deny
 * rule written in one Unicode normalisation form (NFD, as a macOS listing spells `café`)
 * against a URI in the other (NFC). The built gateway fronts the `docs` fixture, whose
 * careless template reader drops `;` parameters and reads NFKC; the SDK's Client is the
 * host over stdio. Each spelling reaches a secret when sent to the fixture directly
 * (checked here); through the gateway, read and subscribe refuse every one, and public
 * files under the same spellings still read.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS, DOCS_PERSONAS, docsConfig } from './docs.js';
import { stdioHost } from './setup.js';

/** The persona, denying also `café/` as written in NFD (e + combining acute). */
const PERSONAS = {
  reader: { ...DOCS_PERSONAS.reader, resources: { ...DOCS_PERSONAS.reader.resources, deny: [...DOCS_PERSONAS.reader.resources.deny, 'docs.file:///cafe\u0301/*'] } },
};

const SECRET_SPELLINGS = [
  // Path parameters: a reader that drops them reads `..;/` as `../`.
  'file:///public/..;/secret/keys.txt',
  'file:///public/..%3B/secret/keys.txt',
  'file:///public/..%253b/secret/keys.txt',
  'file:///public/..;v=1/secret/keys.txt',
  'file:///secret;v=1/keys.txt',
  'file:///secret/keys.txt;v=1',
  'tool-curator://docs/file:///public/..;/secret/keys.txt',
  // An empty segment inside the path.
  'file:///secret//keys.txt',
  // `café` in NFC, raw and percent-encoded, and in NFD, against a deny rule written in NFD.
  'file:///caf\u00e9/menu.txt',
  'file:///caf%C3%A9/menu.txt',
  'file:///cafe\u0301/menu.txt',
  'file:///cafe%CC%81/menu.txt',
];

const PUBLIC_SPELLINGS: [string, string][] = [
  ['file:///public/readme.txt;v=1', 'public readme'],
  ['file:///public;v=1/guide.txt', 'public guide'],
];

const body = (r: { contents: unknown[] }) => (r.contents[0] as { text: string }).text;

let direct: Client;
let host: Client;

beforeAll(async () => {
  direct = new Client({ name: 'direct', version: '1.0.0' });
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [DOCS], stderr: 'ignore' }));
  host = await stdioHost(docsConfig(PERSONAS).configPath, 'reader');
});
afterAll(async () => {
  await direct?.close();
  await host?.close();
});

describe('path parameters and Unicode forms', () => {
  it('every spelling reads a secret when sent to the fixture directly: they are real attacks', async () => {
    for (const uri of SECRET_SPELLINGS) {
      expect(body(await direct.readResource({ uri: uri.replace(/^tool-curator:\/\/docs\//, '') })), uri).toMatch(/^SECRET-/);
    }
  });

  it('refuses every spelling for resources/read and resources/subscribe, as "not found"', async () => {
    const outcome = (p: Promise<unknown>) => p.then(
      (r) => `answered ${JSON.stringify(r)}`,
      (e: { code?: number; message?: string }) => `${e.code} ${e.message}`,
    );
    const got: string[][] = [];
    for (const uri of SECRET_SPELLINGS) got.push([uri, await outcome(host.readResource({ uri })), await outcome(host.subscribeResource({ uri }))]);
    const notFound = (uri: string) => `-32602 Resource not found: ${uri}`;
    expect(got).toEqual(SECRET_SPELLINGS.map((uri) => [uri, notFound(uri), notFound(uri)]));
  });

  it('reads the public files under path parameters', async () => {
    for (const [uri, text] of PUBLIC_SPELLINGS) expect(body(await host.readResource({ uri })), uri).toBe(text);
  });
});

describe('resources/updated', () => {
  it('reaches the host only for what it subscribed to: never for a secret under any of these spellings', async () => {
    const updated: string[] = [];
    host.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri));
    await host.subscribeResource({ uri: 'file:///public/readme.txt;v=1' });
    const touch = (uri: string) => host.callTool({ name: 'call_tool', arguments: { name: 'touch', arguments: { uri } } });
    for (const uri of ['file:///secret/keys.txt', ...SECRET_SPELLINGS]) await touch(uri.replace(/^tool-curator:\/\/docs\//, ''));
    await touch('file:///public/readme.txt;v=1');
    // The readme's update was sent after the others, on the same channel: once it is here, theirs would have been.
    await expect.poll(() => updated, { timeout: 60_000 }).toEqual(['file:///public/readme.txt;v=1']);
  });
});

