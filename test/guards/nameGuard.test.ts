import { describe, expect, test } from 'vitest';
import { CORRECT_AT, SUGGEST_AT, closestTool, nameGuard, nameRatio } from '../../src/guards/nameGuard.js';
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
  const run = async (name: string, persona = 'student') => {
    const upstream = recordingUpstream();
    const ctx = context(name, {}, { persona });
    const result = await compose([nameGuard(() => catalog, policy)], upstream.forward)(ctx);
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

  test('get_attendence_summary is corrected to get_attendance_summary and noted', async () => {
    const { ctx, calls } = await run('get_attendence_summary');
    expect(calls.map((c) => c.tool)).toEqual(['get_attendance_summary']);
    expect(ctx.decisions).toEqual(['corrected']);
    expect(ctx.notes).toEqual(['corrected from get_attendence_summary (ratio 0.955)']);
  });

  test('a 0.78 name gets "did you mean" and does not run', async () => {
    const { ctx, result, calls } = await run('get_attendance');
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('unknown tool get_attendance; did you mean get_attendance_summary?');
    expect(ctx.decisions).toEqual(['refused']);
    expect(calls).toEqual([]);
  });

  test('a 0.80 name (just under 0.82) is suggested, not corrected', async () => {
    const { result, calls } = await run('get_fees');
    expect(text(result)).toBe('unknown tool get_fees; did you mean get_fee_dues?');
    expect(calls).toEqual([]);
  });

  test('gibberish points to find_tools', async () => {
    const { result, ctx } = await run('xqzv_blorp');
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^unknown tool xqzv_blorp; call find_tools with/);
    expect(ctx.notes).toEqual(['unknown tool (best ratio 0.214)']);
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
