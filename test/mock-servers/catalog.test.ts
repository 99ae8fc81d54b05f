/**
 * The university testbed's catalog: each server runs alone over stdio and lists its
 * tools; together exactly 191 unique snake_case names with contract descriptions,
 * object input schemas and MCP annotations (55 action tools); and the policy files
 * (personas.yaml, dependencies.yaml, domain_synonyms.json) refer to real tools and give
 * the persona counts the gateway relies on.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load as loadYaml } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, SERVERS, University, type ListedTool } from './university.js';

const EXPECTED_COUNTS: Record<string, number> = { academics: 30, attendance: 18, examinations: 24, finance: 24, hostel: 24, library: 22, placements: 22, administration: 27 };

let uni: University;
beforeAll(async () => {
  uni = await new University().start();
});
afterAll(async () => uni?.stop());

describe('university servers over stdio', () => {
  it('each server lists its own tools', () => {
    for (const s of SERVERS) expect(uni.tools.filter((t) => t.server === s).length, s).toBe(EXPECTED_COUNTS[s]);
  });

  it('together list exactly 191 unique snake_case tool names', () => {
    const names = uni.tools.map((t) => t.name);
    expect(names.length).toBe(191);
    expect(new Set(names).size).toBe(191);
    for (const n of names) expect(n).toMatch(/^[a-z]+(_[a-z0-9]+)*$/);
  });

  it('every tool has a contract description and an object input schema', () => {
    for (const t of uni.tools) {
      expect(t.description?.length ?? 0, t.name).toBeGreaterThan(40);
      expect(t.description, t.name).not.toMatch(/use this tool when/i);
      expect(t.inputSchema.type, t.name).toBe('object');
      for (const [param, schema] of Object.entries(t.inputSchema.properties ?? {})) {
        expect((schema as { description?: string }).description, `${t.name}.${param}`).toBeTruthy();
      }
    }
  });

  it('annotates 55 action tools as not read-only, destructive where they cancel or withdraw', () => {
    const actions = uni.tools.filter((t) => t.annotations?.readOnlyHint === false);
    expect(actions.length).toBe(55);
    for (const t of uni.tools) expect(typeof t.annotations?.readOnlyHint, t.name).toBe('boolean');
    const destructive = uni.tools.filter((t) => t.annotations?.destructiveHint === true).map((t) => t.name).sort();
    expect(destructive).toEqual(['cancel_book_reservation', 'cancel_hostel_leave', 'cancel_revaluation_request', 'deactivate_user_account', 'decline_offer', 'drop_course', 'withdraw_from_placement_drive', 'withdraw_scholarship_application']);
    for (const t of destructive) expect(actions.map((a) => a.name)).toContain(t);
  });

  it('keeps identity parameters named for injection', () => {
    const params = new Set(uni.tools.flatMap((t) => Object.keys(t.inputSchema.properties ?? {})));
    for (const p of ['student_id', 'faculty_id', 'employee_id']) expect(params).toContain(p);
    const studentPattern = (uni.tools.find((t) => t.name === 'get_cgpa')!.inputSchema.properties!.student_id as { pattern: string }).pattern;
    expect(new RegExp(studentPattern).test('S0001')).toBe(true);
  });
});

/** The gateway's persona semantics, re-implemented here on purpose (see src/policy/policy.ts). */
function globMatches(pattern: string, tool: ListedTool): boolean {
  const dot = pattern.indexOf('.');
  const [server, glob] = dot > 0 ? [pattern.slice(0, dot), pattern.slice(dot + 1)] : [undefined, pattern];
  if (server !== undefined && server !== tool.server) return false;
  const re = new RegExp(`^${glob.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return re.test(tool.name);
}

interface Persona { identity: Record<string, string>; allow: string[]; deny?: string[]; confirm: string }

describe('personas.yaml', () => {
  const personas = loadYaml(readFileSync(join(ROOT, 'personas.yaml'), 'utf8')) as Record<string, Persona>;
  const allowed = (p: Persona) => uni.tools.filter((t) => p.allow.some((a) => globMatches(a, t)) && !(p.deny ?? []).some((d) => globMatches(d, t)));

  it('gives student 87, faculty about 65, executive about 27 and admin all 191 tools', () => {
    expect(allowed(personas.student).length).toBe(87);
    expect(allowed(personas.faculty).length).toBeGreaterThanOrEqual(60);
    expect(allowed(personas.faculty).length).toBeLessThanOrEqual(70);
    expect(allowed(personas.executive).length).toBeGreaterThanOrEqual(24);
    expect(allowed(personas.executive).length).toBeLessThanOrEqual(30);
    expect(allowed(personas.admin).length).toBe(191);
  });

  it('keeps the executive mostly on dashboards and reports, and off every action tool', () => {
    const exec = allowed(personas.executive);
    expect(exec.filter((t) => /(dashboard|analytics|report|statistics|stats|summary)$/.test(t.name)).length / exec.length).toBeGreaterThan(0.6);
    expect(exec.filter((t) => t.annotations?.readOnlyHint === false)).toEqual([]);
  });

  it('injects each persona\'s identity and never lets a student act as staff', () => {
    expect(personas.student.identity).toEqual({ student_id: '${user_id}' });
    expect(personas.faculty.identity).toEqual({ faculty_id: '${user_id}' });
    expect(personas.executive.identity).toEqual({ employee_id: '${user_id}' });
    for (const p of Object.values(personas)) expect(['actions', 'all', 'none']).toContain(p.confirm);
    const studentTools = allowed(personas.student);
    expect(studentTools.filter((t) => 'employee_id' in (t.inputSchema.properties ?? {}) || 'faculty_id' in (t.inputSchema.properties ?? {}) && !('student_id' in (t.inputSchema.properties ?? {})))).toEqual([]);
    expect(studentTools.map((t) => t.name)).toEqual(expect.arrayContaining(['get_cgpa', 'get_attendance_summary', 'submit_grievance', 'apply_for_hostel_leave', 'make_payment', 'get_exam_eligibility']));
  });

  it('uses no allow pattern that matches nothing', () => {
    for (const [name, p] of Object.entries(personas)) {
      for (const a of p.allow) expect(uni.tools.some((t) => globMatches(a, t)), `${name}: ${a}`).toBe(true);
    }
  });
});

describe('dependencies.yaml, domain_synonyms.json and exemplars.json', () => {
  it('has at least 15 workflow rules over real tools, including the documented ones', () => {
    const deps = loadYaml(readFileSync(join(ROOT, 'dependencies.yaml'), 'utf8')) as Record<string, string[]>;
    const names = new Set(uni.tools.map((t) => t.name));
    expect(Object.keys(deps).length).toBeGreaterThanOrEqual(15);
    for (const [tool, needs] of Object.entries(deps)) {
      expect(names.has(tool), tool).toBe(true);
      for (const n of needs) expect(names.has(n), `${tool} -> ${n}`).toBe(true);
    }
    expect(deps.get_exam_eligibility).toEqual(['get_attendance_summary', 'get_fee_dues']);
    expect(deps.make_payment).toEqual(['get_fee_dues']);
    expect(deps.register_for_placement_drive).toEqual(['check_placement_eligibility']);
  });

  it('has a synonym string for every tool and nothing else', () => {
    const synonyms = JSON.parse(readFileSync(join(ROOT, 'domain_synonyms.json'), 'utf8')) as Record<string, string>;
    expect(Object.keys(synonyms).sort()).toEqual(uni.tools.map((t) => t.name).sort());
    expect(synonyms.submit_grievance).toContain('raise a formal complaint');
    expect(synonyms.get_exam_eligibility).toContain('barred from exams');
  });

  it('gives example phrasings only for real tools', () => {
    const exemplars = JSON.parse(readFileSync(join(ROOT, 'exemplars.json'), 'utf8')) as Record<string, string[]>;
    const names = new Set(uni.tools.map((t) => t.name));
    for (const [tool, phrases] of Object.entries(exemplars)) {
      expect(names.has(tool), tool).toBe(true);
      expect(phrases.length, tool).toBeGreaterThan(0);
    }
  });
});
