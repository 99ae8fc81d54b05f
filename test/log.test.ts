/**
 * Logs: the library is silent unless given a logger; the CLI writes human lines with
 * --log-format pretty (the default on a terminal) and JSON otherwise; serve repeats its
 * start-up warnings in one block once it is ready, so a persona pattern typo stands out.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { spawnUntil } from './helpers/process.js';
import { CLI, ROOT } from './helpers/reference.js';

const LIBRARY_RUN = `
  const { createCurator, toolRecord, setLogger } = await import(${JSON.stringify(join(ROOT, 'dist/src/index.js'))});
  const tools = [toolRecord({ name: 'get_fee_dues', description: 'fee dues' }), toolRecord({ name: 'pay_fee', description: 'pay a fee' })];
  // hybrid without an embedder logs a warning, and BM25 ready at info.
  await createCurator({ mode: 'hybrid', embedder: null }).buildIndex(tools);
  if (process.argv[1] === 'with-logger') {
    const { pino } = await import(${JSON.stringify(join(ROOT, 'node_modules/pino/pino.js'))});
    setLogger(pino({ base: undefined, timestamp: false }, pino.destination({ fd: 2, sync: true })));
    await createCurator({ mode: 'hybrid', embedder: null }).buildIndex(tools);
  }
`;

function configDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tc-log-'));
  writeFileSync(join(dir, 'personas.yaml'), dump({ student: { identity: { student_id: '${user_id}' }, allow: ['finance.get_fee_duez'] } }));
  writeFileSync(
    join(dir, 'gateway.config.yaml'),
    dump({
      upstreams: { finance: { command: process.execPath, args: [join(ROOT, 'dist/mock-servers/finance.js')], env: { UNIVERSITY_DB: join(dir, 'university.db') } } },
      curator: { mode: 'bm25', embedder: 'none' },
      store: join(dir, 'store.db'),
      policy: { personas: 'personas.yaml' },
      timeouts: { startup_ms: 120_000 },
      http: { tokens: [{ token: 'a-test-token-0123456789', persona: 'student', user_id: 'S0001' }] },
    }),
  );
  return dir;
}

describe('logs', () => {
  it('the library writes nothing unless given a logger', () => {
    const silent = spawnSync(process.execPath, ['--input-type=module', '-e', LIBRARY_RUN], { encoding: 'utf8', timeout: 120_000 });
    expect(silent.status).toBe(0);
    expect(silent.stderr).toBe('');
    const given = spawnSync(process.execPath, ['--input-type=module', '-e', LIBRARY_RUN, 'with-logger'], { encoding: 'utf8', timeout: 120_000 });
    expect(given.status).toBe(0);
    expect(given.stderr).toContain('{"level":40,"mode":"hybrid","msg":"curator: no embedder configured, running BM25 only"}');
  }, 240_000);

  it('the CLI: human lines with --log-format pretty, JSON with TOOL_CURATOR_LOG_FORMAT=json', () => {
    const dir = configDir();
    const run = (args: string[], env: Record<string, string> = {}) =>
      spawnSync(process.execPath, [CLI, 'tools', '--config', join(dir, 'gateway.config.yaml'), ...args], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, TOOL_CURATOR_LOG: 'info', ...env } });
    const pretty = run(['--log-format', 'pretty']);
    expect(pretty.status).toBe(0);
    expect(pretty.stderr).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: upstreams connected \{"ready":1,"total":1,"tools":24\}$/m);
    expect(pretty.stderr).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: personas\.yaml: student\.allow\.0: pattern "finance\.get_fee_duez" matches no tool of upstream finance; did you mean "get_fee_dues"\?/m);
    expect(pretty.stderr).not.toContain('"level"');
    const json = run([], { TOOL_CURATOR_LOG_FORMAT: 'json' });
    expect(json.status).toBe(0);
    const lines = json.stderr.trim().split('\n').map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(lines.find((l) => l.msg === 'upstreams connected')).toMatchObject({ level: 30, ready: 1, total: 1 });
    const bad = run([], { TOOL_CURATOR_LOG_FORMAT: 'xml' });
    expect([bad.status, bad.stderr]).toEqual([1, 'tool-curator: TOOL_CURATOR_LOG_FORMAT=xml is not a log format; use json or pretty\n']);
  }, 360_000);

  it('serve repeats its start-up warnings in one block once ready', async () => {
    const dir = configDir();
    const { child, stderr } = await spawnUntil(process.execPath, [CLI, 'serve', '--http', '0', '--config', join(dir, 'gateway.config.yaml'), '--log-format', 'pretty'], /warning at start-up[^\n]*\n.*\n/, { TOOL_CURATOR_LOG: 'info' }, 180_000);
    child.kill('SIGTERM');
    const block = stderr().slice(stderr().indexOf('WARN: 1 warning at start-up'));
    expect(block.split('\n').slice(0, 2)).toEqual([
      expect.stringMatching(/^WARN: 1 warning at start-up \(tool-curator doctor checks the config\):$/),
      '  1. personas.yaml: student.allow.0: pattern "finance.get_fee_duez" matches no tool of upstream finance; did you mean "get_fee_dues"?',
    ]);
  }, 240_000);
});
