/**
 * Host entries as gateway upstreams: every host's variable form, remote transports, and
 * secrets written as ${VAR} references unless asked for.
 */
import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { convertServers, looksSecret } from '../../src/init/convert.js';
import type { HostFile, HostServer } from '../../src/init/hosts.js';

const CURSOR: HostFile = { host: 'cursor', path: '/home/u/.cursor/mcp.json', key: 'mcpServers' };
const VSCODE: HostFile = { host: 'vscode', path: '/work/app/.vscode/mcp.json', key: 'servers', project: '/work/app' };
const CLAUDE_CODE: HostFile = { host: 'claude-code', path: '/work/app/.mcp.json', key: 'mcpServers', project: '/work/app' };

const server = (file: HostFile, name: string, entry: Record<string, unknown>): HostServer => ({ name, file, entry });

describe('convertServers', () => {
  it('moves literal secrets into ${VAR} references and keeps the rest', () => {
    const c = convertServers(
      [server(CURSOR, 'github', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_0123456789abcdefghij0123456789abcd', LOG_LEVEL: 'debug' } })],
      { configDir: '/work/app' },
    );
    expect(c.upstreams).toEqual({ github: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${GITHUB_PERSONAL_ACCESS_TOKEN}', LOG_LEVEL: 'debug' } } });
    expect(c.variables).toEqual([{ name: 'GITHUB_PERSONAL_ACCESS_TOKEN', from: 'github.env.GITHUB_PERSONAL_ACCESS_TOKEN in /home/u/.cursor/mcp.json (Cursor)', value: 'ghp_0123456789abcdefghij0123456789abcd' }]);
    expect(c.notes.at(-1)).toMatch(/^1 value\(s\) that look like secrets are written as \$\{VAR\} references, not copied: GITHUB_PERSONAL_ACCESS_TOKEN\./);
    const inline = convertServers([server(CURSOR, 'github', { command: 'npx', env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_0123456789abcdefghij0123456789abcd' } })], { configDir: '/x', inlineSecrets: true });
    expect(inline.upstreams.github).toEqual({ command: 'npx', env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_0123456789abcdefghij0123456789abcd' } });
    expect(inline.variables).toEqual([]);
  });

  it('remote entries: type http/sse as the transport, a bearer header as Bearer ${SERVER_TOKEN}', () => {
    const c = convertServers(
      [
        server(CLAUDE_CODE, 'linear', { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer lin_api_0123456789abcdef', 'X-Team': 'core' } }),
        server(CLAUDE_CODE, 'old', { type: 'sse', url: 'https://old.example.com/sse', headers: { 'X-API-Key': '${OLD_KEY}' } }),
        server(CURSOR, 'plain', { url: 'https://plain.example.com/mcp' }),
      ],
      { configDir: '/work/app' },
    );
    expect(c.upstreams).toEqual({
      linear: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${LINEAR_TOKEN}', 'X-Team': 'core' }, transport: 'streamable-http' },
      old: { url: 'https://old.example.com/sse', headers: { 'X-API-Key': '${OLD_KEY}' }, transport: 'sse' },
      plain: { url: 'https://plain.example.com/mcp' },
    });
    expect(c.variables.map((v) => [v.name, v.value])).toEqual([['LINEAR_TOKEN', 'lin_api_0123456789abcdef'], ['OLD_KEY', undefined]]);
  });

  it('the hosts\' variable forms become ${VAR}; workspace and home folders are resolved', () => {
    const c = convertServers(
      [
        server(VSCODE, 'db', { type: 'stdio', command: 'node', args: ['${workspaceFolder}/db-server.js', '${userHome}/data'], env: { DB_PASSWORD: '${input:db-password}', MODE: '${env:DB_MODE}' } }),
        server(CLAUDE_CODE, 'debug', { command: 'node', args: ['x.js'], env: { DEBUG: '${DEBUG:-false}' } }),
      ],
      { configDir: '/elsewhere' },
    );
    expect(c.upstreams.db).toEqual({ command: 'node', args: ['/work/app/db-server.js', `${homedir()}/data`], env: { DB_PASSWORD: '${DB_PASSWORD}', MODE: '${DB_MODE}' }, cwd: '/work/app' });
    expect(c.upstreams.debug).toEqual({ command: 'node', args: ['x.js'], env: { DEBUG: '${DEBUG}' }, cwd: '/work/app' });
    expect(c.variables.map((v) => v.name)).toEqual(['DB_PASSWORD', 'DB_MODE', 'DEBUG']);
    expect(c.variables[0]!.from).toBe('db.env.DB_PASSWORD in /work/app/.vscode/mcp.json (VS Code) (VS Code asked for input "db-password")');
    expect(c.notes).toContain('debug.env.DEBUG in /work/app/.mcp.json (Claude Code): the default of ${DEBUG} ("false") is dropped; the gateway needs DEBUG set');
  });

  it('leaves out disabled entries, Tool Curator itself and entries of neither shape; keeps the first of two with one name', () => {
    const c = convertServers(
      [
        server(CURSOR, 'off', { command: 'node', disabled: true }),
        server(CURSOR, 'tool-curator', { command: 'node', args: ['/opt/tool-curator/dist/src/cli.js', 'serve'] }),
        server(CURSOR, 'odd', { transport: 'carrier pigeon' }),
        server(CURSOR, 'files', { command: 'npx', args: ['server-filesystem', '/a'] }),
        server(VSCODE, 'files', { type: 'stdio', command: 'npx', args: ['server-filesystem', '/b'] }),
      ],
      { configDir: '/work/app' },
    );
    expect(Object.keys(c.upstreams)).toEqual(['files']);
    expect(c.notes).toEqual([
      'off in /home/u/.cursor/mcp.json (Cursor) is disabled there: left out',
      'tool-curator in /home/u/.cursor/mcp.json (Cursor) is Tool Curator itself: left out',
      'odd in /home/u/.cursor/mcp.json (Cursor) has neither command nor url: left out',
      'files in /work/app/.vscode/mcp.json (VS Code) differs from the one in /home/u/.cursor/mcp.json (Cursor): the first is kept',
    ]);
  });

  it('looksSecret: by the setting\'s name or the value\'s shape, never a reference', () => {
    expect(looksSecret('OPENAI_API_KEY', 'not-so-random')).toBe(true);
    expect(looksSecret('X', 'sk-proj-abcdefghijklmnop')).toBe(true);
    expect(looksSecret('Authorization', 'Bearer abcdefgh')).toBe(true);
    expect(looksSecret('X', 'c29tZSBsb25nIHJhbmRvbSBsb29raW5nIHN0cmluZw1')).toBe(true);
    expect(looksSecret('UNIVERSITY_DB', '/tmp/tc-init-home-lDcNk6/university.db')).toBe(false);
    expect(looksSecret('X', 'https://mcp.example.com/very/long/path/to/an/endpoint')).toBe(false);
    expect(looksSecret('LOG_LEVEL', 'debug')).toBe(false);
    expect(looksSecret('ALLOWED_PATHS', '/Users/me/projects')).toBe(false);
    expect(looksSecret('API_KEY', '${API_KEY}')).toBe(false);
  });
});
