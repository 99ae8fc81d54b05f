/**
 * The supervisor of one stdio upstream, so that the upstream ends with the gateway even
 * when the gateway is killed with SIGKILL (no exit handler of the gateway runs then, and
 * an MCP server that sees its stdin close usually goes on until its calls in flight end).
 *
 *     node supervisor.js <gateway pid> <command> [args…]
 *
 * It starts `command` in a process group of its own (a new session) and hands it its own
 * stdin, stdout and stderr, the gateway's pipes: the MCP messages never pass through here.
 * It ends that group — the upstream and whatever the upstream started (`npx` → `node`) —
 * with SIGTERM, then SIGKILL GRACE_MS later, when:
 * - it gets SIGTERM or SIGINT (the gateway closing the upstream; the signal is passed on);
 * - its parent is no longer the gateway (checked every PARENT_CHECK_MS): the gateway died;
 * - the upstream exits on its own and left something running in its group.
 * Then it exits as the upstream did (its exit code, or killed by its signal), so the
 * gateway's start-up failure report reads as without it. SIGHUP (a closing terminal) is
 * ignored: the gateway stays up then, so its upstreams do too.
 *
 * children.ts starts every stdio upstream through it, except on Windows (no process groups).
 */
import { spawn } from 'node:child_process';

/** From SIGTERM to SIGKILL of the group: the gateway's own shutdown allows 300 ms. */
const GRACE_MS = 300;
/** How often the parent is checked; a killed gateway's upstreams are gone within this plus GRACE_MS. */
const PARENT_CHECK_MS = 500;
/** Exit status for a command that could not be started (the shell's "command not found"). */
const CANNOT_START = 127;

const [gateway, command, ...args] = process.argv.slice(2);
if (!gateway || !command) {
  process.stderr.write('usage: supervisor.js <gateway pid> <command> [args...]\n');
  process.exit(2);
}

const upstream = spawn(command, args, { stdio: 'inherit', detached: true });
let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
let killTimer: NodeJS.Timeout | undefined;
let killed = false;

/** Sends `signal` to the upstream's process group; false when the group is empty. */
function signalGroup(signal: NodeJS.Signals | 0): boolean {
  if (upstream.pid === undefined) return false;
  try {
    process.kill(-upstream.pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Exits as the upstream did. */
function finish(): void {
  clearTimeout(killTimer);
  const { code, signal } = exited!;
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  process.exit(code ?? 1);
}

/** Passes `signal` to the group and SIGKILLs what is left of it GRACE_MS later. */
function end(signal: NodeJS.Signals): void {
  signalGroup(signal);
  killTimer ??= setTimeout(() => {
    killed = true;
    signalGroup('SIGKILL');
    if (exited) finish();
  }, GRACE_MS);
}

upstream.on('error', (err) => {
  process.stderr.write(`cannot start upstream command "${command}": ${err.message}\n`);
  process.exit(CANNOT_START);
});
upstream.on('exit', (code, signal) => {
  exited = { code, signal };
  if (killed || !signalGroup(0)) finish();
  else end('SIGTERM');
});
process.on('SIGTERM', () => end('SIGTERM'));
process.on('SIGINT', () => end('SIGINT'));
process.on('SIGHUP', () => undefined);
setInterval(() => {
  if (process.ppid !== Number(gateway)) end('SIGTERM');
}, PARENT_CHECK_MS).unref();
