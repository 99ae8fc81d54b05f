/**
 * The upstream child processes this gateway spawned, from the moment they exist until
 * they exit — including those still in their handshake or in a reconnect — so that a
 * shutdown in any phase can end every one of them and leave no orphan behind.
 *
 * `ChildTransport` is the SDK's stdio client transport plus what a start-up failure
 * report needs (the child's exit code or signal and the tail of its stderr) and a read
 * buffer that skips a message over the size limit instead of closing the connection
 * (lineReader.ts).
 *
 * Each child is started through supervisor.ts (not on Windows), which puts the upstream in
 * a process group of its own and ends that group when it is told to, when the upstream
 * exits, or when the gateway is gone — also after a SIGKILL of the gateway, when no exit
 * hook runs. `command: node` runs on the gateway's own Node (`process.execPath`), not the
 * first `node` on PATH.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { StdioClientTransport, type StdioServerParameters } from '@modelcontextprotocol/client/stdio';
import { log } from '../log.js';
import { BoundedLineReader, type OversizedLine } from './lineReader.js';
import { tooLargeResponse } from './limits.js';
import { DEFAULT_MAX_RESULT_BYTES } from './types.js';

/** Live children, each with whether a supervisor (supervisor.ts) runs it. */
const live = new Map<ChildProcess, boolean>();
let exitHookInstalled = false;

/**
 * Last resort: whatever path the process takes to exit, its children die with it. A
 * supervisor gets SIGTERM: it SIGKILLs its upstream's group itself, which a SIGKILL of the
 * supervisor would leave running.
 */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const [child, supervised] of live) child.kill(supervised ? 'SIGTERM' : 'SIGKILL');
  });
}

function track(child: ChildProcess, supervised: boolean): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  installExitHook();
  live.set(child, supervised);
  child.once('exit', () => live.delete(child));
}

/** The compiled supervisor beside this module; none when running from TypeScript sources (vitest), or on Windows. */
function supervisorScript(): string | undefined {
  if (process.platform === 'win32') return undefined;
  const script = fileURLToPath(new URL('./supervisor.js', import.meta.url));
  return existsSync(script) ? script : undefined;
}

/**
 * What the SDK transport spawns for `params`: `node` is the gateway's own Node
 * (`process.execPath`; a path or another name such as `node18` is taken as written), and
 * the command runs under the supervisor when there is one.
 */
function spawnParams(params: StdioServerParameters): { params: StdioServerParameters; supervised: boolean } {
  const command = params.command === 'node' ? process.execPath : params.command;
  const supervisor = supervisorScript();
  if (!supervisor) return { params: { ...params, command }, supervised: false };
  return { params: { ...params, command: process.execPath, args: [supervisor, String(process.pid), command, ...(params.args ?? [])] }, supervised: true };
}

/** Lines of stderr kept for a failure report: the end of a stack trace fits. */
const TAIL_LINES = 12;
/** Characters kept per line, so one runaway line cannot fill the report. */
const TAIL_LINE_CHARS = 300;

export interface ChildTransportOptions {
  /** The upstream's name, for log lines. */
  name: string;
  /** Longest message read from the child, in bytes; a longer one is skipped. Default 10 MiB. */
  maxMessageBytes?: number;
}

export class ChildTransport extends StdioClientTransport {
  /** How the child ended on its own (not because we closed it), once it has. */
  exited?: { code: number | null; signal: NodeJS.Signals | null };
  private readonly tail: string[] = [];
  private closing = false;
  private readonly name: string;
  private readonly maxMessageBytes: number;
  private readonly supervised: boolean;

  constructor(params: StdioServerParameters, opts: ChildTransportOptions) {
    const spawned = spawnParams(params);
    super(spawned.params);
    this.supervised = spawned.supervised;
    this.name = opts.name;
    this.maxMessageBytes = opts.maxMessageBytes ?? DEFAULT_MAX_RESULT_BYTES;
    // The SDK keeps its ReadBuffer private; this one has the same three methods (lineReader.ts).
    (this as unknown as { _readBuffer: BoundedLineReader })._readBuffer = new BoundedLineReader(this.maxMessageBytes, (line) => this.oversized(line));
  }

  /**
   * A message over the limit was skipped. An answer to one of our requests is replaced by
   * an error answer (the caller learns the size at once instead of waiting for its
   * timeout); a request of the upstream gets an error answer from here.
   */
  private oversized(line: OversizedLine): JSONRPCMessage | undefined {
    log.warn({ upstream: this.name, ...line, limit: this.maxMessageBytes }, `upstream "${this.name}" sent a message of ${line.bytes} bytes, over the limit; skipped, the connection stays up`);
    if (line.id === undefined || line.kind === 'notification') return undefined;
    const answer = tooLargeResponse(line.id, line.bytes, this.maxMessageBytes);
    if (line.kind !== 'request') return answer;
    this.send(answer).catch(() => undefined);
    return undefined;
  }

  override async start(): Promise<void> {
    const started = super.start();
    // The SDK keeps the ChildProcess private; it exists as soon as start() has spawned it.
    const child = (this as unknown as { _process?: ChildProcess })._process;
    if (child) {
      track(child, this.supervised);
      child.once('exit', (code, signal) => {
        if (this.closing) return;
        this.exited = { code, signal };
        // A supervisor killed on its own (SIGKILL) leaves its upstream on the gateway's pipes,
        // unsupervised: ending the connection closes its stdin and reports the upstream lost.
        if (this.supervised) void super.close().catch(() => undefined);
      });
    }
    return started;
  }

  override async close(): Promise<void> {
    this.closing = true;
    return super.close();
  }

  /** Keeps `line` of the child's stderr for `describeFailure`. */
  keepStderr(line: string): void {
    this.tail.push(line.length > TAIL_LINE_CHARS ? `${line.slice(0, TAIL_LINE_CHARS)}…` : line);
    if (this.tail.length > TAIL_LINES) this.tail.shift();
  }

  /** `message` plus what the child said and how it ended, e.g. "Connection closed; exited with code 1; stderr: Error: Cannot find module …". */
  describeFailure(message: string): string {
    const parts = [message];
    if (this.exited) parts.push(this.exited.signal ? `killed by ${this.exited.signal}` : `exited with code ${this.exited.code}`);
    if (this.tail.length > 0) parts.push(`stderr: ${this.tail.join(' | ')}`);
    return parts.join('; ');
  }
}

/** Child processes spawned and not yet exited (a supervised upstream's: its supervisor's). */
export function liveChildren(): number[] {
  return [...live.keys()].map((c) => c.pid).filter((pid): pid is number => pid !== undefined);
}

/**
 * Ends every live child: SIGTERM, then SIGKILL for those still running after `graceMs`.
 * A supervisor is not SIGKILLed (that would leave its upstream's group running): it
 * SIGKILLs the group itself 300 ms after the SIGTERM, and is waited for.
 * Resolves once all have exited (or `graceMs` after the SIGKILL at the latest).
 */
export async function terminateChildren(graceMs = 500): Promise<void> {
  const children = [...live.keys()];
  if (children.length === 0) return;
  const exited = (c: ChildProcess) =>
    c.exitCode !== null || c.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => c.once('exit', () => resolve()));
  const within = (ms: number, p: Promise<unknown>) =>
    Promise.race([p, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);
  for (const c of children) c.kill('SIGTERM');
  await within(graceMs, Promise.all(children.map(exited)));
  const stubborn = children.filter((c) => c.exitCode === null && c.signalCode === null);
  for (const c of stubborn) if (!live.get(c)) c.kill('SIGKILL');
  await within(graceMs, Promise.all(stubborn.map(exited)));
}
