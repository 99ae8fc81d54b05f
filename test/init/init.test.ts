/**
 * `tool-curator init` end to end, as a user with several hosts would run it: config files
 * in the shape each host documents, at the places each host keeps them (a temporary HOME
 * and project folder), naming real MCP servers (the university mock servers, started by
 * doctor). Checks the written gateway.config.yaml, that no secret is copied, doctor's
 * report, the entry printed for each host, and the refusal to overwrite.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { load } from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT } from '../helpers/reference.js';

const SECRET = 'sk-test-0123456789abcdefABCDEF';
const server = (name: string) => join(ROOT, 'dist/mock-servers', `${name}.js`);

let home: string;
let project: string;
let db: string;

function write(path: string, doc: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(doc, null, 2));
}

function init(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, 'init', ...args], {
    cwd: project,
    encoding: 'utf8',
    timeout: 300_000,
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: '', TOOL_CURATOR_LOG: 'error', TOOL_CURATOR_CONFIG: '', ...env },
  });
}

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'tc-init-home-'));
  project = mkdtempSync(join(tmpdir(), 'tc-init-project-'));
  db = join(home, 'university.db');
  // Claude Desktop (Linux location): command, args, env with a key in clear.
  write(join(home, '.config/Claude/claude_desktop_config.json'), {
    mcpServers: { finance: { command: process.execPath, args: [server('finance')], env: { UNIVERSITY_DB: db, FINANCE_API_KEY: SECRET } } },
  });
  // Claude Code: the user's servers and this project's "local" ones in ~/.claude.json, the project's in .mcp.json.
  write(join(home, '.claude.json'), {
    numStartups: 12,
    mcpServers: { library: { type: 'stdio', command: process.execPath, args: [server('library')], env: { UNIVERSITY_DB: db } } },
    projects: { [project]: { mcpServers: { hostel: { type: 'stdio', command: process.execPath, args: [server('hostel')], env: { UNIVERSITY_DB: db } } } } },
  });
  write(join(project, '.mcp.json'), {
    mcpServers: { placements: { command: process.execPath, args: [server('placements')], env: { UNIVERSITY_DB: '${UNI_DB}' } } },
  });
  // Cursor: the same finance server as Claude Desktop (kept once), a disabled one, and the gateway itself.
  write(join(home, '.cursor/mcp.json'), {
    mcpServers: {
      finance: { command: process.execPath, args: [server('finance')], env: { UNIVERSITY_DB: db, FINANCE_API_KEY: SECRET } },
      attendance: { command: process.execPath, args: [server('attendance')], env: { UNIVERSITY_DB: db }, disabled: true },
      'tool-curator': { command: process.execPath, args: [CLI, 'serve', '--config', '/somewhere/gateway.config.yaml'] },
    },
  });
  // VS Code: `servers` with `type`, an input prompted for, ${workspaceFolder}.
  write(join(project, '.vscode/mcp.json'), {
    inputs: [{ type: 'promptString', id: 'exam-key', description: 'Examinations key', password: true }],
    servers: { examinations: { type: 'stdio', command: process.execPath, args: [server('examinations')], env: { UNIVERSITY_DB: db, EXAM_KEY: '${input:exam-key}', WORKDIR: '${workspaceFolder}' } } },
  });
});

describe('tool-curator init', () => {
  let first: ReturnType<typeof init>;
  let config: string;

  beforeAll(() => {
    first = init([], { UNI_DB: db, EXAM_KEY: 'set-by-the-user' });
    config = join(project, 'gateway.config.yaml');
  }, 320_000);

  it('writes one upstream per distinct server of every host, no personas, and no secret in clear', () => {
    expect(first.stderr).toBe('');
    const text = readFileSync(config, 'utf8');
    expect(text).not.toContain(SECRET);
    const doc = load(text) as { upstreams: Record<string, { env?: Record<string, string>; cwd?: string }>; policy?: unknown };
    expect(Object.keys(doc.upstreams)).toEqual(['finance', 'library', 'hostel', 'placements', 'examinations']);
    expect(doc.upstreams.finance!.env).toEqual({ UNIVERSITY_DB: db, FINANCE_API_KEY: '${FINANCE_API_KEY}' });
    expect(doc.upstreams.placements!.env).toEqual({ UNIVERSITY_DB: '${UNI_DB}' });
    expect(doc.upstreams.examinations!.env).toEqual({ UNIVERSITY_DB: db, EXAM_KEY: '${EXAM_KEY}', WORKDIR: project });
    expect(doc.policy).toBeUndefined();
    // The offline embedder: no start of the written config waits on the Hugging Face hub.
    expect((doc as { curator?: { embedder?: unknown } }).curator?.embedder).toBe('use');
    expect(text).toMatch(/^# No personas file: the session is the open persona, which may use every tool of every$/m);
    expect(first.stdout).toContain(`wrote ${config}: 5 upstream(s) (finance, library, hostel, placements, examinations), no personas (open)\n`);
    expect(first.stdout).toContain(`note: attendance in ${join(home, '.cursor/mcp.json')} (Cursor) is disabled there: left out\n`);
    expect(first.stdout).toContain(`note: tool-curator in ${join(home, '.cursor/mcp.json')} (Cursor) is Tool Curator itself: left out\n`);
  });

  it('runs doctor on it: every upstream starts, with its tools', () => {
    const report = first.stdout.slice(first.stdout.indexOf('$ tool-curator doctor'));
    for (const [name, tools] of [['finance', 24], ['library', 22], ['hostel', 24], ['placements', 22], ['examinations', 24]] as const) {
      expect(report).toMatch(new RegExp(`^upstream ok +${name}: ${tools} tools, protocol 2025, start \\d+ ms, ping \\d+ ms`, 'm'));
    }
    expect(report).toMatch(/^persona  ok +\(open\)|^embedder ok +/m);
    expect(first.status).toBe(0);
  });

  it('prints the entry that replaces the servers in each host config, with absolute paths', () => {
    const entry = (file: string) => {
      const at = first.stdout.indexOf(`\nIn ${file} (`);
      expect(at).toBeGreaterThan(-1);
      const json = first.stdout.slice(first.stdout.indexOf('{', at));
      return JSON.parse(json.slice(0, json.indexOf('\n}\n') + 2)) as Record<string, Record<string, { type?: string; command: string; args: string[]; env?: Record<string, string> }>>;
    };
    const desktop = entry(join(home, '.config/Claude/claude_desktop_config.json'));
    expect(desktop).toEqual({
      mcpServers: {
        'tool-curator': {
          command: process.execPath,
          args: [CLI, 'serve', '--config', config, '--exposure', 'static'],
          env: { FINANCE_API_KEY: `<the value of finance.env.FINANCE_API_KEY in ${join(home, '.config/Claude/claude_desktop_config.json')} (Claude Desktop)>` },
        },
      },
    });
    const vscode = entry(join(project, '.vscode/mcp.json'));
    expect(vscode.servers!['tool-curator']).toMatchObject({ type: 'stdio', command: process.execPath, args: [CLI, 'serve', '--config', config] });
    expect(vscode.servers!['tool-curator']!.env).toMatchObject({ EXAM_KEY: '${input:exam-key}' });
    expect(first.stdout).toContain(`\nIn ${join(project, '.mcp.json')} (Claude Code), replace placements under "mcpServers" with:\n`);
  });

  it('refuses to overwrite the config without --force, and copies secrets only with --inline-secrets', () => {
    const again = init([]);
    expect(again.status).toBe(2);
    expect(again.stderr).toBe(`tool-curator: ${config} exists; --force overwrites it (or --config names another file)\n`);
    const only = init([join(home, '.config/Claude/claude_desktop_config.json'), '--force', '--inline-secrets']);
    expect(only.status).toBe(0);
    const doc = load(readFileSync(config, 'utf8')) as { upstreams: Record<string, { env?: Record<string, string> }> };
    expect(Object.keys(doc.upstreams)).toEqual(['finance']);
    expect(doc.upstreams.finance!.env!.FINANCE_API_KEY).toBe(SECRET);
  }, 320_000);

  it('says where it looked when no host has a server', () => {
    const r = spawnSync(process.execPath, [CLI, 'init', '--config', join(project, 'other.yaml')], {
      cwd: tmpdir(),
      encoding: 'utf8',
      env: { ...process.env, HOME: mkdtempSync(join(tmpdir(), 'tc-init-empty-')), XDG_CONFIG_HOME: '' },
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^tool-curator: no MCP servers found in:\n {2}.*claude_desktop_config\.json \(Claude Desktop\)\n/);
    expect(r.stderr).toContain('name a host config file: tool-curator init path/to/mcp.json');
  });
});
