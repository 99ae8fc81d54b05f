/**
 * Live configuration through the built gateway: an edit to personas.yaml under a running
 * `serve` changes what the session may call without a restart; an edit that does not load
 * is rejected with its file and reason, and the last good personas keep running. A real
 * SDK client over stdio, two university upstreams.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT } from '../helpers/reference.js';

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe('live configuration', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tc-live-'));
  const personasPath = join(dir, 'personas.yaml');
  const student = (allow: string[]) => ({ student: { identity: { student_id: '${user_id}' }, allow } });
  let client: Client;
  let stderr = '';

  /** Waits for a log line matching `re` that appears after `from` characters of stderr. */
  async function logged(re: RegExp, from: number, ms = 60_000): Promise<string> {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      const m = re.exec(stderr.slice(from));
      if (m) return m[0];
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no log line ${re} within ${ms} ms:\n${stderr.slice(-3000)}`);
  }

  beforeAll(async () => {
    const db = join(dir, 'university.db');
    const server = (s: string) => ({ command: process.execPath, args: [join(ROOT, 'dist/mock-servers', `${s}.js`)], env: { UNIVERSITY_DB: db } });
    writeFileSync(personasPath, dump(student(['academics.get_*', 'finance.get_fee_dues'])));
    const configPath = join(dir, 'gateway.config.yaml');
    writeFileSync(configPath, dump({
      upstreams: { academics: server('academics'), finance: server('finance') },
      curator: { mode: 'bm25', embedder: 'none' },
      store: join(dir, 'store.db'),
      policy: { personas: personasPath },
      session: { persona: 'student', user_id: 'S0002' },
      timeouts: { startup_ms: 120_000, list_wait_ms: 120_000 },
    }));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--config', configPath],
      stderr: 'pipe',
      env: { ...process.env, TOOL_CURATOR_LOG: 'info' } as Record<string, string>,
    });
    transport.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    client = new Client({ name: 'live-config-test', version: '1.0.0' });
    await client.connect(transport);
    await client.listTools(undefined, { timeout: 180_000 });
  }, 200_000);

  afterAll(() => client?.close());

  it('an edit to personas.yaml applies without a restart; a broken edit is rejected and the last good one keeps running', async () => {
    const fees = { name: 'get_fee_dues', arguments: {} };
    const allowed = await client.callTool(fees, { timeout: 60_000 });
    expect(allowed.isError ?? false, text(allowed as CallToolResult)).toBe(false);

    let from = stderr.length;
    writeFileSync(personasPath, dump(student(['academics.get_*'])));
    await logged(/configuration reloaded: personas in force/, from);
    const refused = (await client.callTool(fees, { timeout: 60_000 })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe('tool get_fee_dues is not available to persona student; call find_tools to see the tools you may use');

    from = stderr.length;
    writeFileSync(personasPath, 'student: { allow: [academics.get_*\n');
    const rejected = await logged(/configuration edit rejected[^"]*/, from);
    expect(rejected).toContain('personas.yaml');
    // The last good personas still decide: fees refused, academics allowed.
    expect(((await client.callTool(fees, { timeout: 60_000 })) as CallToolResult).isError).toBe(true);
    const courses = (await client.callTool({ name: 'get_enrolled_courses', arguments: {} }, { timeout: 60_000 })) as CallToolResult;
    expect(courses.isError ?? false, text(courses)).toBe(false);
  }, 240_000);
});
