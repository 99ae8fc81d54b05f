import { describe, expect, test } from 'vitest';
import { boundValue, clipName } from '../../src/guards/bound.js';

describe('bounds on stored and echoed values', () => {
  test('clipName keeps short names and marks long ones with their length', () => {
    expect(clipName('get_fee_dues')).toBe('get_fee_dues');
    expect(clipName('a'.repeat(200), 10)).toBe('aaaaaaaaaa…[200 chars]');
  });

  test('strings are cut on a character boundary, with the bytes left out', () => {
    const euro = '€'.repeat(100); // 3 bytes each
    const cut = boundValue({ s: euro }, 64).s;
    expect(cut).toBe(`${'€'.repeat(21)}…[truncated 237 bytes]`);
    expect(boundValue({ s: 'short', n: 5, ok: true, nil: null }, 64)).toEqual({ s: 'short', n: 5, ok: true, nil: null });
  });

  test('arrays and objects keep their first entries and say how many were left out', () => {
    const big = { list: Array.from({ length: 100 }, (_, i) => i), obj: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i])) };
    const out = boundValue(big, 64) as { list: unknown[]; obj: Record<string, unknown> };
    expect(out.list).toHaveLength(17);
    expect(out.list.at(-1)).toBe('…[84 more items]');
    expect(Object.keys(out.obj)).toHaveLength(17);
    expect(out.obj['…']).toBe('[24 more keys]');
  });

  test('the whole stays bounded however wide or deep the input', () => {
    const wide = Array.from({ length: 1000 }, () => 'x'.repeat(5000));
    expect(JSON.stringify(boundValue(wide, 256)).length).toBeLessThan(64 * 256 + 2_000);
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(JSON.stringify(boundValue(deep, 256))).toContain('…[truncated: nested too deep]');
  });
});
