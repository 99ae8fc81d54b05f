import { describe, expect, test } from 'vitest';
import { identityGuard, visibleSchema } from '../../src/guards/identity.js';
import { compose } from '../../src/guards/types.js';
import { personasSchema } from '../../src/config/schema.js';
import type { ToolRecord } from '../../src/catalog/types.js';
import { Policy } from '../../src/policy/policy.js';
import { byName, policy } from './fixtures.js';
import { context, recordingUpstream, text } from './helpers.js';

describe('visibleSchema', () => {
  test('removes the persona identity fields from properties and required', () => {
    expect(visibleSchema(byName('get_my_grades'), policy.persona('student'))).toEqual({
      type: 'object',
      properties: { term: { type: 'string' } },
      required: ['term'],
    });
  });

  test('leaves the upstream schema object itself when there is nothing to remove', () => {
    const t = byName('get_course_catalog');
    expect(visibleSchema(t, policy.persona('student'))).toBe(t.inputSchema);
    expect(visibleSchema(byName('get_my_grades'), undefined)).toBe(byName('get_my_grades').inputSchema);
  });

  test('does not change the catalog record', () => {
    visibleSchema(byName('get_fee_dues'), policy.persona('student'));
    expect(byName('get_fee_dues').inputSchema.required).toEqual(['student_id']);
  });
});

describe('identityGuard', () => {
  const run = async (tool: string, args: Record<string, unknown>, session = {}) => {
    const upstream = recordingUpstream();
    const ctx = context(tool, args, session);
    ctx.tool = byName(tool);
    const result = await compose([identityGuard(policy)], upstream.forward)(ctx);
    return { ctx, result, calls: upstream.calls };
  };

  test("another student's id from the model is overwritten; the upstream gets the session's", async () => {
    const { ctx, calls } = await run('get_my_grades', { student_id: 'S0002', term: '2026-1' });
    expect(calls[0]!.args).toEqual({ student_id: 'S0001', term: '2026-1' });
    expect(ctx.notes).toEqual(['student_id "S0002" from the model replaced by the session\'s']);
  });

  test('a missing identity field is filled in without a note', async () => {
    const { ctx, calls } = await run('get_fee_dues', {});
    expect(calls[0]!.args).toEqual({ student_id: 'S0001' });
    expect(ctx.notes).toEqual([]);
  });

  test('an identity field the tool does not declare is removed, not passed on', async () => {
    const { ctx, calls } = await run('get_course_catalog', { term: '2026-1', student_id: 'S0002' });
    expect(calls[0]!.args).toEqual({ term: '2026-1' });
    expect(ctx.notes[0]).toMatch(/removed/);
  });

  test('a session without the user id the persona needs is refused, not forwarded with the model value', async () => {
    const { ctx, result, calls } = await run('get_fee_dues', { student_id: 'S0002' }, { userId: undefined });
    expect(calls).toEqual([]);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/no user_id/);
    expect(ctx.decisions).toEqual(['refused']);
  });

  test('the args object the host sent is not mutated', async () => {
    const sent = { student_id: 'S0002' };
    await run('get_fee_dues', sent);
    expect(sent).toEqual({ student_id: 'S0002' });
  });
});

describe('withheld fields (persona `withhold`)', () => {
  // A library tool shared by students and faculty: either id, not both.
  const fines: ToolRecord = {
    server: 'library', upstreamName: 'get_library_fines', name: 'get_library_fines', description: 'library fines', isAction: false,
    inputSchema: { type: 'object', properties: { student_id: { type: 'string' }, faculty_id: { type: 'string' } } },
  };
  const withheld = new Policy(personasSchema.parse({ student: { identity: { student_id: '${user_id}' }, withhold: ['faculty_id'], allow: ['*'] } }));

  test('are hidden from the schema the student host sees, with the identity field', () => {
    expect(visibleSchema(fines, withheld.persona('student'))).toEqual({ type: 'object', properties: {} });
  });

  test('are removed from the call, with a note for the audit', async () => {
    const upstream = recordingUpstream();
    const ctx = context('get_library_fines', { faculty_id: 'F001' });
    ctx.tool = fines;
    await compose([identityGuard(withheld)], upstream.forward)(ctx);
    expect(upstream.calls[0]!.args).toEqual({ student_id: 'S0001' });
    expect(ctx.notes).toEqual(['faculty_id "F001" from the model removed (withheld from persona student)']);
  });
});
