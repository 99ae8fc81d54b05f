/** The held-back tool's refusal: named, no command, and only for a persona that may use the tool. */
import { describe, expect, test } from 'vitest';
import { heldGuard } from '../../src/guards/heldGuard.js';
import type { ChangedDefinition } from '../../src/guards/pins.js';
import { compose, errorResult } from '../../src/guards/types.js';
import { policy } from './fixtures.js';
import { context, text } from './helpers.js';

const held = new Map<string, ChangedDefinition>([
  ['make_payment', { server: 'finance', upstreamName: 'make_payment', pinnedDigest: 'sha256:a', pendingDigest: 'sha256:b' }],
  ['admin_delete_student', { server: 'administration', upstreamName: 'admin_delete_student', pinnedDigest: 'sha256:c', pendingDigest: 'sha256:d' }],
]);
const call = compose([heldGuard((name) => held.get(name), policy)], async (ctx) => errorResult(`unknown tool ${ctx.requestedName}`));

describe('heldGuard', () => {
  test('a held tool the persona may use is refused, named with its upstream, with no command', async () => {
    const ctx = context('make_payment', { amount: 1 });
    const result = await call(ctx);
    expect(text(result)).toMatch(/^make_payment \(upstream finance\) is held back and has not run: its upstream changed the tool's definition since a person accepted it/);
    expect(text(result)).not.toMatch(/tool-curator|definitions accept|`/);
    expect(ctx.decisions).toEqual(['refused']);
    expect(ctx.notes).toEqual(['definition changed by upstream finance, held back: sha256:b']);
  });

  test('a held tool outside the persona, and any other name, go on as unknown', async () => {
    expect(text(await call(context('admin_delete_student')))).toBe('unknown tool admin_delete_student');
    expect(text(await call(context('get_fee_dues')))).toBe('unknown tool get_fee_dues');
  });
});
