/**
 * An unknown key in a config file names the closest key accepted at that place and the
 * keys it takes, read from the schema (gateway.config.yaml, personas.yaml).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.js';

function loadError(config: string, personas?: string): ConfigError {
  const dir = mkdtempSync(join(tmpdir(), 'tc-suggest-'));
  writeFileSync(join(dir, 'gateway.config.yaml'), config);
  if (personas !== undefined) writeFileSync(join(dir, 'personas.yaml'), personas);
  try {
    loadConfig(join(dir, 'gateway.config.yaml'));
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('the config loaded');
}

const TOP = 'upstreams, curator, store, postgres, policy, exposure, session, http, confirmation, guards, audit, overrides, relay, per_user, definitions, timeouts';

describe('unknown config keys', () => {
  it('at the top level', () => {
    const e = loadError('upstreams: {}\ncurater: { mode: bm25 }\n');
    expect([e.keyPath, e.expectation]).toEqual(['curater', `unknown key "curater"; did you mean "curator"? (the top level takes ${TOP})`]);
  });

  it('in a nested block', () => {
    const e = loadError('upstreams: {}\nexposure: { pinned: [], max_visibel: 3 }\n');
    expect([e.keyPath, e.expectation]).toEqual(['exposure.max_visibel', 'unknown key "max_visibel"; did you mean "max_visible"? (exposure takes pinned, max_visible, mode)']);
  });

  it('in an upstream, by the shape it has (stdio or remote)', () => {
    const stdio = loadError('upstreams:\n  files: { command: node, argz: [server.js] }\n');
    expect([stdio.keyPath, stdio.expectation]).toEqual(['upstreams.files.argz', 'unknown key "argz"; did you mean "args"? (upstreams.files takes command, args, env, secret_env, cwd, startup_timeout_ms, protocol)']);
    const remote = loadError('upstreams:\n  api: { url: "https://example.com/mcp", header: { a: b } }\n');
    expect([remote.keyPath, remote.expectation]).toEqual(['upstreams.api.header', 'unknown key "header"; did you mean "headers"? (upstreams.api takes url, headers, auth, transport, startup_timeout_ms, protocol)']);
  });

  it('in an upstream with neither command nor url, among the keys of both shapes', () => {
    const e = loadError('upstreams:\n  academics: { comand: node, args: [server.js] }\n');
    expect([e.keyPath, e.expectation]).toEqual([
      'upstreams.academics.comand',
      'unknown key "comand"; did you mean "command"? (upstreams.academics takes command, args, env, secret_env, cwd, startup_timeout_ms, protocol, url, headers, auth, transport)',
    ]);
    const remote = loadError('upstreams:\n  api: { ulr: "https://example.com/mcp" }\n');
    expect([remote.keyPath, remote.expectation.split(' (')[0]]).toEqual(['upstreams.api.ulr', 'unknown key "ulr"; did you mean "url"?']);
    const neither = loadError('upstreams:\n  api: { args: [server.js] }\n');
    expect([neither.keyPath, neither.expectation]).toEqual(['upstreams.api', 'expected a stdio upstream {command, args?, env?, cwd?} or a remote one {url, headers?, auth?, transport?}']);
  });

  it('in the embedder, among the keys of the provider it names', () => {
    const e = loadError('upstreams: {}\ncurator: { embedder: { provider: use, worker: 2 } }\n');
    expect([e.keyPath, e.expectation]).toEqual(['curator.embedder.worker', 'unknown key "worker"; did you mean "workers"? (curator.embedder takes workers, queryWorkers, batchSize, provider)']);
  });

  it('in a persona, reported against personas.yaml', () => {
    const e = loadError('upstreams: {}\npolicy: { personas: personas.yaml }\n', "student: { alow: ['*'] }\n");
    expect(e.file).toBe('personas.yaml');
    expect([e.keyPath, e.expectation]).toEqual(['student.alow', 'unknown key "alow"; did you mean "allow"? (student takes identity, withhold, allow, deny, resources, prompts, confirm, confirm_via)']);
  });

  it('a key nothing is close to gets the list alone; other errors keep their message', () => {
    const e = loadError('upstreams: {}\nexposure: { colour: blue }\n');
    expect(e.expectation).toBe('unknown key "colour" (exposure takes pinned, max_visible, mode)');
    const wrongType = loadError('upstreams: {}\ncurator: { top_k: many }\n');
    expect([wrongType.keyPath, wrongType.expectation]).toEqual(['curator.top_k', 'Invalid input: expected number, received string']);
  });
});
