/**
 * The live heap of a gateway process after a full GC — what it really retains; RSS also
 * holds pages V8 grew into during a burst and kept. The process runs with `--expose-gc`
 * and a small preloaded probe: on SIGUSR2 it collects garbage and writes
 * `live-heap <n> <bytes>` to stderr (n counts the answers). (A heap snapshot would measure the same but costs the
 * process more memory than it measures.) On SIGWINCH it writes, without collecting,
 * `young-gen <n> <bytes>`: the size of V8's young generation (new space), which a burst
 * grows and only a full collection shrinks again.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const PROBE = `import v8 from 'node:v8';
const asked = { 'live-heap': 0, 'young-gen': 0 };
const answer = (what, bytes) => process.stderr.write(what + ' ' + ++asked[what] + ' ' + bytes + '\\n');
process.on('SIGUSR2', () => {
  globalThis.gc();
  globalThis.gc();
  answer('live-heap', process.memoryUsage().heapUsed);
});
process.on('SIGWINCH', () => answer('young-gen', v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size));
`;

type Question = 'live-heap' | 'young-gen';
const SIGNALS: Record<Question, NodeJS.Signals> = { 'live-heap': 'SIGUSR2', 'young-gen': 'SIGWINCH' };

export class LiveHeap {
  private readonly probe: string;
  /** Answers asked for so far, per process and question. */
  private readonly asked = new Map<string, number>();

  constructor() {
    this.probe = join(mkdtempSync(join(tmpdir(), 'tc-heap-')), 'probe.mjs');
    writeFileSync(this.probe, PROBE);
  }

  /** Node options for the process to measure. */
  get nodeArgs(): string[] {
    return ['--expose-gc', '--import', pathToFileURL(this.probe).href];
  }

  /** Asks `pid` for its live heap after a full GC; `stderr` is what the process wrote so far. Resolves in KiB. */
  kib(pid: number, stderr: () => string, timeoutMs = 60_000): Promise<number> {
    return this.ask('live-heap', pid, stderr, timeoutMs);
  }

  /** Asks `pid` for the size of its young generation as it is (no GC). Resolves in KiB. */
  youngKiB(pid: number, stderr: () => string, timeoutMs = 60_000): Promise<number> {
    return this.ask('young-gen', pid, stderr, timeoutMs);
  }

  private async ask(what: Question, pid: number, stderr: () => string, timeoutMs: number): Promise<number> {
    const key = `${pid} ${what}`;
    const n = (this.asked.get(key) ?? 0) + 1;
    this.asked.set(key, n);
    process.kill(pid, SIGNALS[what]);
    const end = Date.now() + timeoutMs;
    for (;;) {
      const answer = new RegExp(`${what} ${n} (\\d+)\n`).exec(stderr());
      if (answer) return Math.round(Number(answer[1]) / 1024);
      if (Date.now() > end) throw new Error(`no ${what} answer from ${pid} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
