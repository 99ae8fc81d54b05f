/** What a change of personas widens (issue 18, item 2), over a small catalog. */
import { describe, expect, test } from 'vitest';
import { personasSchema } from '../../src/config/schema.js';
import { widenings } from '../../src/policy/widening.js';
import { catalog } from '../guards/fixtures.js';

const personas = (p: unknown) => personasSchema.parse(p);
const student = { identity: { student_id: '${user_id}' }, withhold: ['faculty_id'], allow: ['academics.get_*'], confirm: 'all', confirm_via: 'approvals', resources: { allow: ['academics.university://courses/*'], deny: ['academics.university://courses/secret*'] } };

describe('widenings', () => {
  test('nothing for the same personas, or for narrower ones', () => {
    expect(widenings(personas({ student }), personas({ student }), catalog)).toEqual([]);
    expect(widenings(personas({ student, other: student }), personas({ student: { ...student, allow: [] } }), catalog)).toEqual([]);
  });

  test('every way a persona widens, one sentence each', () => {
    const wider = {
      identity: { student_id: 'S0001' },
      allow: ['academics.*', 'finance.get_fee_dues'],
      confirm: 'actions',
      confirm_via: 'elicitation',
      resources: { allow: ['academics.university://*'], deny: [] },
      prompts: { allow: ['*'] },
    };
    expect(widenings(personas({ student }), personas({ student: wider }), catalog)).toEqual([
      'student may now use 1 more tool: get_fee_dues',
      'student: resources allow pattern added: "academics.university://*"',
      'student: resources deny pattern removed: "academics.university://courses/secret*"',
      'student: prompts allow pattern added: "*"',
      'student: injects student_id from "S0001" (was "${user_id}")',
      'student: no longer withholds faculty_id',
      'student: confirms actions (was all)',
      'student: confirm_via elicitation (was approvals)',
    ]);
  });

  test('a new persona is named with the tools it may use', () => {
    expect(widenings(personas({ student }), personas({ student, guest: { allow: ['finance.get_fee_dues'] } }), catalog)).toEqual(['guest is a new persona that may use 1 tool: get_fee_dues']);
  });
});
