/**
 * Operator overrides applied by the catalog (catalog/overrides.ts, buildCatalogWith): the
 * exposed record carries the override, `upstreamDefinition` the upstream's own definition.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/server';
import { describe, expect, test } from 'vitest';
import { buildCatalogWith } from '../../src/catalog/catalog.js';
import { overriddenTool, overrideIssues } from '../../src/catalog/overrides.js';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { toolOverrideSchema } from '../../src/config/schema.js';

const tool = (name: string, description: string, annotations?: Tool['annotations']): Tool => ({
  name, description, inputSchema: { type: 'object', properties: { student_id: { type: 'string' } } }, ...(annotations && { annotations }),
});
const override = (o: Record<string, unknown>) => toolOverrideSchema.parse(o);

const byServer = new Map([
  ['finance', [tool('get_fee_dues', 'Dues.'), tool('make_payment', 'Pay.', { readOnlyHint: false }), tool('get_receipt', 'Receipt.')]],
  ['library', [tool('search', 'Search.'), tool('renew', 'Renew a loan.')]],
]);

describe('buildCatalogWith', () => {
  const { catalog, refused } = buildCatalogWith(byServer, {
    overrides: {
      'finance.get_fee_dues': override({ description: 'Fees the student still owes, with due dates.', append_description: 'Amounts in INR.', examples: ['how much do I owe'], name: 'fees_owed', title: 'Fee dues' }),
      'finance.make_payment': override({ kind: 'read-only', annotations: { idempotentHint: true } }),
      'finance.get_receipt': override({ hidden: true }),
      'library.search': override({ name: 'make_payment' }),
      'library.renew': override({ kind: 'action', annotations: { destructiveHint: false } }),
    },
    servers: new Map([['library', { title: 'Campus Library', instructions: 'Books, loans and fines.' }], ['finance', { title: 'finance' }]]),
  });
  const byName = new Map(catalog.map((t) => [t.name, t]));

  test('description replaced then extended, title, examples and a new exposed name; the upstream definition kept as listed', () => {
    const fees = byName.get('fees_owed')!;
    expect([fees.upstreamName, fees.description, fees.title, fees.examples]).toEqual(['get_fee_dues', 'Fees the student still owes, with due dates.\n\nAmounts in INR.', 'Fee dues', ['how much do I owe']]);
    expect(fees.upstreamDefinition).toEqual(tool('get_fee_dues', 'Dues.'));
  });
  test('kind decides whether a tool is an action, over its annotations; annotation hints merge over the upstream\'s', () => {
    expect(byName.get('make_payment')).toMatchObject({ server: 'finance', isAction: false, annotations: { readOnlyHint: false, idempotentHint: true } });
    expect(byName.get('renew')).toMatchObject({ isAction: true, annotations: { destructiveHint: false } });
  });
  test('a hidden tool leaves the catalog; a rename onto a name another tool holds is refused and reported', () => {
    expect(catalog.map((t) => t.name)).toEqual(['fees_owed', 'make_payment', 'renew', 'search']);
    expect([...refused]).toEqual([['library.search', 'search']]);
  });
  test('the server\'s title (when it is not its config name) and instructions are kept on its tools', () => {
    expect(byName.get('renew')).toMatchObject({ serverTitle: 'Campus Library', serverInstructions: 'Books, loans and fines.' });
    expect(byName.get('fees_owed')!.serverTitle).toBeUndefined();
  });
  test('issues name the override key: unknown tools of connected upstreams, refused renames', () => {
    const issues = overrideIssues({ 'finance.get_fees': override({}), 'other.x': override({}), 'library.search': override({ name: 'make_payment' }) }, byServer, new Set(['finance', 'library']), refused);
    expect(issues).toEqual([
      'overrides.finance.get_fees: upstream "finance" lists no tool "get_fees"; the override does nothing',
      'overrides.library.search.name: "make_payment" is another tool\'s name (or an upstream\'s literal name); the tool keeps "search"',
    ]);
  });
  test('an override that only appends keeps the upstream text first; none at all leaves the definition as it was', () => {
    expect(overriddenTool(tool('a', 'Upstream.'), override({ append_description: 'More.' })).description).toBe('Upstream.\n\nMore.');
    expect(overriddenTool(tool('a', 'Upstream.'), override({}))).toEqual(tool('a', 'Upstream.'));
  });
});

describe('overrides in gateway.config.yaml', () => {
  const write = (overrides: unknown) => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-ovr-'));
    const file = join(dir, 'gateway.config.yaml');
    writeFileSync(file, JSON.stringify({ upstreams: { finance: { command: 'node' } }, overrides }));
    return file;
  };
  test('a key that is not <server>.<tool>, or an invalid exposed name, is an error naming the key', () => {
    expect(() => loadConfig(write({ get_fee_dues: { hidden: true } }))).toThrow(ConfigError);
    expect(() => loadConfig(write({ get_fee_dues: { hidden: true } }))).toThrow(/overrides\.get_fee_dues: override keys are <server>\.<tool>/);
    expect(() => loadConfig(write({ 'finance.get_fee_dues': { name: 'fees owed' } }))).toThrow(/overrides\.finance\.get_fee_dues\.name: exposed names are 1 to 64/);
    expect(() => loadConfig(write({ 'finance.get_fee_dues': { descripton: 'x' } }))).toThrow(/overrides\.finance\.get_fee_dues/);
  });
  test('a valid block loads with its defaults', () => {
    expect(loadConfig(write({ 'finance.get_fee_dues': { examples: ['what do I owe'] } })).config.overrides).toEqual({ 'finance.get_fee_dues': { examples: ['what do I owe'], hidden: false } });
  });
});
