import { describe, expect, test } from 'vitest';
import { MissingIdentityError, Policy, UnknownPersonaError } from '../../src/policy/policy.js';
import { byName, catalog, policy } from '../guards/fixtures.js';

describe('Policy', () => {
  test('student: allow by upstream and by name, deny admin_* on any upstream', () => {
    expect(policy.allowed('student', catalog).map((t) => t.name)).toEqual([
      'get_course_catalog',
      'get_my_grades',
      'get_attendance_summary',
      'get_fee_dues',
      'make_payment',
    ]);
  });

  test('deny wins over allow: the auditor allows * but denies the administration upstream', () => {
    expect(policy.isAllowed('auditor', byName('admin_override_attendance'))).toBe(true);
    expect(policy.isAllowed('auditor', byName('admin_delete_student'))).toBe(false);
  });

  test('which upstreams a persona may reach before their tools are known (find_tools names those not ready)', () => {
    // The student's patterns name academics, attendance and finance; `*.admin_*` denies some tools, not a whole upstream.
    expect(['academics', 'attendance', 'finance', 'administration', 'hostel'].filter((s) => policy.mayReach('student', s))).toEqual(['academics', 'attendance', 'finance']);
    // `*` reaches every upstream but the one denied whole.
    expect(['academics', 'administration', 'hostel'].filter((s) => policy.mayReach('auditor', s))).toEqual(['academics', 'hostel']);
    expect(policy.mayReach('visitor', 'academics')).toBe(false);
    expect(new Policy({}).mayReach(undefined, 'anything')).toBe(true);
    // A bare glob names no upstream: it may match a tool of any.
    expect(new Policy({ reader: { allow: ['get_*'], deny: [], confirm: 'actions' } } as never).mayReach('reader', 'library')).toBe(true);
  });

  test('an unknown persona is allowed nothing, and asking for it throws with the known ones', () => {
    expect(policy.allowed('visitor', catalog)).toEqual([]);
    expect(() => policy.persona('visitor')).toThrow(UnknownPersonaError);
    expect(() => policy.persona('visitor')).toThrow('personas.yaml defines: student, auditor, admin');
  });

  test('identity templates are filled from the session', () => {
    expect(policy.identityFields('student')).toEqual(['student_id']);
    expect(policy.identityValues('student', 'S0001')).toEqual({ student_id: 'S0001' });
    expect(policy.identityValues('auditor', undefined)).toEqual({});
  });

  test('a template needing a user id the session lacks throws, naming the field and the fix', () => {
    expect(() => policy.identityValues('student', undefined)).toThrow(MissingIdentityError);
    expect(() => policy.identityValues('student', '')).toThrow(/injects student_id from \$\{user_id\}.*--user-id/);
  });

  test('confirmation policy per persona; actions by default', () => {
    expect(policy.confirmation('student')).toBe('actions');
    expect(policy.confirmation('auditor')).toBe('all');
    expect(policy.confirmation('admin')).toBe('none');
  });

  test('without personas everything is allowed, nothing injected, actions confirmed', () => {
    const open = new Policy({});
    expect(open.open).toBe(true);
    expect(open.allowed(undefined, catalog)).toHaveLength(catalog.length);
    expect(open.identityValues(undefined, undefined)).toEqual({});
    expect(open.identityFields(undefined)).toEqual([]);
    expect(open.confirmation(undefined)).toBe('actions');
  });
});
