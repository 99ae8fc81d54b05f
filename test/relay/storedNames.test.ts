/**
 * Relayed prompt, resource and template names kept in the store, as tool names are: the
 * first holder keeps a name across a restart and on every replica, whatever starts first.
 * The built gateway (real processes, the SDK's Client as host over stdio) over beta
 * (Streamable HTTP) and `late` (alpha over stdio, first in config order, able to start only
 * once the test says), on both store backends. Before, names were remembered per process:
 * a gateway started once both were up gave late the plain names beta had held.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { dump } from 'js-yaml';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, setupBackends } from '../helpers/stores.js';
import { FIXTURES, startBeta, stdioHost } from './setup.js';

setupBackends();

let beta: ChildProcess;
let betaUrl: string;
beforeAll(async () => {
  ({ beta, betaUrl } = await startBeta());
});
afterAll(() => void beta?.kill());

/** What a host sees: prompt names, the URIs of the shared resource, the template URIs. */
async function names(host: Client): Promise<{ prompts: string[]; config: string[]; templates: string[] }> {
  return {
    prompts: (await host.listPrompts()).prompts.map((p) => p.name).filter((n) => n.includes('summarize')),
    config: (await host.listResources()).resources.map((r) => r.uri).filter((u) => u.includes('shared://config')),
    templates: (await host.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate).filter((u) => u.includes('files:///')),
  };
}

/** Polls until `late` is in the host's aggregate (it joins by a retry with backoff). */
async function withLate(host: Client): Promise<Awaited<ReturnType<typeof names>>> {
  for (let i = 0; i < 1200; i++) {
    const seen = await names(host);
    if (seen.prompts.length === 2) return seen;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('late never joined');
}

/** beta held the names first: it keeps them, late's are prefixed. */
const BETA_FIRST = {
  prompts: ['late__summarize', 'summarize'],
  config: ['tool-curator://late/shared://config', 'shared://config'],
  templates: ['tool-curator://late/files:///{path}', 'files:///{path}'],
};

describe.each(BACKENDS)('relayed names in the store ($kind)', (backend) => {
  const hosts: Client[] = [];
  afterEach(async () => {
    for (const h of hosts.splice(0)) await h.close().catch(() => undefined);
  });

  /** A config over late (joining once `marker` exists) and beta, on a fresh store; and the marker's path. */
  async function config(): Promise<{ path: string; marker: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'tc-relay-stored-'));
    const marker = join(dir, 'late-may-start');
    writeFileSync(join(dir, 'personas.yaml'), dump({ all: { allow: ['*'], resources: { allow: ['*'] }, prompts: { allow: ['*'] }, confirm: 'none' } }));
    const path = join(dir, 'gateway.config.yaml');
    writeFileSync(
      path,
      dump({
        upstreams: { late: { command: process.execPath, args: [join(FIXTURES, 'late.mjs'), marker] }, beta: { url: betaUrl, transport: 'streamable-http' } },
        curator: { mode: 'bm25', embedder: 'none' },
        store: await backend.fresh(),
        policy: { personas: 'personas.yaml' },
        timeouts: { startup_ms: 120_000, list_wait_ms: 120_000 },
      }),
    );
    return { path, marker };
  }

  async function host(path: string): Promise<Client> {
    const h = await stdioHost(path, 'all');
    hosts.push(h);
    return h;
  }

  it('names survive a restart: the holder before it keeps the plain names after, although late comes first in config order', async () => {
    const { path, marker } = await config();
    const before = await host(path);
    expect(await names(before)).toEqual({ prompts: ['summarize'], config: ['shared://config'], templates: ['files:///{path}'] });
    await before.close();
    writeFileSync(marker, '');
    const after = await host(path);
    expect(await withLate(after)).toEqual(BETA_FIRST);
    const said = ((await after.getPrompt({ name: 'summarize', arguments: { text: 'x' } })).messages[0]!.content as { text: string }).text;
    expect(said).toBe('beta summary of x');
  }, 300_000);

  it('replicas agree: one started once both are up takes the names another replica gave first', async () => {
    const { path, marker } = await config();
    const first = await host(path);
    expect((await names(first)).prompts).toEqual(['summarize']);
    writeFileSync(marker, '');
    const second = await host(path);
    expect(await withLate(second)).toEqual(BETA_FIRST);
    expect(await withLate(first)).toEqual(BETA_FIRST);
  }, 300_000);
});
