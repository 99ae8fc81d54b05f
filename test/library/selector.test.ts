/**
 * The library's converters and ToolSelector, on BM25 (no embedder) so each assertion is
 * about the library layer: names, pinned tools, catalog order, allowed subsets, errors.
 */
import { HumanMessage, AIMessage } from '@langchain/core/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromFunctionSpecs, fromMcpTools, lastUserText, toolRecord, ToolSelector } from '../../src/index.js';

const specs = [
  { type: 'function' as const, function: { name: 'get_weather', description: 'Current weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
  { name: 'send_email', description: 'Send an email to a recipient' },
  { name: 'refund_order', description: 'Refund an order to the customer' },
  { name: 'get_order_status', description: 'Shipping status of an order' },
  { name: 'reset_password', description: 'Send a password reset link' },
  { name: 'list_invoices', description: 'List invoices of a customer' },
];

describe('converters', () => {
  it('reads both OpenAI function-spec shapes', () => {
    const records = fromFunctionSpecs(specs);
    expect(records.map((r) => r.name)).toEqual(specs.map((s) => ('function' in s ? s.function.name : s.name)));
    expect(records[0]).toMatchObject({ server: 'app', upstreamName: 'get_weather', description: 'Current weather for a city', isAction: false });
    expect(records[0]!.inputSchema).toEqual({ type: 'object', properties: { city: { type: 'string' } } });
    expect(records[1]!.inputSchema).toEqual({ type: 'object' });
  });

  it('flags actions from annotations unless told otherwise', () => {
    expect(toolRecord({ name: 'a', annotations: { destructiveHint: true } }).isAction).toBe(true);
    expect(toolRecord({ name: 'b', annotations: { readOnlyHint: true } }).isAction).toBe(false);
    expect(toolRecord({ name: 'c', annotations: { readOnlyHint: true }, isAction: true }).isAction).toBe(true);
    expect(() => toolRecord({ name: '' })).toThrow(/needs a name/);
  });

  it('builds MCP tool lists exactly as the gateway does (the first holder of a shared name keeps it, a later one is prefixed)', () => {
    const tool = (name: string) => ({ name, inputSchema: { type: 'object' as const } });
    const records = fromMcpTools({ github: [tool('search'), tool('create_issue')], docs: [tool('search')] });
    expect(records.map((r) => `${r.server}:${r.name}:${r.upstreamName}`)).toEqual(['docs:docs__search:search', 'github:create_issue:create_issue', 'github:search:search']);
  });

  it('takes the last user message of AI SDK, OpenAI and LangChain conversations', () => {
    expect(lastUserText('plain')).toBe('plain');
    expect(lastUserText([{ role: 'user', content: 'first' }, { role: 'assistant', content: 'ok' }, { role: 'user', content: [{ type: 'text', text: 'pay' }, { type: 'image', image: 'x' }, { type: 'text', text: 'my bill' }] }])).toBe('pay my bill');
    expect(lastUserText([new HumanMessage('refund order 7'), new AIMessage('sure')])).toBe('refund order 7');
    expect(lastUserText([{ role: 'assistant', content: 'hi' }])).toBe('');
  });
});

describe('ToolSelector (BM25)', () => {
  let selector: ToolSelector;
  beforeAll(async () => {
    selector = await ToolSelector.create(fromFunctionSpecs(specs), { mode: 'bm25', embedder: null, topK: 2, pinned: ['reset_password'] });
  });
  afterAll(() => selector.close());

  it('puts pinned tools first and ranks the rest, at most topK', async () => {
    const s = await selector.select('refund my order');
    expect(s.names[0]).toBe('reset_password');
    expect(s.names[1]).toBe('refund_order');
    expect(s.names).toHaveLength(3);
    expect(s.mode).toBe('bm25');
  });

  it('returns the selection in catalog order on request (a stable prefix for prompt caches)', async () => {
    const ranked = await selector.select('order status refund', { topK: 2 });
    const catalog = await selector.select('order status refund', { topK: 2, order: 'catalog' });
    expect(new Set(catalog.names)).toEqual(new Set(ranked.names));
    expect(catalog.names).toEqual(['reset_password', 'refund_order', 'get_order_status']);
  });

  it('chooses only among allowed tools', async () => {
    const s = await selector.select('refund my order', { allowed: ['get_order_status', 'list_invoices'] });
    expect(s.names).not.toContain('refund_order');
    expect(s.names).not.toContain('reset_password');
    expect(s.names[0]).toBe('get_order_status');
  });

  it('refuses two tools with one name', async () => {
    await expect(ToolSelector.create([...fromFunctionSpecs(specs), toolRecord({ name: 'send_email' })], { mode: 'bm25', embedder: null })).rejects.toThrow(/two tools are named "send_email"/);
  });
});
