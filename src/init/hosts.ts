/**
 * The MCP servers a user's hosts already start, read from the hosts' own config files:
 * Claude Desktop (`claude_desktop_config.json`), Claude Code (`~/.claude.json`, the
 * project's `.mcp.json`), Cursor (`~/.cursor/mcp.json`, `.cursor/mcp.json`) and VS Code
 * (`.vscode/mcp.json`, the user profile's `mcp.json`: `servers` instead of `mcpServers`,
 * each with a `type`). Each entry is returned as the host wrote it; convert.ts turns it
 * into a gateway upstream.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

export type HostKind = 'claude-desktop' | 'claude-code' | 'cursor' | 'vscode';

export const HOST_NAMES: Record<HostKind, string> = {
  'claude-desktop': 'Claude Desktop',
  'claude-code': 'Claude Code',
  cursor: 'Cursor',
  vscode: 'VS Code',
};

/** One host config file and where its servers live in it. */
export interface HostFile {
  host: HostKind;
  path: string;
  /** `mcpServers` (Claude Desktop, Claude Code, Cursor) or `servers` (VS Code). */
  key: 'mcpServers' | 'servers';
  /** The project a project-scoped file belongs to (`${workspaceFolder}`, the servers' working directory). */
  project?: string;
}

/** A server entry as the host wrote it, with the file it came from. */
export interface HostServer {
  name: string;
  file: HostFile;
  entry: Record<string, unknown>;
}

/** A host config file that cannot be read; the message names the path. */
export class HostConfigError extends Error {}

/** Largest host config read: ~/.claude.json also holds Claude Code's history. */
const MAX_HOST_FILE_BYTES = 64 * 1024 ** 2;

/** The per-user application-data folder of `app` on this OS (macOS Application Support, Windows %APPDATA%, XDG elsewhere). */
function appData(app: string): string {
  const home = homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Application Support', app);
  if (process.platform === 'win32') return join(process.env.APPDATA || join(home, 'AppData', 'Roaming'), app);
  return join(process.env.XDG_CONFIG_HOME || join(home, '.config'), app);
}

/** The places each host keeps its MCP servers, for the user and for the project in `cwd`. */
export function usualLocations(cwd = process.cwd()): HostFile[] {
  const home = homedir();
  return [
    { host: 'claude-desktop', path: join(appData('Claude'), 'claude_desktop_config.json'), key: 'mcpServers' },
    { host: 'claude-code', path: join(home, '.claude.json'), key: 'mcpServers', project: cwd },
    { host: 'claude-code', path: join(cwd, '.mcp.json'), key: 'mcpServers', project: cwd },
    { host: 'cursor', path: join(home, '.cursor', 'mcp.json'), key: 'mcpServers' },
    { host: 'cursor', path: join(cwd, '.cursor', 'mcp.json'), key: 'mcpServers', project: cwd },
    { host: 'vscode', path: join(cwd, '.vscode', 'mcp.json'), key: 'servers', project: cwd },
    { host: 'vscode', path: join(appData('Code'), 'User', 'mcp.json'), key: 'servers' },
  ];
}

/** Which host a file given on the command line belongs to: by its name and folder, else by its shape. */
export function hostFileOf(path: string, doc: unknown): HostFile {
  const abs = resolve(path);
  const name = basename(abs);
  const folder = basename(dirname(abs));
  const obj = doc && typeof doc === 'object' ? (doc as Record<string, unknown>) : {};
  if (name === 'claude_desktop_config.json') return { host: 'claude-desktop', path: abs, key: 'mcpServers' };
  if (name === '.claude.json') return { host: 'claude-code', path: abs, key: 'mcpServers', project: process.cwd() };
  if (name === '.mcp.json') return { host: 'claude-code', path: abs, key: 'mcpServers', project: dirname(abs) };
  if (folder === '.cursor') return { host: 'cursor', path: abs, key: 'mcpServers', ...(dirname(abs) !== homedir() && { project: dirname(dirname(abs)) }) };
  if (folder === '.vscode') return { host: 'vscode', path: abs, key: 'servers', project: dirname(dirname(abs)) };
  if ('servers' in obj && !('mcpServers' in obj)) return { host: 'vscode', path: abs, key: 'servers' };
  return { host: 'claude-desktop', path: abs, key: 'mcpServers' };
}

function readJson(path: string): unknown {
  const size = statSync(path).size;
  if (size > MAX_HOST_FILE_BYTES) throw new HostConfigError(`${path}: ${size} bytes, over the ${MAX_HOST_FILE_BYTES}-byte limit`);
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new HostConfigError(`${path}: not valid JSON (${(err as Error).message})`);
  }
}

function objectAt(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The server entries of one host file (for ~/.claude.json: the user's and the project's). */
function serversIn(file: HostFile, doc: unknown): HostServer[] {
  const root = objectAt(doc);
  const maps = [objectAt(root[file.key])];
  // ~/.claude.json keeps the servers of "local" scope per project folder.
  if (basename(file.path) === '.claude.json' && file.project) maps.push(objectAt(objectAt(objectAt(root.projects)[file.project]).mcpServers));
  return maps.flatMap((m) => Object.entries(m).map(([name, entry]) => ({ name, file, entry: objectAt(entry) })));
}

/**
 * The servers of the files named (any host's shape), or of every usual location that
 * exists when none is named.
 * @throws HostConfigError for a named file that is missing or not JSON.
 */
export function readHostServers(paths: readonly string[], cwd = process.cwd()): { files: HostFile[]; servers: HostServer[] } {
  const files: HostFile[] = [];
  const servers: HostServer[] = [];
  if (paths.length > 0) {
    for (const p of paths) {
      if (!existsSync(p)) throw new HostConfigError(`${p}: file not found`);
      const doc = readJson(p);
      const file = hostFileOf(p, doc);
      files.push(file);
      servers.push(...serversIn(file, doc));
    }
    return { files, servers };
  }
  for (const file of usualLocations(cwd)) {
    if (!existsSync(file.path)) continue;
    const found = serversIn(file, readJson(file.path));
    if (found.length === 0) continue;
    files.push(file);
    servers.push(...found);
  }
  return { files, servers };
}
