/**
 * A null for an optional argument through the built gateway: the SDK's Client as host over
 * stdio, the gateway, and the `args` fixture upstream (an SDK Server over stdio that
 * reports the arguments it received). The null optional reaches the upstream as absent and
 * the audit row says why; a null for a required argument is refused before the upstream.
 */
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/store/audit.js';
import { connectGateway } from '../helpers/reference.js';
import { fixtureGateway } from './fixtureGateway.js';
import { cli, text } from './university.js';

let client: Client;
let configPath: string;

beforeAll(async () => {
  ({ configPath } = fixtureGateway('args', { name: 'analyst', rules: { allow: ['args.*'] } }));
  ({ client } = await connectGateway(configPath, [], {}, 120_000));
});
afterAll(() => client?.close());

const report = async (args: Record<string, unknown>) => (await client.callTool({ name: 'report', arguments: args }, { timeout: 60_000 })) as CallToolResult;
const lastAudit = () => {
  const r = cli(configPath, ['audit', '--tail', '1', '--json']);
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as AuditRecord[])[0]!;
};

it('an optional boolean sent as null reaches the upstream as absent, and the audit row says so', async () => {
  const result = await report({ region: 'eu-west', verbose: null });
  expect(result.isError).toBeFalsy();
  expect(JSON.parse(text(result))).toEqual({ region: 'eu-west' });
  // Written before the upstream ran (its outcome is completed behind the answer).
  expect(lastAudit()).toMatchObject({ tool: 'report', args: { region: 'eu-west' }, notes: ['null read as not given for optional verbose'] });
});

it('an optional boolean sent as a boolean reaches the upstream unchanged', async () => {
  expect(JSON.parse(text(await report({ region: 'eu-west', verbose: false })))).toEqual({ region: 'eu-west', verbose: false });
});

it('a required argument sent as null is refused before the upstream', async () => {
  const result = await report({ region: null });
  expect(result.isError).toBe(true);
  expect(text(result)).toBe('invalid arguments for report: data/region must be string');
  expect(lastAudit()).toMatchObject({ tool: 'report', decision: 'refused', outcome: 'not_run', notes: ['invalid arguments'] });
});
