/**
 * The bundled example starts warm: the vectors the repository ships (university.vectors,
 * `curator.vectors`) seed a fresh store, so the gateway's dense index is ready as soon as
 * the eight upstreams are, without embedding one text; and `select` then ranks from the
 * catalog snapshot the gateway wrote, without starting the upstreams, saying how old it is.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import type { BuildProgress } from '../../src/curator/progress.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { CLI_TIMEOUT_MS, universityConfig, type University } from '../guards/university.js';
import { CLI, ROOT } from '../helpers/reference.js';

const policy = {
  personas: join(ROOT, 'personas.yaml'),
  synonyms: join(ROOT, 'domain_synonyms.json'),
  dependencies: join(ROOT, 'dependencies.yaml'),
  exemplars: join(ROOT, 'exemplars.json'),
};

describe('the bundled example with its shipped vectors', () => {
  let uni: University;
  let gateway: Gateway;
  const progress: BuildProgress[] = [];

  beforeAll(async () => {
    uni = universityConfig({ curator: { mode: 'hybrid', embedder: 'use', vectors: join(ROOT, 'university.vectors') }, policy });
    gateway = await Gateway.create(loadConfig(uni.configPath));
    gateway.on('progress', (p: BuildProgress) => progress.push(p));
    await gateway.ready;
  }, 300_000);
  afterAll(async () => {
    await gateway?.close();
  });

  it('builds its dense index without embedding a text (after editing synonyms or exemplars: npm run vectors)', async () => {
    expect(gateway.catalog).toHaveLength(191);
    expect(progress).toEqual([]);
    const s = await gateway.findTools('am I allowed to sit my exams', 'student');
    expect(s.mode).toBe('hybrid');
    expect(s.tools.slice(0, 3).map((t) => t.name)).toContain('get_exam_eligibility');
  });

  it('select ranks from the catalog snapshot without starting the upstreams; --refresh starts them', () => {
    expect(existsSync(join(uni.dir, 'catalog.json'))).toBe(true);
    const run = (extra: string[]) => spawnSync(process.execPath, [CLI, 'select', 'am I allowed to sit my exams', '--config', uni.configPath, '--json', '--log-format', 'json', ...extra], {
      encoding: 'utf8',
      timeout: CLI_TIMEOUT_MS,
      env: { ...process.env, TOOL_CURATOR_LOG: 'info' },
    });
    const cached = run([]);
    expect(cached.status).toBe(0);
    expect(cached.stderr).toMatch(new RegExp(`^catalog: 191 tools from ${join(uni.dir, 'catalog.json')}, listed \\d+ (s|min) ago \\(\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\); --refresh lists the upstreams again$`, 'm'));
    expect(cached.stderr).not.toContain('upstreams connected');
    const fresh = run(['--refresh']);
    expect(fresh.status).toBe(0);
    expect(fresh.stderr).toContain('"ready":8,"total":8,"tools":191,"msg":"upstreams connected"');
    const names = (r: typeof cached) => (JSON.parse(r.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names(cached)).toEqual(names(fresh));
    expect(names(cached).slice(0, 3)).toContain('get_exam_eligibility');
  }, 2 * CLI_TIMEOUT_MS);
});
