/**
 * Issue 18, item 4: on a fresh install with no approver key and a host without
 * elicitation, an agent with a shell that does what the gateway's messages and the CLI's
 * errors say must not get its parked call approved. The built gateway over the `bank`
 * fixture (an SDK McpServer over stdio), the SDK's Client as host; the agent's shell is
 * the CLI run with stdin and stdout on pipes, as an agent's tool runs it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, connectGateway } from '../helpers/reference.js';
import { fixtureGateway } from './fixtureGateway.js';
import { approvalId, text } from './university.js';

let client: Client;
let dir: string;
let configPath: string;

/** The agent's shell: the CLI with piped stdin/stdout, answering any question with a line of input. */
const shell = (args: string[]) => {
  const r = spawnSync(process.execPath, [CLI, ...args, '--config', configPath], { input: '123456\n', encoding: 'utf8', env: { ...process.env, TOOL_CURATOR_LOG: 'warn' }, timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};
const transfer = async () => (await client.callTool({ name: 'transfer', arguments: {} }, { timeout: 60_000 })) as CallToolResult;
const ran = async () => JSON.parse(text(await client.callTool({ name: 'ran', arguments: {} }))) as string[];

beforeAll(async () => {
  ({ dir, configPath } = fixtureGateway('bank', { name: 'payer', rules: { allow: ['bank.*'], confirm: 'actions' } }, { confirmation: { read_only: ['ran', 'flip'] } }));
  ({ client } = await connectGateway(configPath, [], {}, 120_000));
});
afterAll(() => client?.close());

describe('an agent following the messages on a fresh install', () => {
  it('the parked call says to ask the user and quotes no command', async () => {
    const parked = await transfer();
    const said = text(parked);
    expect(said).toMatch(/^transfer awaits a person's approval \(approval id [a-z0-9]+\); it has not run\. Ask the user to review and approve this call in their approvals list; only they can\./);
    expect(said).not.toMatch(/tool-curator|init-key|approvals approve|`/);
  });

  it('init-key from the agent\'s shell (no terminal) is refused and creates no key; approving then fails without naming a command', async () => {
    const id = approvalId(await transfer());
    const init = shell(['approvals', 'init-key']);
    expect(init.code).toBe(1);
    expect(init.stderr).toContain('runs only in an interactive terminal, for the person who approves. Nothing was created.');
    expect(existsSync(join(dir, 'approver.key'))).toBe(false);
    expect(existsSync(join(dir, 'approver.key.pub'))).toBe(false);

    const approve = shell(['approvals', 'approve', id]);
    expect(approve.code).toBe(1);
    expect(approve.stderr).toContain(`approving needs the approver key, and there is none at ${join(dir, 'approver.key')}`);
    expect(approve.stderr).not.toMatch(/init-key/);

    const retry = await transfer();
    expect(text(retry)).toContain("awaits a person's approval");
    expect(await ran()).toEqual([]);
  });
});
