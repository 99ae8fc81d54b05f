#!/usr/bin/env node
/**
 * tool-curator: the command line. Wiring only: the commands and their flags are the table
 * in cli/commands.ts, each command's logic lives in its module. stdout is reserved: in
 * `serve` (stdio) it is the MCP channel, elsewhere it carries the command's output. Logs
 * always go to stderr.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from './config/load.js';
import { openConfiguredStore } from './config/store.js';
import { EvalUsageError, evalCommand } from './eval/command.js';
import { lintCommand } from './eval/lintCommand.js';
import { formatDoctor, runDoctor } from './doctor/doctor.js';
import { learnedCommand } from './cli/learned.js';
import { approverPolicy } from './host/auth/rules.js';
import { approverCheck, approverKeyPath } from './guards/approver.js';
import { stdio } from './guards/commandIO.js';
import { approvalsCommand, auditCommand } from './guards/commands.js';
import { definitionsCommand } from './guards/definitionCommands.js';
import { approvalStanding } from './guards/standing.js';
import { initCommand, InitError } from './init/command.js';
import { configureLogging, log } from './log.js';
import type { Store } from './store/types.js';
import { AuthUsageError, authCommand } from './upstream/auth/command.js';
import { index, select, tools } from './cli/catalog.js';
import { commandHelp, parseCommandLine, usage, usageLine, UsageError, type ParsedCommand } from './cli/parse.js';
import { serve } from './cli/serve.js';
import { config, configPath } from './cli/session.js';

/** `--name value` / `--name` for the flags a module parses again itself. */
function argv(flags: Record<string, string | number | boolean | undefined>, names: string[]): string[] {
  return names.flatMap((n) => (flags[n] === undefined || flags[n] === false ? [] : flags[n] === true ? [`--${n}`] : [`--${n}`, String(flags[n])]));
}

/** Runs `command` on the configured store, closed after. */
async function withStore(configFile: string | undefined, command: (store: Store) => Promise<number>): Promise<number> {
  const store = await openConfiguredStore(config({ config: configFile }));
  try {
    return await command(store);
  } finally {
    await store.close();
  }
}

/** Runs one command; returns the exit code, or -1 for a command that keeps running (serve). */
async function run(line: ParsedCommand): Promise<number> {
  switch (line.command) {
    case 'serve':
      await serve(line.flags);
      return -1;
    case 'select':
      await select(line.args.join(' '), line.flags);
      return 0;
    case 'tools':
      await tools(line.flags);
      return 0;
    case 'index':
      await index(line.flags);
      return 0;
    case 'eval': {
      const { mode, fusion, sample, approximate, replay, json, refresh, off } = line.flags;
      try {
        return await evalCommand(line.args[0]!, { mode, fusion, topK: line.flags['top-k'], sample, approximate, replay, json, refresh, config: line.flags.config, off: off?.split(',').map((m) => m.trim()) });
      } catch (err) {
        if (err instanceof EvalUsageError) throw new UsageError(`eval: ${err.message}\nusage: ${usageLine('eval')}`);
        throw err;
      }
    }
    case 'lint':
      return lintCommand(argv(line.flags, ['config', 'set', 'catalog', 'persona', 'mode', 'top-k', 'json']));
    case 'approvals': {
      const loaded = config(line.flags);
      const keyPath = approverKeyPath(loaded.config, loaded.baseDir);
      // An approval is judged as the gateway would judge it before its call runs: voided ones say so.
      const check = approverCheck(keyPath, () => loaded.config.http.approvals_token, () => approverPolicy(loaded.config));
      return withStore(line.flags.config, (store) =>
        approvalsCommand([...line.args, ...argv(line.flags, ['all', 'json', 'key-file', 'statement'])], store, keyPath, stdio, approvalStanding(check, store.definitions, () => store.approvals.clock())),
      );
    }
    case 'definitions': {
      const loaded = config(line.flags);
      return withStore(line.flags.config, (store) => definitionsCommand([...line.args, ...argv(line.flags, ['all', 'upstream', 'yes', 'json', 'key-file'])], store, approverKeyPath(loaded.config, loaded.baseDir)));
    }
    case 'audit':
      return withStore(line.flags.config, (store) => auditCommand(argv(line.flags, ['tail', 'json']), store));
    case 'learned': {
      const { learning } = config(line.flags).config.curator;
      return withStore(line.flags.config, (store) => learnedCommand([...line.args, ...argv(line.flags, ['persona', 'tenant', 'tool', 'query', 'all', 'json'])], store.learned, learning));
    }
    case 'auth':
      return authCommand(config(line.flags), line.args[0], { logout: line.flags.logout, user: line.flags.user, users: line.flags.users, out: (l) => process.stdout.write(`${l}\n`) });
    case 'doctor': {
      const report = await runDoctor(configPath(line.flags));
      process.stdout.write(line.flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatDoctor(report));
      return report.exitCode;
    }
    case 'init':
      return initCommand(line.args, { config: configPath(line.flags), force: line.flags.force, inlineSecrets: line.flags['inline-secrets'] });
  }
}

export async function main(args: string[]): Promise<number> {
  const line = parseCommandLine(args);
  if (line.command === 'help') {
    process.stdout.write(`${usage()}\n`);
    return args.length === 0 ? 2 : 0;
  }
  if (line.command === 'version') {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    process.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  if (line.flags.help) {
    process.stdout.write(`${commandHelp(line.command)}\n`);
    return 0;
  }
  configureLogging({ format: line.flags['log-format'] });
  return run(line);
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
    if (err instanceof ConfigError || err instanceof UsageError || err instanceof AuthUsageError || err instanceof InitError) {
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
