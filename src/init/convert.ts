/**
 * Host server entries (hosts.ts) as gateway upstreams: stdio `command`/`args`/`env`/`cwd`,
 * remote `url`/`headers`/`type`. The hosts' variable forms become the gateway's `${VAR}`
 * (`${env:VAR}` of Cursor and VS Code, `${input:id}` of VS Code, `${VAR}` and
 * `${VAR:-default}` of Claude Code; `${workspaceFolder}`, `${userHome}` and
 * `${pathSeparator}` are resolved), and a literal value
 * that looks like a secret (by its name or its shape) is replaced by a `${VAR}` reference,
 * unless the user asks for it to be copied: a config file is shared and committed more
 * easily than a host's own settings.
 */
import { homedir } from 'node:os';
import { isAbsolute, resolve, sep } from 'node:path';
import { HOST_NAMES, type HostFile, type HostServer } from './hosts.js';

export type UpstreamEntry =
  | { command: string; args?: string[]; env?: Record<string, string>; cwd?: string }
  | { url: string; headers?: Record<string, string>; transport?: 'streamable-http' | 'sse' };

/** A variable the gateway's environment must hold for the written config to load. */
export interface NeededVariable {
  name: string;
  /** Where its value is today, e.g. `github.env.GITHUB_TOKEN in ~/.cursor/mcp.json`. */
  from: string;
  /** The literal value taken from the host config (a moved secret); undefined for a variable the host read from its environment. */
  value?: string;
}

export interface Conversion {
  upstreams: Record<string, UpstreamEntry>;
  /** Upstream names per host file they came from. */
  sources: Map<HostFile, string[]>;
  variables: NeededVariable[];
  /** What the user should know: skipped entries, dropped settings, moved secrets. */
  notes: string[];
}

const NAME_SECRET = /(^|[_-])(key|token|secret|password|passwd|pwd|pat|auth|authorization|credentials?|cookie|session|private)([_-]|$)|api_?key|access_?key/i;
/** Known token prefixes, or a long run of token characters (no `/` or `.`: paths and host names are not secrets). */
const VALUE_SECRET = /^(sk-|sk_|ghp_|gho_|ghs_|ghu_|github_pat_|glpat-|xox[abposr]-|AKIA|AIza|eyJ)|^(?=.*\d)(?=.*[A-Za-z])[A-Za-z0-9+_=-]{32,}$/;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Whether `value` (of setting `name`) looks like a secret written in clear. */
export function looksSecret(name: string, value: string): boolean {
  if (value.includes('${')) return false;
  const bare = value.replace(/^(Bearer|Basic|Token)\s+/i, '');
  return bare.length >= 8 && (NAME_SECRET.test(name) || VALUE_SECRET.test(bare) || bare !== value);
}

/** `SERVER_SETTING` in upper snake case: the variable a moved secret is read from. */
function variableName(...parts: string[]): string {
  const name = parts.join('_').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toUpperCase();
  return /^[0-9]/.test(name) ? `V_${name}` : name;
}

/** An entry that starts Tool Curator itself: this installation's CLI, or the package by name. */
function isSelf(entry: Record<string, unknown>, self: string | undefined): boolean {
  const words = [entry.command, ...(Array.isArray(entry.args) ? entry.args : [])].map(String);
  return words.some((w) => (self !== undefined && resolve(w) === self) || /(^|[/\\])tool-curator([/\\@]|$)/.test(w));
}

function strings(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).filter(([, v]) => ['string', 'number', 'boolean'].includes(typeof v)).map(([k, v]) => [k, String(v)]));
}

/**
 * Converts `servers` into upstreams. `configDir` is where the config will be written
 * (relative stdio paths there resolve the same way only for servers of that project);
 * `self` is this installation's CLI, whose entries are left out.
 */
export function convertServers(servers: readonly HostServer[], opts: { inlineSecrets?: boolean; configDir: string; self?: string }): Conversion {
  const upstreams: Record<string, UpstreamEntry> = {};
  const sources = new Map<HostFile, string[]>();
  const variables: NeededVariable[] = [];
  const notes: string[] = [];
  const seen = new Map<string, { json: string; where: string }>();

  for (const { name: hostName, file, entry } of servers) {
    const where = `${file.path} (${HOST_NAMES[file.host]})`;
    if (entry.disabled === true) {
      notes.push(`${hostName} in ${where} is disabled there: left out`);
      continue;
    }
    if (isSelf(entry, opts.self)) {
      notes.push(`${hostName} in ${where} is Tool Curator itself: left out`);
      continue;
    }
    const name = hostName.replace(/[^A-Za-z0-9_-]/g, '-');
    const need = (variable: string, from: string, value?: string) => {
      const known = variables.find((v) => v.name === variable);
      if (!known) variables.push({ name: variable, from, ...(value !== undefined && { value }) });
    };
    /** The host's variable forms in `value` as the gateway's `${VAR}`; `from` names the setting. */
    const translate = (value: string, from: string): string =>
      value.replace(/\$\{([^}]+)\}/g, (whole, inner: string) => {
        if (inner === 'workspaceFolder' && file.project) return file.project;
        if (inner === 'userHome') return homedir();
        if (inner === 'pathSeparator' || inner === '/') return sep;
        // VS Code and Cursor write environment variables as ${env:NAME}; a bare ${NAME} is one of their own variables.
        const bareIsEnv = file.host !== 'vscode' && file.host !== 'cursor';
        const plain = bareIsEnv && IDENT.test(inner) ? inner : /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(inner)?.[1];
        if (plain) {
          need(plain, `${from} in ${where} (the host read it from its environment)`);
          return `\${${plain}}`;
        }
        const withDefault = /^([A-Za-z_][A-Za-z0-9_]*):-(.*)$/.exec(inner);
        if (withDefault) {
          notes.push(`${from} in ${where}: the default of \${${withDefault[1]}} ("${withDefault[2]}") is dropped; the gateway needs ${withDefault[1]} set`);
          need(withDefault[1]!, `${from} in ${where}`);
          return `\${${withDefault[1]}}`;
        }
        const input = /^input:(.+)$/.exec(inner)?.[1];
        if (input) {
          const v = variableName(input);
          need(v, `${from} in ${where} (VS Code asked for input "${input}")`);
          return `\${${v}}`;
        }
        notes.push(`${from} in ${where}: ${whole} is a host variable the gateway does not know; left as written`);
        return whole;
      });
    /** A setting's value: translated, or for a literal secret a reference to a variable (the value kept for the user to move). */
    const setting = (key: string, value: string, from: string, variable: string): string => {
      if (opts.inlineSecrets || !looksSecret(key, value)) return translate(value, from);
      const scheme = /^(Bearer|Basic|Token)\s+/i.exec(value)?.[0] ?? '';
      const secret = value.slice(scheme.length);
      const clash = variables.find((v) => v.name === variable && v.value !== secret);
      const chosen = clash ? variableName(name, variable) : variable;
      need(chosen, `${from} in ${where}`, secret);
      return `${scheme}\${${chosen}}`;
    };

    let upstream: UpstreamEntry;
    if (typeof entry.command === 'string' && entry.command.length > 0) {
      const env = Object.fromEntries(Object.entries(strings(entry.env)).map(([k, v]) => [k, setting(k, v, `${hostName}.env.${k}`, IDENT.test(k) ? k : variableName(name, k))]));
      const args = Array.isArray(entry.args) ? entry.args.map((a, i) => translate(String(a), `${hostName}.args.${i}`)) : [];
      const cwd = typeof entry.cwd === 'string' ? translate(entry.cwd, `${hostName}.cwd`) : file.project && resolve(file.project) !== resolve(opts.configDir) ? file.project : undefined;
      if (entry.envFile !== undefined) notes.push(`${hostName} in ${where} reads envFile ${String(entry.envFile)}: the gateway does not; copy those variables into its env`);
      upstream = {
        command: entry.command,
        ...(args.length > 0 && { args }),
        ...(Object.keys(env).length > 0 && { env }),
        ...(cwd !== undefined && { cwd: isAbsolute(cwd) || !file.project ? cwd : resolve(file.project, cwd) }),
      };
    } else if (typeof entry.url === 'string' && entry.url.length > 0) {
      const headers = Object.fromEntries(Object.entries(strings(entry.headers)).map(([k, v]) => [k, setting(k, v, `${hostName}.headers.${k}`, variableName(name, /^authorization$/i.test(k) ? 'token' : k))]));
      const type = String(entry.type ?? '');
      upstream = {
        url: translate(entry.url, `${hostName}.url`),
        ...(Object.keys(headers).length > 0 && { headers }),
        ...(type === 'sse' ? { transport: 'sse' as const } : /^(http|streamable-?http|streamableHttp)$/i.test(type) ? { transport: 'streamable-http' as const } : {}),
      };
    } else {
      notes.push(`${hostName} in ${where} has neither command nor url: left out`);
      continue;
    }

    const json = JSON.stringify(upstream);
    const before = seen.get(name);
    if (before) {
      if (before.json !== json) notes.push(`${hostName} in ${where} differs from the one in ${before.where}: the first is kept`);
      sources.set(file, [...(sources.get(file) ?? []), name]);
      continue;
    }
    seen.set(name, { json, where });
    upstreams[name] = upstream;
    sources.set(file, [...(sources.get(file) ?? []), name]);
  }
  const moved = variables.filter((v) => v.value !== undefined);
  if (moved.length > 0) {
    notes.push(
      `${moved.length} value(s) that look like secrets are written as \${VAR} references, not copied: ${moved.map((v) => v.name).join(', ')}. ` +
        'Give them to the gateway through the env of its entry in the host config (below), or rerun with --inline-secrets to copy them into the config',
    );
  }
  return { upstreams, sources, variables, notes };
}
