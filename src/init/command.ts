/**
 * `tool-curator init [HOST_CONFIG ...]`: a gateway.config.yaml over the MCP servers the
 * user's hosts already start (hosts.ts reads them, convert.ts turns them into upstreams),
 * with no personas (the open persona: every tool of every upstream), then `doctor` on it,
 * then the one entry that replaces those servers in each host's config, with absolute
 * paths. An existing config is kept unless `force`.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dump } from 'js-yaml';
import { formatDoctor, runDoctor } from '../doctor/doctor.js';
import { convertServers, type Conversion } from './convert.js';
import { HOST_NAMES, HostConfigError, readHostServers, usualLocations, type HostFile } from './hosts.js';

/** Why init wrote nothing; the message says what to do. */
export class InitError extends Error {}

export interface InitOptions {
  /** Where the config is written. Default ./gateway.config.yaml. */
  config?: string;
  force?: boolean;
  inlineSecrets?: boolean;
  /** Where the report goes. Default stdout. */
  out?: (text: string) => void;
}

/** The built CLI beside this module (dist/src/cli.js), which the hosts will start. */
const CLI = fileURLToPath(new URL('../cli.js', import.meta.url));

function configText(conversion: Conversion, files: HostFile[]): string {
  const header = [
    `# Written by \`tool-curator init\` on ${new Date().toISOString().slice(0, 10)} from the MCP servers of:`,
    ...files.map((f) => `#   ${f.path} (${HOST_NAMES[f.host]}): ${(conversion.sources.get(f) ?? []).join(', ') || 'none kept'}`),
    '# No personas file: the session is the open persona, which may use every tool of every',
    '# upstream (docs/CONFIGURATION.md, "Personas and visibility"). To restrict it, add `policy: { personas: personas.yaml }`.',
    '# Values written as ${VAR} come from the environment of the gateway.',
    '# embedder: use (USE Lite, shipped in npm) starts offline at once. `auto` prefers a Hugging Face',
    '# model when @huggingface/transformers is installed, and waits up to 5 s on every start for the',
    '# hub when it is unreachable; `transformers` always uses that model (docs/CONFIGURATION.md, "Embedders").',
  ];
  const body = {
    upstreams: conversion.upstreams,
    // `use`, not `auto`: no start waits on an unreachable Hugging Face hub (see the header).
    curator: { mode: 'hybrid', top_k: 17, embedder: 'use' },
    store: '.tool-curator/store.db',
    exposure: { pinned: [], max_visible: 40 },
  };
  return `${header.join('\n')}\n${dump(body, { lineWidth: 120 })}`;
}

/** The host-config entry that starts the gateway instead of the servers it replaces. */
function hostEntry(file: HostFile, configPath: string, conversion: Conversion): string {
  const env: Record<string, string> = {};
  for (const v of conversion.variables) {
    if (v.value !== undefined) env[v.name] = `<the value of ${v.from}>`;
    else if (file.host === 'vscode' && v.from.includes('VS Code asked for input')) env[v.name] = `\${input:${/input "(.+)"/.exec(v.from)![1]}}`;
  }
  // Claude Desktop ignores tools/list_changed: a fixed tools/list (docs/HOSTS.md, "Claude Desktop").
  const exposure = file.host === 'claude-desktop' ? ['--exposure', 'static'] : [];
  const server = {
    ...(file.host === 'vscode' || file.host === 'claude-code' ? { type: 'stdio' } : {}),
    command: process.execPath,
    args: [CLI, 'serve', '--config', configPath, ...exposure],
    ...(Object.keys(env).length > 0 && { env }),
  };
  return JSON.stringify({ [file.key]: { 'tool-curator': server } }, null, 2);
}

/**
 * Runs init; returns the exit code: 0 when the config was written and doctor found no
 * error, 1 when doctor found one.
 * @throws InitError when nothing was written (config exists, no servers found, unreadable host file).
 */
export async function initCommand(paths: readonly string[], opts: InitOptions = {}): Promise<number> {
  const out = opts.out ?? ((text: string) => process.stdout.write(text));
  const configPath = resolve(opts.config ?? 'gateway.config.yaml');
  if (existsSync(configPath) && !opts.force) throw new InitError(`${configPath} exists; --force overwrites it (or --config names another file)`);
  let found;
  try {
    found = readHostServers(paths);
  } catch (err) {
    if (err instanceof HostConfigError) throw new InitError(err.message);
    throw err;
  }
  if (found.servers.length === 0) {
    const looked = paths.length > 0 ? paths : usualLocations().map((f) => `${f.path} (${HOST_NAMES[f.host]})`);
    throw new InitError(`no MCP servers found in:\n  ${looked.join('\n  ')}\nname a host config file: tool-curator init path/to/mcp.json`);
  }
  const conversion = convertServers(found.servers, { inlineSecrets: opts.inlineSecrets, configDir: dirname(configPath), self: CLI });
  const names = Object.keys(conversion.upstreams);
  if (names.length === 0) throw new InitError(`no server could be taken over:\n  ${conversion.notes.join('\n  ')}`);
  mkdirSync(dirname(configPath), { recursive: true });
  writeFileSync(configPath, configText(conversion, found.files));
  out(`wrote ${configPath}: ${names.length} upstream(s) (${names.join(', ')}), no personas (open)\n`);
  for (const note of conversion.notes) out(`note: ${note}\n`);
  const inherited = conversion.variables.filter((v) => v.value === undefined);
  if (inherited.length > 0) {
    out(`note: the config reads ${inherited.map((v) => `\${${v.name}}`).join(', ')} from the gateway's environment, as the hosts did (${inherited.map((v) => v.from).join('; ')}); a host that does not pass them (Claude Desktop, started from the desktop) needs them in the env of its entry\n`);
  }

  // doctor starts every upstream: the moved secrets are given to it in this process only, never written.
  out('\n$ tool-curator doctor\n');
  const saved = new Map(conversion.variables.map((v) => [v.name, process.env[v.name]]));
  for (const v of conversion.variables) if (v.value !== undefined && process.env[v.name] === undefined) process.env[v.name] = v.value;
  let report;
  try {
    report = await runDoctor(configPath);
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  out(formatDoctor(report));

  for (const file of found.files) {
    const replaced = conversion.sources.get(file) ?? [];
    if (replaced.length === 0) continue;
    out(`\nIn ${file.path} (${HOST_NAMES[file.host]}), replace ${replaced.join(', ')} under "${file.key}" with:\n${hostEntry(file, configPath, conversion)}\n`);
  }
  return report.findings.some((f) => f.level === 'error') ? 1 : 0;
}
