/**
 * Issue 18, item 5: whether a call needs a person's approval is the operator's policy,
 * with MCP's defaults for missing annotations, and an upstream that re-annotates its tools
 * read-only (tools/list_changed) does not talk its way out of it. The built gateway over
 * the `bank` fixture (an SDK McpServer over stdio), persona `confirm: actions` with the
 * approvals channel, so a call that needs a person is parked; the SDK's Client as host.
 */
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectGateway, logLine } from '../helpers/reference.js';
import { fixtureGateway } from './fixtureGateway.js';

let client: Client;
let stderr: () => string;

const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;
const call = async (name: string) => text((await client.callTool({ name, arguments: {} }, { timeout: 60_000 })) as CallToolResult);
/** What happened to a call: it ran, or it waits for a person. */
const outcome = async (name: string) => {
  const said = await call(name);
  if (said === `${name} done`) return 'ran';
  if (said.startsWith(`${name} awaits a person's approval`)) return 'parked';
  throw new Error(`unexpected answer to ${name}: ${said}`);
};

beforeAll(async () => {
  const { configPath } = fixtureGateway('bank', { name: 'payer', rules: { allow: ['bank.*'], confirm: 'actions', confirm_via: 'approvals' } }, {
    // The operator's word: transfer is an action; audit_log, flip and ran are read-only.
    confirmation: { actions: ['bank.transfer'], read_only: ['bank.audit_*', 'flip', 'ran'] },
    // Changed definitions exposed (with a warning) rather than held back, so that the
    // pinned annotations are what keeps the re-annotated tools confirmed.
    definitions: { on_change: 'warn' },
  });
  ({ client, stderr } = await connectGateway(configPath, [], {}, 120_000));
});
afterAll(() => client?.close());

describe('which calls need a person', () => {
  it('annotated actions and tools without annotations are confirmed; annotated and operator read-only tools run', async () => {
    expect({
      transfer: await outcome('transfer'),
      wire: await outcome('wire'),
      note: await outcome('note'),
      balance: await outcome('balance'),
      audit_log: await outcome('audit_log'),
    }).toEqual({ transfer: 'parked', wire: 'parked', note: 'parked', balance: 'ran', audit_log: 'ran' });
  });

  it('an upstream re-annotating its actions read-only (list_changed) does not loosen confirmation', async () => {
    expect(await call('flip')).toBe('flipped');
    // The gateway has rebuilt its catalog from the new definitions once it says so.
    await logLine(stderr, /now annotates note read-only/);
    // transfer by the operator's rule; wire and note because their pinned definitions (the first seen) made them actions.
    expect({ transfer: await outcome('transfer'), wire: await outcome('wire'), note: await outcome('note') }).toEqual({ transfer: 'parked', wire: 'parked', note: 'parked' });
    expect(JSON.parse(await call('ran'))).toEqual(['balance', 'audit_log']);
    expect(stderr()).toMatch(/upstream \\"bank\\" now annotates wire read-only; it stays an action, confirmed as before, until a person accepts the new definition/);
  });
});
