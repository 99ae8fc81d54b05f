import { describe, expect, test } from 'vitest';
import { CORRECTED_META, CORRECT_AT, MAX_NAME_LENGTH, SUGGEST_AT, closestTool, nameGuard, nameRatio } from '../../src/guards/nameGuard.js';
import type { ToolRecord } from '../../src/catalog/types.js';
import { Policy } from '../../src/policy/policy.js';
import { compose } from '../../src/guards/types.js';
import { catalog, policy } from './fixtures.js';
import { context, recordingUpstream, text } from './helpers.js';

// Expected ratios are Python's: difflib.SequenceMatcher(None, candidate, word).ratio().
describe('nameRatio (difflib SequenceMatcher)', () => {
  test.each([
    ['get_attendance_summary', 'get_attendence_summary', 42 / 44], // 0.9545: one letter off
    ['get_attendance_summary', 'get_attendance', 28 / 36], // 0.7778: a word missing
    ['get_fee_dues', 'get_fees', 16 / 20], // 0.8
    ['admin_override_attendance', 'admin_override_attendence', 48 / 50], // 0.96
    ['get_course_catalog', 'xqzv_blorp', 6 / 28], // 0.2143
  ])('%s vs %s = %f, as in Python', (candidate, word, expected) => {
    expect(nameRatio(candidate, word)).toBeCloseTo(expected, 12);
  });

  test('thresholds are 0.82 and 0.60', () => {
    expect([CORRECT_AT, SUGGEST_AT]).toEqual([0.82, 0.6]);
  });

  test('closestTool picks the best ratio and is undefined without candidates', () => {
    const best = closestTool('get_fees', catalog)!;
    expect(best.tool.name).toBe('get_fee_dues');
    expect(best.ratio).toBeCloseTo(0.8, 12);
    expect(closestTool('get_fees', [])).toBeUndefined();
  });
});

describe('nameGuard', () => {
  const run = async (name: string, persona = 'student', tools: ToolRecord[] = catalog, p = policy) => {
    const upstream = recordingUpstream();
    const ctx = context(name, {}, { persona });
    const result = await compose([nameGuard(() => tools, p)], upstream.forward)(ctx);
    return { ctx, result, calls: upstream.calls };
  };

  test('an exact name passes untouched, with no decision', async () => {
    const { ctx, calls } = await run('get_fee_dues');
    expect(calls.map((c) => c.tool)).toEqual(['get_fee_dues']);
    expect(ctx.decisions).toEqual([]);
  });

  test('an exact name outside the persona still resolves (the policy guard refuses it)', async () => {
    const { ctx } = await run('admin_delete_student');
    expect(ctx.tool?.name).toBe('admin_delete_student');
  });

  test('get_attendence_summary is corrected to get_attendance_summary, noted, and the result says so', async () => {
    const { ctx, calls, result } = await run('get_attendence_summary');
    expect(calls.map((c) => c.tool)).toEqual(['get_attendance_summary']);
    expect(ctx.decisions).toEqual(['corrected']);
    expect(ctx.notes).toEqual(['corrected from get_attendence_summary (ratio 0.955)']);
    expect(result.content).toEqual([
      { type: 'text', text: '[tool-curator] get_attendence_summary does not exist; resolved to get_attendance_summary' },
      { type: 'text', text: 'ran get_attendance_summary' },
    ]);
    expect(result._meta?.[CORRECTED_META]).toEqual({ requested: 'get_attendence_summary', called: 'get_attendance_summary' });
  });

  test('a name equal but for case resolves without being a correction', async () => {
    const { ctx, calls, result } = await run('Get_Fee_Dues');
    expect(calls.map((c) => c.tool)).toEqual(['get_fee_dues']);
    expect(ctx.decisions).toEqual([]);
    expect(ctx.notes).toEqual(['resolved Get_Fee_Dues to get_fee_dues (case differs)']);
    expect(text(result)).toBe('ran get_fee_dues');
  });

  test('reversing affixes, extra tokens and verb swaps over 0.82 get "did you mean" and nothing runs', async () => {
    const names = ['enroll_in_course', 'register_visitor', 'get_announcements', 'register_for_supplementary_exam', 'get_placement_registrations'];
    const tools = names.map((name): ToolRecord => ({ server: 'x', name, upstreamName: name, description: '', inputSchema: { type: 'object' }, isAction: true }));
    const open = new Policy({});
    for (const [asked, near] of [
      ['unenroll_in_course', 'enroll_in_course'],
      ['unregister_visitor', 'register_visitor'],
      ['post_announcements', 'get_announcements'],
      ['deregister_for_supplementary_exam', 'register_for_supplementary_exam'],
      ['get_event_registration', 'get_placement_registrations'],
    ] as const) {
      expect(nameRatio(near, asked), asked).toBeGreaterThanOrEqual(asked === 'get_event_registration' ? 0.8 : CORRECT_AT);
      const { ctx, result, calls } = await run(asked, undefined, tools, open);
      expect(calls, asked).toEqual([]);
      expect(ctx.decisions).toEqual(['refused']);
      expect(text(result)).toMatch(new RegExp(`^unknown tool ${asked}; did you mean ${near}(,| or |\\?)`));
      expect(text(result)).toContain('Nothing was run');
    }
  });

  test('a name over 128 characters is refused before any matching, echoed clipped', async () => {
    const long = `get_fee_dues${'x'.repeat(3_000_000)}`;
    const { ctx, result, calls } = await run(long);
    expect(calls).toEqual([]);
    expect(ctx.notes).toEqual([`name of ${long.length} characters refused`]);
    expect(text(result)).toBe(`unknown tool ${long.slice(0, 64)}…[${long.length} chars]: tool names are at most ${MAX_NAME_LENGTH} characters; call find_tools to get the right tool's name`);
    expect(text(result).length).toBeLessThan(250);
  });

  test('case and separators cost nothing: PascalCase, kebab-case and camelCase of a name are corrected to it, and told', async () => {
    for (const asked of ['GetAttendanceSummary', 'get-attendance-summary', 'getAttendanceSummary']) {
      const { ctx, calls, result } = await run(asked);
      expect(calls.map((c) => c.tool), asked).toEqual(['get_attendance_summary']);
      expect(ctx.decisions).toEqual(['corrected']);
      expect(ctx.notes).toEqual([`corrected from ${asked} (ratio 1.000)`]);
      expect(result._meta?.[CORRECTED_META]).toEqual({ requested: asked, called: 'get_attendance_summary' });
    }
  });

  describe('issue 29: a correction never changes what a call does', () => {
    const names = ['get_attendance_policy', 'get_attendance_summary', 'get_student_profile', 'get_grades', 'search_notes', 'get_course_attendance'];
    const tools = names.map((name): ToolRecord => ({ server: 'x', name, upstreamName: name, description: '', inputSchema: { type: 'object' }, isAction: false }));
    const open = new Policy({});

    test.each([
      // A name that is the prefix of a longer one with another object noun.
      ['get_attendance', 'get_attendance_policy'],
      // An object noun replaced by another word.
      ['get_student_grades', 'get_student_profile'],
      // Another real word one letter away (0.917).
      ['search_nodes', 'search_notes'],
    ])('%s is refused with candidates, %s among them, and nothing runs', async (asked, near) => {
      const { ctx, result, calls } = await run(asked, undefined, tools, open);
      expect(calls).toEqual([]);
      expect(ctx.tool).toBeUndefined();
      expect(ctx.decisions).toEqual(['refused']);
      expect(text(result)).toMatch(new RegExp(`^unknown tool ${asked}; did you mean [a-z_, ]*\\b${near}\\b[a-z_, ]*\\? Nothing was run`));
    });

    test('a real typo of the same names is still corrected', async () => {
      for (const [asked, meant] of [['get_studnet_profile', 'get_student_profile'], ['get_atendance_summary', 'get_attendance_summary'], ['search_ntoes', 'search_notes']] as const) {
        const { calls, ctx } = await run(asked, undefined, tools, open);
        expect(calls.map((c) => c.tool), asked).toEqual([meant]);
        expect(ctx.decisions).toEqual(['corrected']);
      }
    });
  });

  test('a 0.78 name gets "did you mean" and does not run', async () => {
    const { ctx, result, calls } = await run('get_attendance');
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('unknown tool get_attendance; did you mean get_attendance_summary? Nothing was run: call the tool you mean by its exact name.');
    expect(ctx.decisions).toEqual(['refused']);
    expect(calls).toEqual([]);
  });

  test('a 0.80 name (just under 0.82) is suggested, not corrected', async () => {
    const { result, calls } = await run('get_fees');
    expect(text(result)).toMatch(/^unknown tool get_fees; did you mean get_fee_dues[?,]/);
    expect(calls).toEqual([]);
  });

  test('gibberish points to find_tools', async () => {
    const { result, ctx } = await run('xqzv_blorp');
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^unknown tool xqzv_blorp; call find_tools with/);
    expect(ctx.notes).toEqual(['unknown tool (no name near it)']);
  });

  test('a near miss of a forbidden tool (0.96 to admin_override_attendance) is never corrected to it', async () => {
    const { ctx, result, calls } = await run('admin_override_attendence');
    expect(calls).toEqual([]);
    expect(ctx.tool).toBeUndefined();
    expect(text(result)).toMatch(/call find_tools/);
  });

  test('the same near miss is corrected for a persona that may use the tool', async () => {
    const { calls } = await run('admin_override_attendence', 'auditor');
    expect(calls.map((c) => c.tool)).toEqual(['admin_override_attendance']);
  });
});

describe('a slip on the name of a tool whose upstream is down (attack8)', () => {
  // gh (down) had search_repo; bb (ready) has search_repos. With gh up, serch_repo is corrected to gh's search_repo.
  const bb: ToolRecord = { server: 'bb', upstreamName: 'search_repos', name: 'search_repos', description: 'Search repositories on Bitbucket', inputSchema: { type: 'object' }, isAction: false };
  const open = new Policy({ anyone: { allow: ['*'], deny: [], confirm: 'none', withhold: [] } } as never);
  const view = (ghDown: boolean) => ({
    names: () => ['gh', 'bb'],
    unavailable: (server: string) => (server === 'gh' && ghDown ? 'not connected' : undefined),
    starting: () => [],
    formerOwner: (name: string) => (name === 'search_repo' ? 'gh' : name === 'search_repos' ? 'bb' : undefined),
    remembered: () => new Map([['search_repo', 'gh'], ['search_repos', 'bb']]),
  });
  const run = async (name: string, ghDown: boolean) => {
    const upstream = recordingUpstream();
    const ctx = context(name, {}, { persona: 'anyone' });
    const result = await compose([nameGuard(() => [bb], open, view(ghDown))], upstream.forward)(ctx);
    return { ctx, result, calls: upstream.calls };
  };

  test.each(['serch_repo', 'search_repoo', 'searchrepo'])('%s is answered with gh\'s state, never resolved to bb\'s search_repos', async (name) => {
    const { ctx, result, calls } = await run(name, true);
    expect(calls).toEqual([]);
    expect(ctx.decisions).toEqual(['refused']);
    expect(text(result)).toBe(
      `unknown tool ${name}; it looks like search_repo of upstream "gh", which is unavailable (not connected); nothing was run, and it was not resolved to another upstream's tool. Try again later, or call find_tools for the tools available now.`,
    );
  });

  test("a slip on bb's own name is still corrected while gh is down; with every upstream up nothing changes", async () => {
    expect((await run('search_reposs', true)).calls.map((c) => c.tool)).toEqual(['search_repos']);
    // Nearer bb's search_repos than gh's search_repo: bb's.
    expect((await run('serch_repos', true)).calls.map((c) => c.tool)).toEqual(['search_repos']);
    expect((await run('serch_repos', false)).calls.map((c) => c.tool)).toEqual(['search_repos']);
  });
});
