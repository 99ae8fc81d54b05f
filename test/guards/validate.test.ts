/**
 * The validate guard's reading of null: an optional top-level argument that is null where
 * its schema refuses null is read as not given (dropped, noted); a required one, a nested
 * one, and one whose schema accepts null are checked as sent.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { describe, expect, test } from 'vitest';
import type { ToolRecord } from '../../src/catalog/types.js';
import { validateGuard } from '../../src/guards/validate.js';
import { context, text } from './helpers.js';

function tool(properties: Record<string, object>, required: string[] = [], extra: Record<string, unknown> = {}): ToolRecord {
  return { server: 'up', upstreamName: 'report', name: 'report', description: '', inputSchema: { type: 'object', properties, required, ...extra }, isAction: false };
}

/** Runs the guard on `args` for `t`: what reached next (undefined when refused), the result and the notes. */
async function run(t: ToolRecord, args: Record<string, unknown>) {
  const ctx = { ...context('report', args), tool: t };
  let forwarded: Record<string, unknown> | undefined;
  const result = await validateGuard(ctx, async (c): Promise<CallToolResult> => {
    forwarded = c.args;
    return { content: [{ type: 'text', text: 'ran' }] };
  });
  return { forwarded, result, notes: ctx.notes, decisions: ctx.decisions };
}

const region = { type: 'string' };
const verbose = { type: 'boolean' };

describe('null for an optional argument', () => {
  test('an optional boolean sent as null is dropped, and the call says so', async () => {
    const { forwarded, notes, decisions } = await run(tool({ region, verbose }, ['region']), { region: 'eu', verbose: null });
    expect(forwarded).toEqual({ region: 'eu' });
    expect(notes).toEqual(['null read as not given for optional verbose']);
    expect(decisions).toEqual([]);
  });

  test('two optional nulls are both dropped, named in one note', async () => {
    const { forwarded, notes } = await run(tool({ region, verbose, limit: { type: 'integer', minimum: 1 } }), { region: 'eu', verbose: null, limit: null });
    expect(forwarded).toEqual({ region: 'eu' });
    expect(notes).toEqual(['null read as not given for optional verbose, limit']);
  });

  test('a required property sent as null is refused as before', async () => {
    const { forwarded, result, notes } = await run(tool({ region, verbose }, ['verbose']), { verbose: null });
    expect(forwarded).toBeUndefined();
    expect(text(result as CallToolResult)).toBe('invalid arguments for report: data/verbose must be boolean');
    expect(notes).toEqual(['invalid arguments']);
  });

  test.each([
    ['type: [boolean, null]', { type: ['boolean', 'null'] }],
    ['nullable: true', { type: 'boolean', nullable: true }],
    ['anyOf with null', { anyOf: [{ type: 'boolean' }, { type: 'null' }] }],
    ['a $ref to a definition that accepts null', { $ref: '#/$defs/flag' }],
  ])('a schema that accepts null (%s) keeps the null', async (_, schema) => {
    const { forwarded, notes } = await run(tool({ verbose: schema }, [], { $defs: { flag: { type: ['boolean', 'null'] } } }), { verbose: null });
    expect(forwarded).toEqual({ verbose: null });
    expect(notes).toEqual([]);
  });

  test('a $ref to a definition that refuses null is read through the definition: dropped', async () => {
    const { forwarded, notes } = await run(tool({ verbose: { $ref: '#/$defs/flag' } }, [], { $defs: { flag: { type: 'boolean' } } }), { verbose: null });
    expect(forwarded).toEqual({});
    expect(notes).toEqual(['null read as not given for optional verbose']);
  });

  test('a null nested inside an optional object is refused as before', async () => {
    const options = { type: 'object', properties: { verbose } };
    const { forwarded, result } = await run(tool({ options }), { options: { verbose: null } });
    expect(forwarded).toBeUndefined();
    expect(text(result as CallToolResult)).toBe('invalid arguments for report: data/options/verbose must be boolean');
  });

  test('a null for a property the schema does not declare is judged by the schema as sent', async () => {
    const { forwarded, result } = await run(tool({ region }, [], { additionalProperties: false }), { colour: null });
    expect(forwarded).toBeUndefined();
    expect(text(result as CallToolResult)).toBe('invalid arguments for report: data must NOT have additional properties');
  });
});
