/**
 * Resource deny rules naming one resource exactly hold against the spellings that an
 * upstream's own resolver takes for it. The built gateway fronts the `files` fixture (an
 * SDK McpServer that resolves `file:` URIs with Node's `new URL` + `fileURLToPath` +
 * `path.resolve`, and `kv:` URIs by their `hostname`: nothing careless of its own) for a
 * persona denying `file:///secret/keys.txt` and `kv://secret`, with the SDK's Client as
 * host over stdio. Each spelling below reads the secret when sent to the fixture directly
 * (checked here); through the gateway each is refused, and the public ones still read.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, mcpError, stdioHost } from './setup.js';

const FILESERVER = join(FIXTURES, 'fileserver.mjs');

/** Spellings that Node's resolvers take for file:///secret/keys.txt or kv://secret. */
const SECRET_SPELLINGS = [
  'file:///secret/keys.txt?download=1',
  'file:///secret/keys.txt#top',
  'file:///secret/keys.txt/',
  'file:///secret/keys.txt/.',
  'file:///secret/keys.txt//',
  'kv://secret?x',
  'kv://secret#x',
  'kv://secret/',
  'kv://secret:80',
  'kv://secret/any/path',
];

const PUBLIC_SPELLINGS: [string, string][] = [
  ['file:///public/readme.txt', 'public readme'],
  ['file:///public/readme.txt?download=1', 'public readme'],
  ['file:///secret/../public/readme.txt', 'public readme'],
  ['kv://readme', 'public kv'],
  ['kv://readme:80/x', 'public kv'],
];

const body = (r: { contents: unknown[] }) => (r.contents[0] as { text: string }).text;

let root: string;
let configPath: string;
let direct: Client;
let host: Client;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tc-resolvers-'));
  root = join(dir, 'root');
  mkdirSync(join(root, 'public'), { recursive: true });
  mkdirSync(join(root, 'secret'));
  writeFileSync(join(root, 'public', 'readme.txt'), 'public readme');
  writeFileSync(join(root, 'secret', 'keys.txt'), 'SECRET-KEYS');
  writeFileSync(
    join(dir, 'personas.yaml'),
    dump({ reader: { allow: ['*'], resources: { allow: ['files.file:///*', 'files.kv://*'], deny: ['files.file:///secret/keys.txt', 'files.kv://secret'] }, confirm: 'none' } }),
  );
  configPath = join(dir, 'gateway.config.yaml');
  writeFileSync(
    configPath,
    dump({
      upstreams: { files: { command: process.execPath, args: [FILESERVER, root] } },
      curator: { mode: 'bm25', embedder: 'none' },
      store: join(dir, 'store.db'),
      policy: { personas: 'personas.yaml' },
      timeouts: { startup_ms: 120_000, list_wait_ms: 120_000 },
    }),
  );
  direct = new Client({ name: 'direct', version: '1.0.0' });
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [FILESERVER, root], stderr: 'ignore' }));
  host = await stdioHost(configPath, 'reader');
});
afterAll(async () => {
  await direct?.close();
  await host?.close();
});

describe('deny rules naming one resource, against what the upstream resolves', () => {
  it('every spelling reads a secret when sent to the upstream directly: they are real attacks', async () => {
    for (const uri of SECRET_SPELLINGS) expect(body(await direct.readResource({ uri })), uri).toMatch(/^SECRET-/);
  });

  it('refuses every spelling for resources/read and resources/subscribe, as "not found"', async () => {
    for (const uri of SECRET_SPELLINGS) {
      const err = await mcpError(host.readResource({ uri }));
      expect([err.code, err.message], uri).toEqual([-32602, `Resource not found: ${uri}`]);
      expect((await mcpError(host.subscribeResource({ uri }))).code, uri).toBe(-32602);
    }
  });

  it('reads the public resources under these spellings', async () => {
    for (const [uri, text] of PUBLIC_SPELLINGS) expect(body(await host.readResource({ uri })), uri).toBe(text);
  });
});
