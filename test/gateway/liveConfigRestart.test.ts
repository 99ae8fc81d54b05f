/**
 * An edit a running gateway cannot apply live (its upstreams) is logged as needing a restart,
 * naming the config file the gateway actually runs from, whatever its name: the built
 * gateway over stdio with a config called campus.yaml, a real SDK client as host.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { dump } from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, ROOT } from '../helpers/reference.js';

describe('a change that needs a restart', () => {
  let client: Client | undefined;
  afterAll(() => client?.close());

  it('is logged against the config file the gateway runs from', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-live-restart-'));
    const configPath = join(dir, 'campus.yaml');
    const config = { upstreams: {}, curator: { mode: 'bm25', embedder: 'none' }, store: join(dir, 'store.db') };
    writeFileSync(configPath, dump(config));
    let stderr = '';
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--config', configPath],
      stderr: 'pipe',
      env: { ...process.env, TOOL_CURATOR_LOG: 'info', TOOL_CURATOR_LOG_FORMAT: 'json' } as Record<string, string>,
    });
    transport.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    client = new Client({ name: 'live-restart-test', version: '1.0.0' });
    await client.connect(transport);
    await client.listTools(undefined, { timeout: 120_000 });

    const academics = { command: process.execPath, args: [join(ROOT, 'dist/mock-servers/academics.js')] };
    writeFileSync(configPath, dump({ ...config, upstreams: { academics } }));
    let line: { msg: string; keys: string[] } | undefined;
    while (!line) {
      line = stderr
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { msg: string; keys: string[] })
        .find((l) => l.msg.includes('restart the gateway to apply'));
      if (!line) await new Promise((r) => setTimeout(r, 100));
    }
    expect(line).toMatchObject({ keys: ['upstreams'], msg: `${configPath}: upstreams changed; restart the gateway to apply` });
  }, 180_000);
});
