/** Which tools are actions (issue 18, item 5): the operator's rules, MCP's defaults, no loosening by an upstream. */
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/server';
import { describe, expect, test } from 'vitest';
import { ActionRules } from '../../src/policy/actions.js';

const tool = (name: string, annotations?: ToolAnnotations): Tool => ({ name, inputSchema: { type: 'object' }, ...(annotations && { annotations }) });
const readOnly = { readOnlyHint: true };

describe('ActionRules', () => {
  test("MCP's defaults: without annotations, or with readOnlyHint false, or destructive, a tool is an action", () => {
    const rules = new ActionRules({ actions: [], read_only: [] });
    expect(rules.isAction('s', tool('a'), 'a')).toBe(true);
    expect(rules.isAction('s', tool('b', {}), 'b')).toBe(true);
    expect(rules.isAction('s', tool('c', { readOnlyHint: false, destructiveHint: false }), 'c')).toBe(true);
    expect(rules.isAction('s', tool('d', { readOnlyHint: true, destructiveHint: true }), 'd')).toBe(true);
    expect(rules.isAction('s', tool('e', readOnly), 'e')).toBe(false);
  });

  test("the operator's patterns win over annotations, actions over read_only, by upstream or exposed name", () => {
    const rules = new ActionRules({ actions: ['bank.send_*', 'web__post'], read_only: ['bank.*', 'lookup'] });
    expect(rules.isAction('bank', tool('send_money', readOnly), 'send_money')).toBe(true);
    expect(rules.isAction('bank', tool('close_account'), 'close_account')).toBe(false);
    expect(rules.isAction('other', tool('lookup'), 'other__lookup')).toBe(false);
    expect(rules.isAction('web', tool('post', readOnly), 'web__post')).toBe(true);
    expect(rules.rule('other', 'close_account', 'close_account')).toBeUndefined();
  });

  test('an upstream turning an action read-only does not loosen it; the other way round tightens at once', () => {
    const rules = new ActionRules({ actions: [], read_only: [] });
    expect(rules.isAction('s', tool('pay'), 'pay')).toBe(true);
    expect(rules.isAction('s', tool('pay', readOnly), 'pay')).toBe(true);
    expect(rules.isAction('s', tool('view', readOnly), 'view')).toBe(false);
    expect(rules.isAction('s', tool('view', { readOnlyHint: false }), 'view')).toBe(true);
  });

  test('the definition a person accepted is the baseline (the hook for definition pinning)', () => {
    const accepted = new Map<string, ToolAnnotations>([['pay', { readOnlyHint: false }], ['view', readOnly]]);
    const rules = new ActionRules({ actions: [], read_only: [] }, (_server, name) => accepted.get(name));
    // First seen read-only, but the accepted definition was an action.
    expect(rules.isAction('s', tool('pay', readOnly), 'pay')).toBe(true);
    expect(rules.isAction('s', tool('view', readOnly), 'view')).toBe(false);
  });
});
