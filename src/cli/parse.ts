/**
 * Reads a command line against the table in commands.ts with node's `util.parseArgs`
 * (strict: an unknown or misplaced flag is an error), checks every value, and writes the
 * usage texts from the same table.
 */
import { parseArgs } from 'node:util';
import { closest } from '../policy/patterns.js';
import { COMMANDS, COMMON, type CommandName, type CommandSpec, type FlagSpec, type FlagsOf } from './commands.js';

/** A command line that does not parse: printed with the usage it includes, exit code 2. */
export class UsageError extends Error {}

export type ParsedCommand = { [C in CommandName]: { command: C; flags: FlagsOf<C>; args: string[] } }[CommandName];

/** What the command line asks for: a command, the general usage, or the version. */
export type CommandLine = ParsedCommand | { command: 'help' } | { command: 'version' };

const NAMES = Object.keys(COMMANDS) as CommandName[];

function spec(name: CommandName): CommandSpec {
  return COMMANDS[name];
}

function flagText(name: string, f: FlagSpec): string {
  const value = f.choices ? f.choices.join('|') : f.value;
  return `--${name}${f.type === 'string' ? ` ${value ?? 'V'}` : ''}`;
}

/** `tool-curator select "<query>" [--persona P] … [--config F]`. */
export function usageLine(name: CommandName): string {
  const s = spec(name);
  const flags = Object.entries(s.flags).map(([n, f]) => `[${flagText(n, f)}]`);
  return ['tool-curator', name, ...(s.args ? [s.args.usage] : []), ...flags, '[--config F]'].join(' ');
}

/** The general usage: every command and what it does. */
export function usage(): string {
  const width = Math.max(...NAMES.map((n) => n.length));
  return [
    'tool-curator — an MCP gateway that curates many upstream tools into a short, query-specific list',
    '',
    'Usage: tool-curator <command> [arguments] [flags]     tool-curator <command> --help: its flags',
    '',
    ...NAMES.map((n) => `  ${n.padEnd(width)}  ${spec(n).summary}`),
    '',
    'Every command takes --config F (default $TOOL_CURATOR_CONFIG, else ./gateway.config.yaml),',
    '--log-format json|pretty and --help. tool-curator --version prints the version.',
  ].join('\n');
}

/** The help of one command: its usage line, then each flag with its meaning. */
export function commandHelp(name: CommandName): string {
  const s = spec(name);
  const rows = [...Object.entries(s.flags), ...Object.entries(COMMON)].map(([n, f]) => [flagText(n, f), f.help] as const);
  const width = Math.min(36, Math.max(...rows.map(([t]) => t.length)));
  return [`Usage: ${usageLine(name)}`, s.summary, '', ...rows.map(([t, h]) => `  ${t.padEnd(width)}  ${h}`)].join('\n');
}

/** The commands (other than `except`) that take flag `flag`, for a misplaced flag's message. */
function ownersOf(flag: string, except: CommandName): CommandName[] {
  return NAMES.filter((n) => n !== except && flag in spec(n).flags);
}

function fail(name: CommandName, message: string): never {
  throw new UsageError(`${name}: ${message}\nusage: ${usageLine(name)}\n(tool-curator ${name} --help lists the flags)`);
}

/** A flag's value checked against its spec: a choice, or a number for `int` flags. */
function checkValue(name: CommandName, flag: string, f: FlagSpec, raw: string): string | number {
  if (f.choices && !f.choices.includes(raw)) fail(name, `--${flag} ${JSON.stringify(raw)} is not one of ${f.choices.join(', ')}`);
  if (!f.int) return raw;
  const n = Number(raw);
  const max = f.max ?? Number.MAX_SAFE_INTEGER;
  if (f.int === 'count' && !(/^\d+$/.test(raw) && n >= 1 && n <= max)) fail(name, `--${flag} needs a positive integer (at most ${max}), got ${JSON.stringify(raw)}`);
  if (f.int === 'port' && !(Number.isInteger(n) && n >= 0 && n < 65536 && /^\d+$/.test(raw))) fail(name, `--${flag} needs a port number (0–65535), got ${JSON.stringify(raw)}`);
  return n;
}

/**
 * `--tail -5` as `--tail=-5`: parseArgs reads a value that starts with a dash as a flag and
 * refuses the line as ambiguous, so a negative number after a number flag is taken as its
 * value here, and checkValue refuses it with the same message as any other wrong number.
 */
function joinNegativeNumbers(args: readonly string[], all: Record<string, FlagSpec>): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const next = args[i + 1];
    const flag = arg.startsWith('--') ? all[arg.slice(2)] : undefined;
    if (flag?.int && next !== undefined && /^-[\d.]/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

/**
 * Parses `argv` (without node and the script). The command comes first; its flags may
 * come before or after its arguments.
 * @throws UsageError naming what is wrong, with the command's usage.
 */
export function parseCommandLine(argv: string[]): CommandLine {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') return { command: 'help' };
  if (first === '--version' || first === '-v') return { command: 'version' };
  if (first.startsWith('-')) throw new UsageError(`the command comes first: tool-curator <command> [flags], e.g. tool-curator serve ${first}\n\n${usage()}`);
  if (!(NAMES as string[]).includes(first)) {
    const near = closest(first, NAMES);
    throw new UsageError(`unknown command "${first}"${near ? `; did you mean "${near}"?` : ''}\n\n${usage()}`);
  }
  const name = first as CommandName;
  const s = spec(name);
  const all: Record<string, FlagSpec> = { ...s.flags, ...COMMON };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: joinNegativeNumbers(rest, all),
      options: Object.fromEntries(Object.entries(all).map(([n, f]) => [n, { type: f.type, ...(f.short && { short: f.short }) }])),
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (!code?.startsWith('ERR_PARSE_ARGS')) throw err;
    const flag = /'(-{1,2}[^' ]+)'/.exec((err as Error).message)?.[1]?.replace(/^-+/, '').split('=')[0];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag !== undefined) {
      const owners = ownersOf(flag, name);
      const near = closest(flag, [...new Set([...Object.keys(all), ...NAMES.flatMap((n) => Object.keys(spec(n).flags))])]);
      const nearOwners = near === undefined || near in all ? [] : ownersOf(near, name);
      const hint = owners.length > 0 ? ` (a flag of ${owners.join(', ')})` : near ? `; did you mean --${near}${nearOwners.length > 0 ? ` (a flag of ${nearOwners.join(', ')})` : ''}?` : '';
      fail(name, `unknown flag --${flag}${hint}`);
    }
    fail(name, (err as Error).message.split('\n')[0]!);
  }
  const flags: Record<string, string | number | boolean> = {};
  for (const [flag, raw] of Object.entries(parsed.values)) {
    const f = all[flag]!;
    flags[flag] = typeof raw === 'string' ? checkValue(name, flag, f, raw) : (raw as boolean);
  }
  if (flags.help) return { command: name, flags, args: [] } as ParsedCommand;
  const args = parsed.positionals;
  const { min, max } = s.args ?? { min: 0, max: 0 };
  if (args.length < min) fail(name, `needs ${s.args!.usage}`);
  if (args.length > max) fail(name, max === 0 ? `takes no arguments, got ${JSON.stringify(args.join(' '))}` : `takes ${s.args!.usage}, got ${args.length} arguments`);
  return { command: name, flags, args } as ParsedCommand;
}
