/**
 * A 2026 upstream may call its resources/read result `public` (the same for every user of
 * the upstream), but what the gateway answers depends on the persona (a denied URI is not
 * found, a withheld content is left out): a 2026 host must get it as `private`, with the
 * upstream's ttlMs cut to the lists' minute (docs/PROTOCOL.md, "Cache hints": `public` is
 * never used; a personas edit reaches a caching host within the minute). The built
 * gateway over HTTP in front of a separate 2026-only upstream process.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnUntil } from '../helpers/process.js';
import { startHttpGateway } from '../helpers/raw.js';

const FIXTURE = join(import.meta.dirname, '../../dist/test/relay/fixtures/publicRead2026.js');
const TOKEN = 'read-scope-token-0123456789';

describe('resources/read of a 2026 upstream that says public', () => {
  let upstream: ChildProcess;
  let gateway: ChildProcess;
  let url: URL;
  beforeAll(async () => {
    const up = await spawnUntil(process.execPath, [FIXTURE], /publicRead2026 listening on \S+\n/);
    upstream = up.child;
    const upstreamUrl = /publicRead2026 listening on (\S+)/.exec(up.stderr())![1]!;
    const dir = mkdtempSync(join(tmpdir(), 'tc-read-scope-'));
    writeFileSync(join(dir, 'personas.yaml'), dump({ reader: { allow: ['*'], resources: { allow: ['*'] } } }));
    const config = {
      upstreams: { board: { url: upstreamUrl, transport: 'streamable-http', protocol: '2026-07-28' } },
      curator: { mode: 'bm25', embedder: 'none' },
      store: join(dir, 'store.db'),
      policy: { personas: 'personas.yaml' },
      http: { tokens: [{ token: TOKEN, persona: 'reader', user_id: 'r1' }] },
    };
    writeFileSync(join(dir, 'gateway.config.yaml'), dump(config));
    ({ child: gateway, url } = await startHttpGateway(join(dir, 'gateway.config.yaml')));
  }, 120_000);
  afterAll(() => {
    gateway?.kill();
    upstream?.kill();
  });

  it('reaches a 2026 host as private, its hour of ttlMs cut to a minute', { timeout: 60_000 }, async () => {
    const host = new Client({ name: 'host-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await host.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    const read = await host.readResource({ uri: 'shared://notice' }, { cacheMode: 'bypass' });
    expect(read.contents).toEqual([{ uri: 'shared://notice', mimeType: 'text/plain', text: 'the library closes at 8 pm' }]);
    expect(read).toMatchObject({ ttlMs: 60_000, cacheScope: 'private' });
    await host.close();
  });
});
