/**
 * End to end over real upstreams: the MCP reference servers from npm (filesystem,
 * memory, everything), spawned over stdio by the built gateway, and a real MCP client
 * talking to the gateway over stdio as a host would.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CallToolResultSchema } from '@modelcontextprotocol/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectGateway, INDEX_READY_MS, referenceConfig, ROOT, type ReferenceSetup } from '../helpers/reference.js';

const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

/** Child processes of `pid` with their command lines. */
function children(pid: number): { pid: number; cmd: string }[] {
  let out: string;
  try {
    out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when the process has no children
  }
  return out.trim().split('\n').filter(Boolean).map((l) => {
    const m = /^\s*(\d+)\s+(.*)$/.exec(l)!;
    return { pid: Number(m[1]), cmd: m[2]! };
  });
}

/** The processes under `pid`, each before its own children. */
function descendants(pid: number): { pid: number; cmd: string }[] {
  return children(pid).flatMap((c) => [c, ...descendants(c.pid)]);
}

describe('gateway over the reference servers, stdio host', () => {
  let setup: ReferenceSetup;
  let client: Client;
  let transport: StdioClientTransport;
  let listChanged = 0;

  beforeAll(async () => {
    setup = referenceConfig();
    writeFileSync(join(setup.filesDir, 'notes.txt'), 'the quick brown fox\nline two\n');
    ({ client, transport } = await connectGateway(setup.configPath));
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      listChanged++;
    });
  }, INDEX_READY_MS + 30_000);
  afterAll(async () => {
    await client?.close();
  });

  it('starts with only the meta tools listed', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['find_tools', 'call_tool']);
  });

  it('find_tools puts the file-reading tool in the top 3, reveals it and sends list_changed', async () => {
    const r = await client.callTool({ name: 'find_tools', arguments: { query: 'read the contents of a file' } });
    expect(r.isError).toBeFalsy();
    const found = JSON.parse(text(r)) as { tools: { name: string; inputSchema: { type: string } }[]; confidence: number; retrievers: string[] };
    // connectGateway waited for the whole index: both retrievers answered.
    expect(found.retrievers).toEqual(['bm25', 'dense']);
    const top3 = found.tools.slice(0, 3).map((t) => t.name);
    expect(top3.some((n) => n === 'read_text_file' || n === 'read_file')).toBe(true);
    // top_k 8 is a maximum: a confident ranking keeps back min(5, ⌊8 / 3⌋) = 2 slots.
    expect(found.tools.length).toBe(found.confidence >= 0.3 ? 6 : 8);
    expect(found.tools[0]!.inputSchema.type).toBe('object');
    await expect.poll(() => listChanged, { timeout: 5000 }).toBeGreaterThan(0);
    const listed = (await client.listTools()).tools.map((t) => t.name);
    expect(listed).toContain('read_text_file');
    expect(listed.slice(0, 2)).toEqual(['find_tools', 'call_tool']);
  });

  it('forwards tools/call to the upstream and returns the real file content', async () => {
    const r = await client.callTool({ name: 'read_text_file', arguments: { path: join(setup.filesDir, 'notes.txt') } });
    expect(r.isError).toBeFalsy();
    expect(text(r)).toBe('the quick brown fox\nline two\n');
  });

  it('call_tool reaches tools that were never listed', async () => {
    const r = await client.callTool({ name: 'call_tool', arguments: { name: 'get-sum', arguments: { a: 2, b: 40 } } });
    expect(r.isError).toBeFalsy();
    expect(text(r)).toContain('42');
    const viaMeta = await client.callTool({ name: 'call_tool', arguments: { name: 'find_tools', arguments: { query: 'add two numbers', limit: 3 } } });
    expect(viaMeta.isError).toBeFalsy();
    expect((JSON.parse(text(viaMeta)) as { tools: { name: string }[] }).tools[0]!.name).toBe('get-sum');
    const itself = await client.callTool({ name: 'call_tool', arguments: { name: 'call_tool', arguments: {} } });
    expect(itself.isError).toBe(true);
    expect(text(itself)).toBe('call_tool takes the name of the tool to run, not its own name');
  });

  it('answers bad calls with MCP error results and keeps serving', async () => {
    const unknown = await client.callTool({ name: 'no_such_tool_xyz', arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toMatch(/find_tools/);
    const empty = await client.callTool({ name: 'find_tools', arguments: { query: '   ' } });
    expect(empty.isError).toBe(true);
    expect(text(empty)).toMatch(/non-empty "query"/);
    const notString = await client.callTool({ name: 'find_tools', arguments: { query: 42 } });
    expect(notString.isError).toBe(true);
    expect(text(notString)).toMatch(/"query" as a string, got number/);
    const anArray = await client.callTool({ name: 'find_tools', arguments: { query: ['pay', 'fees'] } });
    expect(text(anArray)).toMatch(/"query" as a string, got an array/);
    const huge = await client.callTool({ name: 'find_tools', arguments: { query: 'pay fees '.repeat(30_000) } });
    expect(huge.isError).toBe(true);
    expect(text(huge)).toMatch(/"query" is 270000 characters; at most 2000/);
    const extra = await client.callTool({ name: 'find_tools', arguments: { query: 'read a file', top: 3 } });
    expect(text(extra)).toMatch(/unknown: "top"/);
    const wrongType = await client.callTool({ name: 'read_text_file', arguments: { path: 123 } });
    expect(wrongType.isError).toBe(true);
    expect(text(wrongType)).toMatch(/invalid arguments for read_text_file: .*path.*string/);
    // Malformed tools/call params are a protocol error, -32602 invalid params, not -32603.
    const malformed = client.request({ method: 'tools/call', params: { name: 42, arguments: 'x' } } as never, CallToolResultSchema);
    await expect(malformed).rejects.toMatchObject({
      code: -32602,
      message: 'Invalid params for tools/call: params.name: expected string, received number; params.arguments: expected record, received string',
    });
    const noParams = client.request({ method: 'tools/call' } as never, CallToolResultSchema);
    await expect(noParams).rejects.toMatchObject({ code: -32602, message: 'Invalid params for tools/call: params is required' });
    const ok = await client.callTool({ name: 'get-sum', arguments: { a: 1, b: 1 } });
    expect(text(ok)).toContain('2');
  });

  it('audits searches and calls', () => {
    const out = execFileSync(process.execPath, ['dist/src/cli.js', 'audit', '--json', '--tail', '50', '--config', setup.configPath], { encoding: 'utf8' });
    const rows = JSON.parse(out) as { tool: string; args: Record<string, unknown>; notes: string[]; outcome: string; upstreamMs?: number }[];
    const search = rows.find((r) => r.tool === 'find_tools' && r.args.query === 'read the contents of a file');
    expect(search?.notes[0]).toMatch(/^shown: .*read_text_file/);
    const read = rows.find((r) => r.tool === 'read_text_file' && r.outcome === 'ok');
    expect(read?.upstreamMs).toBeGreaterThanOrEqual(0);
  });

  it('keeps the other upstreams working when one upstream process is killed, and reconnects it', async () => {
    // The server itself, not its supervisor (upstream/supervisor.ts): the deepest process that runs server-memory.
    const memory = descendants(transport.pid!).filter((c) => c.cmd.includes('server-memory')).at(-1);
    expect(memory).toBeDefined();
    process.kill(memory!.pid, 'SIGKILL');
    // During the outage a call to the lost server is refused as unavailable, never
    // corrected onto a look-alike tool of another server.
    const during = await client.callTool({ name: 'read_graph', arguments: {} });
    expect(during.isError).toBe(true);
    expect(text(during)).toMatch(/upstream "memory" (is unavailable|failed on read_graph)/);
    const r = await client.callTool({ name: 'read_text_file', arguments: { path: join(setup.filesDir, 'notes.txt') } });
    expect(text(r)).toContain('quick brown fox');
    const found = JSON.parse(text(await client.callTool({ name: 'find_tools', arguments: { query: 'add two numbers' } }))) as { tools: { name: string }[] };
    expect(found.tools[0]!.name).toBe('get-sum');
    // The pool respawns it with backoff (first retry after 1 s).
    await expect.poll(async () => (await client.callTool({ name: 'read_graph', arguments: {} })).isError ?? false, { timeout: 15_000, interval: 500 }).toBe(false);
    const respawned = descendants(transport.pid!).filter((c) => c.cmd.includes('server-memory')).at(-1);
    expect(respawned?.pid).not.toBe(memory!.pid);
  });
});

describe('bad config and failing upstreams', () => {
  it('names the missing config file', () => {
    let stderr = '';
    try {
      execFileSync(process.execPath, ['dist/src/cli.js', 'tools', '--config', '/nonexistent/gw.yaml'], { encoding: 'utf8', stdio: 'pipe' });
    } catch (err) {
      stderr = (err as { stderr: string }).stderr;
      expect((err as { status: number }).status).toBe(2);
    }
    expect(stderr).toContain('/nonexistent/gw.yaml: file not found');
  });

  it('points at the line of malformed YAML', () => {
    const { configPath } = referenceConfig();
    writeFileSync(configPath, 'upstreams:\n  files: { command: node\n  bad: [\n');
    let stderr = '';
    try {
      execFileSync(process.execPath, ['dist/src/cli.js', 'tools', '--config', configPath], { encoding: 'utf8', stdio: 'pipe' });
    } catch (err) {
      stderr = (err as { stderr: string }).stderr;
    }
    expect(stderr).toMatch(/gateway\.config\.yaml: line \d+, column \d+: malformed YAML/);
  });

  it('names the policy key of a policy file that does not exist', () => {
    const { configPath, dir } = referenceConfig({ policy: { personas: 'missing-personas.yaml' } });
    const r = spawnSync(process.execPath, ['dist/src/cli.js', 'tools', '--config', configPath], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${configPath}: policy.personas: file not found: ${join(dir, 'missing-personas.yaml')}`);
  });

  it('names the key path of a schema error and rejects unknown keys', () => {
    const { configPath } = referenceConfig({ curator: { mode: 'fancy' } });
    let stderr = '';
    try {
      execFileSync(process.execPath, ['dist/src/cli.js', 'tools', '--config', configPath], { encoding: 'utf8', stdio: 'pipe' });
    } catch (err) {
      stderr = (err as { stderr: string }).stderr;
    }
    expect(stderr).toMatch(/curator\.mode: Invalid option: expected one of "none"\|"bm25"\|"dense"\|"hybrid"/);
    const unknownKey = referenceConfig({ exposure: { pinned: [], max_visibel: 3 } });
    try {
      execFileSync(process.execPath, ['dist/src/cli.js', 'tools', '--config', unknownKey.configPath], { encoding: 'utf8', stdio: 'pipe' });
    } catch (err) {
      stderr = (err as { stderr: string }).stderr;
    }
    expect(stderr).toContain('exposure.max_visibel: unknown key "max_visibel"; did you mean "max_visible"? (exposure takes pinned, max_visible, mode)');
  });

  it('kills an upstream that never answers the handshake, leaving no orphan process', () => {
    const marker = `mute-${process.pid}-${Date.now()}`;
    const { configPath } = referenceConfig({}, { mute: { command: process.execPath, args: ['-e', `setInterval(() => {}, 1000); process.stdin.resume() // ${marker}`], startup_timeout_ms: 1000 } });
    const out = execFileSync(process.execPath, ['dist/src/cli.js', 'tools', '--config', configPath], { encoding: 'utf8', stdio: 'pipe' });
    expect(out).toMatch(/# mute: failed, 0 tools \(connecting to upstream "mute" timed out after 1000 ms\)/);
    const left = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n').filter((l) => l.includes(marker));
    expect(left).toEqual([]);
  });

  it('says what is wrong with an upstream entry in the shape the user meant', () => {
    const both = referenceConfig({}, { odd: { command: 'node', url: 'http://127.0.0.1:1/mcp' } });
    const r = spawnSync(process.execPath, ['dist/src/cli.js', 'tools', '--config', both.configPath], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/upstreams\.odd: an upstream has either "command" \(stdio\) or "url" \(remote\), not both/);
    const args = referenceConfig({}, { odd: { command: 'node', args: 'server.js' } });
    expect(spawnSync(process.execPath, ['dist/src/cli.js', 'tools', '--config', args.configPath], { encoding: 'utf8' }).stderr).toMatch(
      /upstreams\.odd\.args: Invalid input: expected array, received string/,
    );
  });

  it('refuses HTTP tokens mapped to a persona that does not exist', () => {
    const { configPath, dir } = referenceConfig({
      policy: { personas: 'personas.yaml' },
      http: { tokens: [{ token: 'a-long-enough-token-123', persona: 'wizard' }] },
    });
    // The repository's personas name the university upstreams, which this config lacks (an error of its own).
    writeFileSync(join(dir, 'personas.yaml'), ['student', 'faculty', 'executive', 'admin'].map((p) => `${p}: { allow: ['*'] }`).join('\n'));
    const r = spawnSync(process.execPath, ['dist/src/cli.js', 'serve', '--http', '0', '--config', configPath], { encoding: 'utf8', timeout: 20_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/http\.tokens\.0: unknown persona "wizard"; personas\.yaml defines: student, faculty, executive, admin/);
  });

  it('serves the healthy upstreams when one command does not exist and one exits at once', () => {
    const { configPath } = referenceConfig({}, {
      ghost: { command: 'definitely-not-a-command-xyz', args: [] },
      quitter: { command: process.execPath, args: ['-e', 'process.exit(3)'] },
    });
    const out = execFileSync(process.execPath, ['dist/src/cli.js', 'tools', '--config', configPath], { encoding: 'utf8', stdio: 'pipe' });
    expect(out).toMatch(/# ghost: failed/);
    expect(out).toMatch(/# quitter: failed/);
    expect(out).toMatch(/# files: ready \(protocol 2025\), 14 tools/);
    expect(out).toMatch(/files\tread_text_file/);
  });
});
