/**
 * `tool-curator doctor` on real configurations: it starts every upstream for real and
 * reports tool counts, latencies and the auth state, a start failure with its cause, a
 * persona pattern that matches nothing (the typo case), an upstream no persona but the
 * administrator may use, a broken config file with its file and key, and exits non-zero
 * when anything is wrong.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { runDoctor } from '../../src/doctor/doctor.js';
import type { DoctorReport } from '../../src/doctor/types.js';
import { CLI, ROOT } from '../helpers/reference.js';

const server = (name: string, dir: string) => ({ command: process.execPath, args: [join(ROOT, 'dist/mock-servers', `${name}.js`)], env: { UNIVERSITY_DB: join(dir, 'university.db') } });

function doctor(configPath: string, json = true): { code: number | null; report?: DoctorReport; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, 'doctor', '--config', configPath, ...(json ? ['--json'] : [])], {
    encoding: 'utf8',
    env: { ...process.env, TOOL_CURATOR_LOG: 'error' },
    timeout: 180_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, ...(json && r.stdout && { report: JSON.parse(r.stdout) as DoctorReport }) };
}

function setup(upstreams: Record<string, unknown>, personas: Record<string, unknown>, curator: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'tc-doctor-'));
  const personasPath = join(dir, 'personas.yaml');
  writeFileSync(personasPath, dump(personas));
  const configPath = join(dir, 'gateway.config.yaml');
  const resolved = Object.fromEntries(Object.entries(upstreams).map(([k, v]) => [k, v === 'university' ? server(k, dir) : v]));
  writeFileSync(configPath, dump({
    upstreams: resolved,
    curator: { mode: 'bm25', embedder: 'none', ...curator },
    store: join(dir, 'store.db'),
    policy: { personas: personasPath },
    timeouts: { startup_ms: 120_000, list_wait_ms: 120_000 },
  }));
  return configPath;
}

describe('tool-curator doctor', () => {
  it('a healthy config: every upstream ready with its tool count and latencies, coverage per persona, exit 0', () => {
    const configPath = setup({ academics: 'university', finance: 'university' }, {
      student: { identity: { student_id: '${user_id}' }, allow: ['academics.get_*', 'finance.get_fee_dues'] },
      clerk: { allow: ['finance.*'] },
    });
    const { code, report } = doctor(configPath);
    expect(report!.upstreams.map((u) => [u.name, u.state, u.tools, u.auth])).toEqual([
      ['academics', 'ready', 30, 'n/a (stdio)'],
      ['finance', 'ready', 24, 'n/a (stdio)'],
    ]);
    for (const u of report!.upstreams) {
      expect(u.startMs).toBeGreaterThan(0);
      expect(u.pingMs).toBeGreaterThanOrEqual(0);
    }
    expect(report!.personas.find((p) => p.persona === 'clerk')).toEqual({ persona: 'clerk', tools: 24, unmatched: [] });
    expect(report!.personas.find((p) => p.persona === 'student')!.unmatched).toEqual([]);
    expect(report!.findings.filter((f) => f.level === 'warn' || f.level === 'error')).toEqual([]);
    expect(code).toBe(0);
  }, 240_000);

  it('reports a pattern typo and a failing upstream with its cause, and exits 1', () => {
    const configPath = setup({ finance: 'university', broken: { command: process.execPath, args: ['/nonexistent/server.js'] } }, {
      student: { allow: ['finance.get_fee_duez', 'finance.get_fee_dues'] },
    });
    const { code, report } = doctor(configPath);
    expect(code).toBe(1);
    const broken = report!.upstreams.find((u) => u.name === 'broken')!;
    expect(broken.state).toBe('failed');
    expect(broken.error).toMatch(/exited with code 1; stderr: .*Cannot find module '\/nonexistent\/server.js'/);
    const student = report!.personas.find((p) => p.persona === 'student')!;
    expect(student.tools).toBe(1);
    // The failed upstream leaves bare patterns unjudged, but this one names a server: judged.
    expect(student.unmatched).toEqual([{ key: 'allow.0', pattern: 'finance.get_fee_duez' }]);
    const messages = report!.findings.filter((f) => f.check === 'persona' && f.level === 'warn').map((f) => `${f.key}: ${f.message}`);
    expect(messages).toEqual(['student.allow.0: pattern "finance.get_fee_duez": it matches no tool']);
  }, 240_000);

  it('warns of an upstream whose tools only the allow-everything persona (admin) may use, or none', async () => {
    const personas = {
      student: { allow: ['academics.get_*'] },
      clerk: { allow: ['finance.get_fee_dues'] },
      admin: { allow: ['*'] },
    };
    const withAdmin = await runDoctor(setup({ academics: 'university', finance: 'university', library: 'university' }, personas));
    const visibility = (r: DoctorReport) => r.findings.filter((f) => f.key?.startsWith('upstreams.') && f.check === 'persona').map((f) => [f.level, f.file?.endsWith('personas.yaml'), f.key, f.message]);
    expect(visibility(withAdmin)).toEqual([
      ['warn', true, 'upstreams.library', 'upstream "library": its 22 tools are visible to only admin (allow "*"); to let a persona use them, add "library.*" (or "library.<tool>") to its allow list'],
    ]);
    expect(withAdmin.exitCode).toBe(1);
    const { admin: _admin, ...withoutAdmin } = personas;
    const none = await runDoctor(setup({ academics: 'university', finance: 'university', library: 'university' }, withoutAdmin));
    expect(visibility(none)).toEqual([
      ['warn', true, 'upstreams.library', 'upstream "library": its 22 tools are visible to no persona; to let a persona use them, add "library.*" (or "library.<tool>") to its allow list'],
    ]);
  }, 240_000);

  it('a pattern naming an upstream the config lacks is a config error, with the closest name suggested, exit 1', () => {
    const configPath = setup({ finance: 'university' }, { student: { allow: ['finanse.get_fee_dues'] } });
    const { code, stdout } = doctor(configPath, false);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^config {3}ERROR {2}.*personas\.yaml: student\.allow\.0: .*finanse.*finance/m);
  }, 60_000);

  it('learning on without an embedder or user ids: it says learned queries rank through BM25 only and nothing is recorded, exit 0', () => {
    const configPath = setup({ finance: 'university' }, { clerk: { allow: ['finance.*'] } }, { learning: { enabled: true } });
    const { code, report } = doctor(configPath);
    expect(code).toBe(0);
    expect(report!.findings.filter((f) => f.check === 'learning').map((f) => [f.level, f.message])).toEqual([
      ['ok', 'on: a pair counts from 3 distinct users of a persona, at most 20 per tool'],
      ['info', 'without an embedder (mode bm25, embedder none) learned queries rank through BM25 only, not as dense passages'],
      ['info', 'no session has a user id (session.user_id, http.tokens[].user_id or http.oauth): nothing is recorded, since evidence counts by distinct users'],
    ]);
  }, 240_000);

  it('a broken config file is reported with its file and key path (text output), exit 1', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-doctor-'));
    const configPath = join(dir, 'gateway.config.yaml');
    writeFileSync(configPath, dump({ upstreams: { x: { command: 'node', args: 'not-a-list' } } }));
    const { code, stdout } = doctor(configPath, false);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^config {3}ERROR {2}.*gateway\.config\.yaml: upstreams\.x\.args: /m);
  }, 60_000);
});
