/**
 * `tool-curator eval` on a suite file from the command line: --sample runs the stratified
 * slice it names (it used to be ignored for a suite), and a second run takes the catalog
 * from the snapshot the first one left, saying how old it is, without starting upstreams.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { loadSuite, universitySlice } from '../../src/eval/university.js';
import { CLI_TIMEOUT_MS, universityConfig } from '../guards/university.js';
import { CLI, ROOT } from '../helpers/reference.js';

it('eval <suite> --sample N runs the slice of about N cases, and the next run reads the catalog snapshot', () => {
  const uni = universityConfig({ policy: { personas: join(ROOT, 'personas.yaml'), dependencies: join(ROOT, 'dependencies.yaml'), synonyms: join(ROOT, 'domain_synonyms.json') } });
  const run = () =>
    spawnSync(process.execPath, [CLI, 'eval', join(ROOT, 'eval/university.yaml'), '--mode', 'bm25', '--sample', '14', '--json', '--config', uni.configPath, '--log-format', 'json'], {
      encoding: 'utf8',
      timeout: CLI_TIMEOUT_MS,
      env: { ...process.env, TOOL_CURATOR_LOG: 'info', TOOL_CURATOR_EVAL_CACHE: join(uni.dir, 'eval.db') },
    });
  const expected = universitySlice(loadSuite(join(ROOT, 'eval/university.yaml')), 14);
  const first = run();
  expect(first.status).toBe(0);
  expect(first.stderr).toContain('"msg":"upstreams connected"');
  const suite = (JSON.parse(first.stdout) as { suite: { cases: number; results: { mode: string; correct: number }[] } }).suite;
  expect(suite.cases).toBe(expected.length);
  expect(suite.results.map((r) => r.mode)).toEqual(['bm25']);
  const second = run();
  expect(second.status).toBe(0);
  expect(second.stderr).toMatch(new RegExp(`^catalog: 191 tools from ${join(uni.dir, 'catalog.json')}, listed \\d+ (s|min) ago`, 'm'));
  expect(second.stderr).not.toContain('upstreams connected');
  expect((JSON.parse(second.stdout) as { suite: typeof suite }).suite.results).toEqual(suite.results);
}, 3 * CLI_TIMEOUT_MS);

it('eval --off names an unknown mechanism and the known ones, exit 2', () => {
  const r = spawnSync(process.execPath, [CLI, 'eval', 'livemcpbench', '--mode', 'bm25', '--off', 'servers,telepathy'], { encoding: 'utf8', timeout: CLI_TIMEOUT_MS });
  expect(r.stderr).toContain('unknown mechanism telepathy for --off; known: servers, lexical, lexical-head, result-steps, spelling');
  expect(r.status).toBe(2);
});
