/**
 * The live heap of a gateway process after a full GC — what it really retains; RSS also
 * holds pages V8 grew into during a burst and kept. The process runs with `--expose-gc`
 * and a small preloaded probe: on SIGUSR2 it collects garbage and writes
 * `live-heap <n> <bytes>` to stderr (n counts the answers). (A heap snapshot would measure the same but costs the
 * process more memory than it measures.)
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const PROBE = `let asked = 0;
process.on('SIGUSR2', () => {
  globalThis.gc();
  globalThis.gc();
  process.stderr.write('live-heap ' + ++asked + ' ' + process.memoryUsage().heapUsed + '\\n');
});
`;

export class LiveHeap {
  private readonly probe: string;
  /** Answers asked for so far, per process. */
  private readonly asked = new Map<number, number>();

  constructor() {
    this.probe = join(mkdtempSync(join(tmpdir(), 'tc-heap-')), 'probe.mjs');
    writeFileSync(this.probe, PROBE);
  }

  /** Node options for the process to measure. */
  get nodeArgs(): string[] {
    return ['--expose-gc', '--import', pathToFileURL(this.probe).href];
  }

  /** Asks `pid` for its live heap; `stderr` is what the process wrote so far. Resolves in KiB. */
  async kib(pid: number, stderr: () => string, timeoutMs = 60_000): Promise<number> {
    const n = (this.asked.get(pid) ?? 0) + 1;
    this.asked.set(pid, n);
    process.kill(pid, 'SIGUSR2');
    const end = Date.now() + timeoutMs;
    for (;;) {
      const answer = new RegExp(`live-heap ${n} (\\d+)\n`).exec(stderr());
      if (answer) return Math.round(Number(answer[1]) / 1024);
      if (Date.now() > end) throw new Error(`no live-heap answer from ${pid} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
