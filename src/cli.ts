#!/usr/bin/env node
/**
 * tool-curator: the command line. Wiring only; each command's logic lives in its module.
 * stdout is reserved: in `serve` (stdio) it is the MCP channel, elsewhere it carries the
 * command's output. Logs always go to stderr.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type LoadedConfig } from './config/load.js';
import { curatorSchema } from './config/schema.js';
import { evalCommand } from './eval/command.js';
import { lintCommand } from './eval/lintCommand.js';
import { Gateway } from './gateway/gateway.js';
import { formatDoctor, runDoctor } from './gateway/doctor.js';
import { reloadAndLog, watchConfig } from './gateway/liveConfig.js';
import { installLifecycle } from './gateway/lifecycle.js';
import { guardedStdioTransport } from './gateway/stdioGuard.js';
import { checkTokens, serveHttp } from './gateway/http.js';
import { Session } from './gateway/session.js';
import { approverKeyPath } from './guards/approver.js';
import { approvalsCommand, auditCommand } from './guards/commands.js';
import { definitionsCommand } from './guards/definitionCommands.js';
import { log } from './log.js';
import { MissingIdentityError, Policy, UnknownPersonaError } from './policy/policy.js';
import { AuthUsageError, authCommand } from './upstream/auth/command.js';
import { openConfiguredStore } from './config/store.js';
import { formatSelection, selectionJson } from './gateway/selectView.js';
import { progressBar } from './gateway/progressView.js';
import type { BuildProgress } from './curator/progress.js';
import type { Store } from './store/types.js';

const USAGE = `tool-curator — an MCP gateway that curates many upstream tools into a short, query-specific list

Usage:
  tool-curator serve [--config F] [--http PORT] [--persona P] [--user-id U] [--strict]
  tool-curator select "<query>" [--config F] [--persona P] [--top-k N] [--mode M] [--fusion score|rrf] [--explain] [--json] [--strict]
  tool-curator tools [--config F] [--persona P] [--json] [--strict]
  tool-curator index [--config F] [--strict]
  tool-curator eval <suite.yaml|metatool|toollens|api_bank|mcptoolbenchpp|livemcpbench|public|dev|calibrate|all>
                    [--mode none|bm25|dense|hybrid|all] [--fusion score|rrf] [--top-k N] [--sample N] [--approximate] [--json] [--config F]
  tool-curator lint [--config F] [--set NAME | --catalog FILE] [--persona P] [--mode M] [--top-k N] [--json]
  tool-curator approvals list [--all] [--json] | show ID | approve ID [--statement DIGEST] | deny ID [--key-file F] | init-key [--config F]
  tool-curator definitions list [--all] [--json] | diff TOOL | accept TOOL DIGEST [--key-file F] [--config F]
  tool-curator audit [--tail N] [--json] [--config F]
  tool-curator auth <upstream> [--logout] [--config F]   (consent for a remote upstream's OAuth; docs/AUTH.md)
  tool-curator doctor [--config F] [--json]

--config defaults to $TOOL_CURATOR_CONFIG, else ./gateway.config.yaml.
--strict: a persona pattern that matches no tool of a connected upstream is an error, not a warning.`;

const OPTIONS = {
  config: { type: 'string' },
  http: { type: 'string' },
  persona: { type: 'string' },
  'user-id': { type: 'string' },
  'top-k': { type: 'string' },
  explain: { type: 'boolean' },
  all: { type: 'boolean' },
  json: { type: 'boolean' },
  tail: { type: 'string' },
  mode: { type: 'string' },
  sample: { type: 'string' },
  fusion: { type: 'string' },
  approximate: { type: 'boolean' },
  logout: { type: 'boolean' },
  'key-file': { type: 'string' },
  statement: { type: 'string' },
  strict: { type: 'boolean' },
  set: { type: 'string' },
  catalog: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Flags = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function config(flags: Flags): LoadedConfig {
  return loadConfig(flags.config ?? process.env.TOOL_CURATOR_CONFIG ?? 'gateway.config.yaml');
}

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${flag} needs a positive integer, got "${value}"`);
  return n;
}

class UsageError extends Error {}

/**
 * The persona and user id for this process: --persona / --user-id, else config `session`.
 * The config's user id belongs to the config's persona: with --persona naming another
 * one it is not used (a faculty session must not act as student S0001), so such a
 * persona needs --user-id when its identity takes one (checkSession says so).
 */
function identity(flags: Flags, loaded: LoadedConfig) {
  const { session } = loaded.config;
  const persona = flags.persona ?? session.persona;
  const ownId = flags.persona === undefined || flags.persona === session.persona;
  const userId = flags['user-id'] ?? (ownId ? session.user_id : undefined);
  return { persona, userId, borrowed: !ownId && flags['user-id'] === undefined && session.user_id !== undefined };
}

async function serve(flags: Flags): Promise<void> {
  const loaded = config(flags);
  const port = flags.http === undefined ? undefined : Number(flags.http);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port < 65536)) throw new UsageError(`--http needs a port number, got "${flags.http}"`);
  const { persona, userId, borrowed } = identity(flags, loaded);
  if (port === undefined) checkSession(loaded, persona, userId, borrowed);
  else checkTokens(loaded);
  // Signal handlers first: Gateway.create spawns the upstreams, and a SIGTERM that arrived
  // before the handlers would end the gateway at once, leaving its children behind.
  let gateway: Gateway | undefined;
  const { shutdown } = installLifecycle({
    close: async () => gateway?.close(),
    reload: async () => {
      if (gateway) await reloadAndLog(gateway, 'SIGHUP');
    },
  });
  // The host gets its initialize answer at once; tools/list and find_tools wait for the catalog and index.
  gateway = await Gateway.create(loaded);
  if (flags.strict) await strictPatterns(gateway);
  // Edits to the config files apply without a restart where they can (liveConfig.ts).
  watchConfig(gateway);
  if (port !== undefined) {
    await serveHttp(gateway, port);
    return;
  }
  const session = new Session(gateway, { persona, userId, transport: 'stdio' });
  const transport = guardedStdioTransport();
  transport.onclose = () => void shutdown('stdio transport closed');
  process.stdin.on('end', () => void shutdown('host closed stdin'));
  await session.server.connect(transport);
  log.info({ persona: persona ?? '(open)' }, 'serving MCP on stdio');
}

/** `--strict`: once the catalog is built, a persona pattern matching no tool is a ConfigError (closing the gateway). */
async function strictPatterns(gateway: Gateway): Promise<void> {
  await gateway.catalogReady;
  const issue = gateway.patternIssues[0];
  if (!issue) return;
  await gateway.close().catch(() => undefined);
  const more = gateway.patternIssues.length > 1 ? ` (and ${gateway.patternIssues.length - 1} more, logged above)` : '';
  throw new ConfigError(gateway.loaded.config.policy.personas ?? 'personas', issue.key, `${issue.message}${more}; --strict refuses patterns that match nothing`);
}

/** Refuses a persona that personas.yaml does not define (any persona passes when there is none). */
function checkPersona(loaded: LoadedConfig, persona: string | undefined): void {
  if (new Policy(loaded.personas).open || (persona !== undefined && persona in loaded.personas)) return;
  const known = Object.keys(loaded.personas).join(', ');
  const fromConfig = persona !== undefined && persona === loaded.config.session.persona;
  throw new UsageError(
    persona === undefined
      ? `no persona given: pass --persona with one of ${known} (or set session.persona in ${loaded.file})`
      : fromConfig
        ? `${loaded.file}: session.persona: ${new UnknownPersonaError(persona, Object.keys(loaded.personas)).message}; set it to one of them or pass --persona`
        : `${new UnknownPersonaError(persona, Object.keys(loaded.personas)).message}; pass --persona with one of them`,
  );
}

/** Refuses to start a session that could not make a single call: a persona whose identity needs a user id it lacks. */
function checkSession(loaded: LoadedConfig, persona: string | undefined, userId: string | undefined, borrowed = false): void {
  checkPersona(loaded, persona);
  try {
    new Policy(loaded.personas).identityValues(persona, userId);
  } catch (err) {
    if (!(err instanceof MissingIdentityError)) throw err;
    const { session } = loaded.config;
    throw new UsageError(
      borrowed
        ? `${err.message}; session.user_id ${session.user_id} in ${loaded.file} is for session.persona ${session.persona}, so --persona ${persona} needs its own --user-id`
        : `${err.message}; or set session.user_id in ${loaded.file}`,
    );
  }
}

async function select(query: string | undefined, flags: Flags): Promise<void> {
  if (query === undefined) throw new UsageError('select needs a query: tool-curator select "read a file"');
  const loaded = config(flags);
  const { persona } = identity(flags, loaded);
  checkPersona(loaded, persona);
  // --mode and --fusion override the config for this one query, e.g. to compare them.
  const curator = curatorSchema.safeParse({ ...loaded.config.curator, ...(flags.mode && { mode: flags.mode }), ...(flags.fusion && { fusion: flags.fusion }) });
  if (!curator.success) throw new UsageError(`select: ${curator.error.issues.map((i) => `--${String(i.path[0])}: ${i.message}`).join('; ')}`);
  loaded.config.curator = curator.data;
  const gateway = await Gateway.start(loaded);
  if (flags.strict) await strictPatterns(gateway);
  try {
    const topK = positiveInt(flags['top-k'], 'top-k') ?? loaded.config.curator.top_k;
    const selection = await gateway.curator.select(query, gateway.allowedFor(persona), { topK, explain: true });
    process.stdout.write(flags.json ? `${JSON.stringify(selectionJson(selection), null, 2)}\n` : formatSelection(selection, Boolean(flags.explain)));
  } finally {
    await gateway.close();
  }
}

async function tools(flags: Flags): Promise<void> {
  const loaded = config(flags);
  const persona = flags.persona;
  if (persona !== undefined) checkPersona(loaded, persona);
  const gateway = await Gateway.start(loaded, { noEmbedder: true });
  try {
    if (flags.strict) await strictPatterns(gateway);
    const list = persona ? gateway.allowedFor(persona) : gateway.catalog;
    if (flags.json) {
      process.stdout.write(`${JSON.stringify({ upstreams: gateway.pool.status(), tools: list }, null, 2)}\n`);
      return;
    }
    for (const s of gateway.pool.status()) process.stdout.write(`# ${s.name}: ${s.state}, ${s.tools} tools${s.error ? ` (${s.error})` : ''}\n`);
    for (const t of list) process.stdout.write(`${t.server}\t${t.name}\t${t.isAction ? 'action' : 'read'}\t${t.description.split('\n')[0]!.slice(0, 100)}\n`);
    process.stdout.write(`${list.length} tools${persona ? ` allowed for ${persona}` : ''}\n`);
  } finally {
    await gateway.close();
  }
}

async function index(flags: Flags): Promise<void> {
  const gateway = await Gateway.create(config(flags));
  // On a terminal, a bar that redraws in place; elsewhere the curator's progress log lines suffice.
  const bar = process.stderr.isTTY ? (p: BuildProgress) => process.stderr.write(`\r${progressBar(p)}`) : undefined;
  if (bar) gateway.on('progress', bar);
  await gateway.ready;
  if (bar) process.stderr.write('\n');
  if (flags.strict) await strictPatterns(gateway);
  process.stdout.write(`indexed ${gateway.catalog.length} tools (${gateway.curator.mode})\n`);
  await gateway.close();
}

/** The flags a sub-command parses itself, back in argv form. */
function passThrough(flags: Flags): string[] {
  return [
    ...(flags.json ? ['--json'] : []),
    ...(flags.all ? ['--all'] : []),
    ...(flags.tail !== undefined ? ['--tail', flags.tail] : []),
    ...(flags.mode !== undefined ? ['--mode', flags.mode] : []),
    ...(flags.sample !== undefined ? ['--sample', flags.sample] : []),
    ...(flags['top-k'] !== undefined ? ['--top-k', flags['top-k']] : []),
    ...(flags.fusion !== undefined ? ['--fusion', flags.fusion] : []),
    ...(flags.approximate ? ['--approximate'] : []),
    ...(flags['key-file'] !== undefined ? ['--key-file', flags['key-file']] : []),
    ...(flags.statement !== undefined ? ['--statement', flags.statement] : []),
  ];
}

/** Runs `command` on the configured store, closed after. */
async function withStore(flags: Flags, command: (store: Store) => Promise<number>): Promise<number> {
  const store = await openConfiguredStore(config(flags));
  try {
    return await command(store);
  } finally {
    await store.close();
  }
}

export async function main(argv: string[]): Promise<number> {
  const { values: flags, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const [command, ...rest] = positionals;
  if (flags.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return command || flags.help ? 0 : 2;
  }
  switch (command) {
    case 'serve':
      await serve(flags);
      return -1;
    case 'select':
      await select(rest.join(' ') || undefined, flags);
      return 0;
    case 'tools':
      await tools(flags);
      return 0;
    case 'index':
      await index(flags);
      return 0;
    case 'eval':
      return evalCommand([...rest, ...passThrough(flags), ...(flags.config ? ['--config', flags.config] : [])]);
    case 'lint':
      return lintCommand(argv.slice(argv.indexOf('lint') + 1));
    case 'approvals': {
      const loaded = config(flags);
      return withStore(flags, (store) => approvalsCommand([...rest, ...passThrough(flags)], store, approverKeyPath(loaded.config, loaded.baseDir)));
    }
    case 'definitions': {
      const loaded = config(flags);
      return withStore(flags, (store) => definitionsCommand([...rest, ...passThrough(flags)], store, approverKeyPath(loaded.config, loaded.baseDir)));
    }
    case 'audit': {
      return withStore(flags, (store) => auditCommand([...rest, ...passThrough(flags)], store));
    }
    case 'auth':
      return authCommand(config(flags), rest[0], { logout: flags.logout, out: (line) => process.stdout.write(`${line}\n`) });
    case 'doctor': {
      const report = await runDoctor(flags.config ?? process.env.TOOL_CURATOR_CONFIG ?? 'gateway.config.yaml');
      process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatDoctor(report));
      return report.exitCode;
    }
    default:
      throw new UsageError(`unknown command "${command}"\n\n${USAGE}`);
  }
}

/**
 * Exits once stdout and stderr have drained: writes to a pipe are asynchronous, and
 * process.exit right after a large write (`audit --json | jq`) would cut it at the pipe
 * buffer's 64 KiB.
 */
function exitAfterDrain(code: number): void {
  let open = 2;
  const done = () => --open === 0 && process.exit(code);
  process.stdout.write('', done);
  process.stderr.write('', done);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) exitAfterDrain(code);
  },
  (err: Error) => {
    if (err instanceof ConfigError || err instanceof UsageError || err instanceof AuthUsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`tool-curator: ${err.message}\n`);
      exitAfterDrain(2);
      return;
    }
    // One readable line for the user; the stack for whoever runs with TOOL_CURATOR_LOG=debug.
    log.debug({ err: err.stack }, 'tool-curator failed');
    process.stderr.write(`tool-curator: ${err.message}\n`);
    exitAfterDrain(1);
  },
);
