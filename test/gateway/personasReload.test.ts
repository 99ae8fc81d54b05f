/**
 * Issue 18, item 2: a personas file that defines no persona (`{}`) is refused at start and
 * on a live reload, like an empty one; a reload that widens access logs a warning saying
 * what widened. The built gateway over the alpha fixture (an SDK McpServer over stdio),
 * the SDK's Client as host over stdio.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, connectGateway, logLine } from '../helpers/reference.js';
import { FIXTURES } from '../relay/setup.js';

const READER = { identity: { user_id: '${user_id}' }, allow: ['alpha.subscription_log'], confirm: 'all', confirm_via: 'both' };

const dir = mkdtempSync(join(tmpdir(), 'tc-personas-'));
const personasPath = join(dir, 'personas.yaml');
const configPath = join(dir, 'gateway.config.yaml');
const config = (policy: Record<string, string>) =>
  dump({
    // `down` never starts: a pattern over it matches no tool known now.
    upstreams: { alpha: { command: process.execPath, args: [join(FIXTURES, 'alpha.mjs')] }, down: { command: process.execPath, args: ['-e', 'process.exit(3)'] } },
    curator: { mode: 'bm25', embedder: 'none' },
    store: join(dir, 'store.db'),
    policy,
    session: { persona: 'reader', user_id: 'U1' },
  });
writeFileSync(configPath, config({ personas: 'personas.yaml' }));

describe('a personas file that defines no persona', () => {
  it('is refused at start by serve and tools, naming the file, like an empty one', () => {
    for (const content of ['{}\n', 'null\n', '']) {
      writeFileSync(personasPath, content);
      for (const command of ['serve', 'tools']) {
        const run = spawnSync(process.execPath, [CLI, command, '--config', configPath], { encoding: 'utf8', input: '', timeout: 60_000 });
        expect(run.status, `${command} with ${JSON.stringify(content)}`).toBe(2);
        expect(run.stderr, `${command} with ${JSON.stringify(content)}`).toMatch(content ? /personas\.yaml: \(top level\): defines no persona/ : /personas\.yaml: .*the input is empty/);
      }
    }
  });
});

describe('live reload', () => {
  let client: Client;
  let stderr: () => string;
  const logged = (re: RegExp, from: number) => logLine(stderr, re, from);

  const call = async (name: string) => (await client.callTool({ name, arguments: {} }, { timeout: 60_000 })) as CallToolResult;

  beforeAll(async () => {
    writeFileSync(personasPath, dump({ reader: READER }));
    ({ client, stderr } = await connectGateway(configPath, [], {}, 120_000));
  });
  afterAll(() => client?.close());

  it('to {} is rejected with the file and reason; the last good personas keep deciding', async () => {
    const from = stderr().length;
    writeFileSync(personasPath, '{}\n');
    const line = await logged(/configuration edit rejected[^"]*/, from);
    expect(line).toContain('personas.yaml: (top level): defines no persona');
    expect((await call('bump')).content[0]).toEqual({ type: 'text', text: 'tool bump is not available to persona reader; call find_tools to see the tools you may use' });
    const back = stderr().length;
    writeFileSync(personasPath, dump({ reader: READER }));
    await logged(/configuration reloaded: nothing that applies live changed/, back);
  });

  it('that drops policy.personas from the config is rejected: it would open every tool to everyone', async () => {
    const from = stderr().length;
    writeFileSync(configPath, config({}));
    const line = await logged(/configuration edit rejected[^"]*/, from);
    expect(line).toContain('policy.personas: removed under a running gateway');
    expect((await call('bump')).isError).toBe(true);
    writeFileSync(configPath, config({ personas: 'personas.yaml' }));
    await logged(/configuration reloaded: nothing that applies live changed/, from);
  });

  it('that widens access warns, saying what widened', async () => {
    const from = stderr().length;
    writeFileSync(personasPath, dump({ reader: { allow: ['alpha.*', 'down.*'], confirm: 'none' }, guest: { allow: ['alpha.bump'] } }));
    const line = await logged(/"widened":\[[^\]]*\]/, from);
    expect(JSON.parse(line.slice('"widened":'.length))).toEqual([
      'reader may now use 3 more tools: add_prompt, add_resource, bump',
      'reader: tools (matching no tool known now) allow pattern added: "down.*"',
      'reader: no longer injects user_id',
      'reader: confirms none (was all)',
      'reader: confirm_via default (was both)',
      'guest is a new persona that may use 1 tool: bump',
    ]);
    expect(stderr().slice(from)).toMatch(/"level":40,[^\n]*configuration reloaded: the personas now allow more: reader may now use 3 more tools/);
    expect((await call('bump')).isError ?? false).toBe(false);
  });

  it('that narrows access is logged as applied, without a warning', async () => {
    const from = stderr().length;
    writeFileSync(personasPath, dump({ reader: { allow: ['alpha.subscription_log'], confirm: 'none' } }));
    await logged(/configuration reloaded: personas in force/, from);
    expect(stderr().slice(from)).not.toMatch(/allow more/);
  });
});
