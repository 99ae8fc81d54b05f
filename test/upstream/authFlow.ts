/**
 * Driving the gateway as an OAuth client, for the upstream/auth tests: the built CLI
 * (`auth` with the test as the user's browser, `serve` with the SDK's Client as the host)
 * against the local authorization server of authServer.ts. Everything the processes
 * write is kept in `outputs`, for the no-secrets checks.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Client, type CallToolResult } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { expect } from 'vitest';

const ROOT = resolve(__dirname, '../..');
const CLI = join(ROOT, 'dist/src/cli.js');
export const LIBRARY = join(ROOT, 'dist/mock-servers/library.js');

/** Everything the gateway processes wrote, for the no-secrets check at the end. */
export const outputs: string[] = [];

/** Runs the CLI without blocking: the servers under test live in this process. */
export function run(config: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, ...args, '--config', config], { env: { ...process.env, TOOL_CURATOR_NO_BROWSER: '1', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => {
      outputs.push(stdout, stderr);
      done({ code: code ?? -1, stdout, stderr });
    });
  });
}

export interface Status {
  name: string;
  state: string;
  tools: number;
  error?: string;
  auth?: { method: string; state: string; moreScope?: string };
}

/** The upstreams' status as `tool-curator tools --json` reports it. */
export async function status(config: string): Promise<Status[]> {
  const r = await run(config, ['tools', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { upstreams: Status[] }).upstreams;
}

/**
 * `tool-curator auth <name>` with the test as the user's browser: requests the printed
 * authorization URL and follows the authorization server's redirect to the loopback port.
 * With `abandon`, the user never opens the URL: the command is interrupted (SIGINT) once it is shown.
 */
export function authorize(config: string, name: string, env: Record<string, string> = {}, abandon = false): Promise<{ code: number; stdout: string; stderr: string; visited: string[] }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, 'auth', name, '--config', config], { env: { ...process.env, TOOL_CURATOR_NO_BROWSER: '1', ...env } });
    let stdout = '';
    let stderr = '';
    const visited: string[] = [];
    child.stdout.on('data', async (d: Buffer) => {
      stdout += d.toString();
      for (const line of d.toString().split('\n')) {
        if (!line.startsWith('http')) continue;
        visited.push(line);
        if (abandon) {
          child.kill('SIGINT');
          return;
        }
        const res = await fetch(line, { redirect: 'manual' });
        await fetch(res.headers.get('location')!);
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => {
      outputs.push(stdout, stderr);
      done({ code: code ?? -1, stdout, stderr, visited });
    });
  });
}

/** `serve` over stdio with the SDK's Client as the host; the caller closes it. */
export async function serve(config: string, env: Record<string, string> = {}): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--config', config], stderr: 'pipe', env: { ...getDefaultEnvironment(), ...env } });
  let err = '';
  transport.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: 'test-host', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    stderr: () => {
      outputs.push(err);
      return err;
    },
  };
}

export const callTool = async (client: Client, name: string) =>
  (await client.callTool({ name: 'call_tool', arguments: { name, arguments: {} } }, { timeout: 120_000 })) as CallToolResult;
export const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
