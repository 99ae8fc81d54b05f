/**
 * Issue 18, item 12: the first holder of a prompt name, resource URI or template keeps it
 * when another upstream with the same names joins later, whatever the config order. The
 * built gateway over beta (Streamable HTTP) and `late` (alpha over stdio, configured first
 * but started only when the test says); the SDK's Client as host over stdio.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, startBeta, stdioHost } from './setup.js';

let beta: ChildProcess;
let host: Client;
let marker: string;
let promptChanges = 0;

beforeAll(async () => {
  const started = await startBeta();
  beta = started.beta;
  const dir = mkdtempSync(join(tmpdir(), 'tc-joining-'));
  marker = join(dir, 'late-may-start');
  writeFileSync(join(dir, 'personas.yaml'), dump({ all: { allow: ['*'], resources: { allow: ['*'] }, prompts: { allow: ['*'] }, confirm: 'none' } }));
  const configPath = join(dir, 'gateway.config.yaml');
  writeFileSync(
    configPath,
    dump({
      // `late` comes first in config order: on a start with both, its names would be the plain ones.
      upstreams: { late: { command: process.execPath, args: [join(FIXTURES, 'late.mjs'), marker] }, beta: { url: started.betaUrl, transport: 'streamable-http' } },
      curator: { mode: 'bm25', embedder: 'none' },
      store: join(dir, 'store.db'),
      policy: { personas: 'personas.yaml' },
      // The first lists wait for beta however slowly it answers on a loaded machine (late fails at once).
      timeouts: { startup_ms: 120_000, list_wait_ms: 120_000 },
    }),
  );
  host = await stdioHost(configPath, 'all');
  host.setNotificationHandler('notifications/prompts/list_changed', () => void promptChanges++);
});
afterAll(async () => {
  await host?.close();
  beta?.kill();
});

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never happened: ${what}`);
}

const promptNames = async () => (await host.listPrompts()).prompts.map((p) => p.name);

describe('names across a joining upstream', () => {
  it('before late joins, beta holds the plain names', async () => {
    expect(await promptNames()).toEqual(['summarize', 'beta_p1', 'beta_p2', 'beta_p3', 'beta_p4']);
    expect((await host.readResource({ uri: 'shared://config' })).contents).toEqual([{ uri: 'shared://config', mimeType: 'application/json', text: '{"owner":"beta"}' }]);
  });

  it('after late joins, beta keeps them and late gets the prefixed ones; both are reachable', async () => {
    writeFileSync(marker, '');
    await until(() => promptChanges > 0, 'prompts list_changed when late joins');
    await until(async () => (await promptNames()).length > 5, 'late in prompts/list');
    expect(await promptNames()).toEqual(['greet', 'show_logo', 'late__summarize', 'internal_review', 'summarize', 'beta_p1', 'beta_p2', 'beta_p3', 'beta_p4']);
    const said = async (name: string) => ((await host.getPrompt({ name, arguments: { text: 'x' } })).messages[0]!.content as { text: string }).text;
    expect([await said('summarize'), await said('late__summarize')]).toEqual(['beta summary of x', 'alpha summary of x']);

    const uris = (await host.listResources()).resources.map((r) => r.uri);
    expect(uris.filter((u) => u.includes('shared://config'))).toEqual(['tool-curator://late/shared://config', 'shared://config']);
    const owner = async (uri: string) => ((await host.readResource({ uri })).contents[0] as { text: string }).text;
    expect([await owner('shared://config'), await owner('tool-curator://late/shared://config')]).toEqual(['{"owner":"beta"}', '{"owner":"alpha"}']);

    const templates = (await host.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates).toEqual(['notes://{topic}', 'tool-curator://late/files:///{path}', 'files:///{path}', 'beta://item/{n}']);
    expect(await owner('files:///x.txt')).toBe('beta:x.txt');
  });
});
