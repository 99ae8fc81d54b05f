import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { describe, expect, test } from 'vitest';
import type { ToolRecord } from '../../src/catalog/types.js';
import { loadConfig } from '../../src/config/load.js';
import { personasSchema } from '../../src/config/schema.js';
import { unknownServerPatterns, unmatchedPatterns, unmatchedPinned } from '../../src/policy/patterns.js';
import { CLI, referenceConfig } from '../helpers/reference.js';

const rec = (server: string, name: string): ToolRecord => ({ server, name, upstreamName: name, description: '', inputSchema: { type: 'object' }, isAction: false });
const catalog = [rec('attendance', 'get_course_attendance'), rec('attendance', 'get_attendance_summary'), rec('finance', 'get_fee_dues'), rec('finance', 'make_payment')];
const personas = personasSchema.parse({
  executive: { allow: ['*.get_*'], deny: ['attendence.get_course_*', 'attendance.get_course_attendence'] },
  student: { allow: ['finanse.get_fee_dues', 'finance.make_payment', 'hostel.*', '*.get_attendance_summary'] },
});

describe('persona pattern checks', () => {
  test('a pattern naming an upstream that does not exist is reported with the closest upstream', () => {
    expect(unknownServerPatterns(personas, ['attendance', 'finance', 'hostel'])).toEqual([
      {
        file: 'personas',
        persona: 'executive',
        key: 'executive.deny.0',
        pattern: 'attendence.get_course_*',
        message: 'pattern "attendence.get_course_*" names upstream "attendence", which is not in the config\'s upstreams; did you mean "attendance"? (upstreams: attendance, finance, hostel)',
      },
      {
        file: 'personas',
        persona: 'student',
        key: 'student.allow.0',
        pattern: 'finanse.get_fee_dues',
        message: 'pattern "finanse.get_fee_dues" names upstream "finanse", which is not in the config\'s upstreams; did you mean "finance"? (upstreams: attendance, finance, hostel)',
      },
    ]);
  });

  test('a pattern matching no tool of a connected upstream is reported; an upstream not connected is skipped', () => {
    const issues = unmatchedPatterns(personas, catalog, new Set(['attendance', 'finance']));
    expect(issues.map((i) => [i.key, i.message])).toEqual([
      ['executive.deny.1', 'pattern "attendance.get_course_attendence" matches no tool of upstream attendance; did you mean "get_course_attendance"?'],
    ]);
    // Once hostel is connected and lists nothing, hostel.* matches nothing either.
    expect(unmatchedPatterns(personas, catalog, new Set(['attendance', 'finance', 'hostel'])).map((i) => i.key)).toEqual(['executive.deny.1', 'student.allow.2']);
  });
});

describe('pinned tool names', () => {
  test('a pinned name no tool has is reported against exposure.pinned with the closest name; a held-back tool counts as a tool', () => {
    expect(unmatchedPinned(['get_fee_dues', 'get_fee_duez', 'make_payment'], catalog)).toEqual([
      { file: 'config', key: 'exposure.pinned.1', pattern: 'get_fee_duez', message: 'pinned tool "get_fee_duez" is the name of no tool; did you mean "get_fee_dues"?' },
    ]);
    expect(unmatchedPinned(['renew_book'], catalog, new Set(['renew_book']))).toEqual([]);
  });
});

describe('the CLI over the reference servers', () => {
  const setup = (persona: Record<string, unknown>, pinned: string[] = []) => {
    const ref = referenceConfig({ curator: { mode: 'bm25', embedder: 'none' }, policy: { personas: 'personas.yaml' }, session: { persona: 'user' }, exposure: { pinned } });
    writeFileSync(join(ref.dir, 'personas.yaml'), dump({ user: persona }));
    return ref;
  };
  const run = (configPath: string, args: string[]) => spawnSync(process.execPath, [CLI, ...args, '--config', configPath], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, TOOL_CURATOR_LOG: 'warn' } });

  test('an unknown upstream in a pattern is an error for every command, naming file, persona key and pattern', () => {
    const { configPath } = setup({ allow: ['files.*', 'memroy.read_graph'] });
    expect(() => loadConfig(configPath)).toThrow('personas.yaml: user.allow.1: pattern "memroy.read_graph" names upstream "memroy"');
    const r = run(configPath, ['tools']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('tool-curator: personas.yaml: user.allow.1: pattern "memroy.read_graph" names upstream "memroy", which is not in the config\'s upstreams; did you mean "memory"?');
  });

  test('a pattern matching no tool: a warning without --strict, an error with it', () => {
    const { configPath } = setup({ allow: ['files.*', 'memory.read_grahp'] });
    const lax = run(configPath, ['tools']);
    expect(lax.status).toBe(0);
    expect(lax.stderr).toContain('personas.yaml: user.allow.1: pattern \\"memory.read_grahp\\" matches no tool of upstream memory; did you mean \\"read_graph\\"?');
    const strict = run(configPath, ['tools', '--strict']);
    expect(strict.status).toBe(2);
    expect(strict.stderr).toContain('tool-curator: personas.yaml: user.allow.1: pattern "memory.read_grahp" matches no tool of upstream memory; did you mean "read_graph"?; --strict refuses patterns that match nothing');
  });

  test('a pinned name no tool has: a warning without --strict, an error with it (tools and serve)', () => {
    const { configPath } = setup({ allow: ['*'] }, ['read_graph', 'read_grahp']);
    const lax = run(configPath, ['tools']);
    expect(lax.status).toBe(0);
    expect(lax.stderr).toContain(`${configPath}: exposure.pinned.1: pinned tool \\"read_grahp\\" is the name of no tool; did you mean \\"read_graph\\"?`);
    const refusal = `tool-curator: ${configPath}: exposure.pinned.1: pinned tool "read_grahp" is the name of no tool; did you mean "read_graph"?; --strict refuses pinned names that match no tool\n`;
    for (const command of [['tools', '--strict'], ['serve', '--strict']]) {
      const strict = run(configPath, command);
      expect(strict.status, command.join(' ')).toBe(2);
      expect(strict.stderr.endsWith(refusal), strict.stderr.slice(-500)).toBe(true);
    }
  });
});
