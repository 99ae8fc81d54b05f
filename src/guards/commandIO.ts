/**
 * What the person-facing commands (`approvals`, `definitions`, `audit`) share: where they
 * write, how they ask a person at a terminal, and how they lay out tables and times.
 */
import { createInterface } from 'node:readline/promises';

/** Where a command writes and how it asks; tests pass their own. Default: the process's stdout, stderr and terminal. */
export interface CommandIO {
  out(text: string): void;
  err(text: string): void;
  /**
   * Asks the person at an interactive terminal and returns the line they typed. Absent
   * when stdin or stdout is not a terminal (a pipe, a script, an agent's shell): commands
   * that are a person's act refuse then.
   */
  ask?(question: string): Promise<string>;
}

async function askTerminal(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

export const stdio: CommandIO = {
  out: (t) => void process.stdout.write(t),
  err: (t) => void process.stderr.write(t),
  ...(process.stdin.isTTY && process.stdout.isTTY && { ask: askTerminal }),
};

/** Left-aligned columns, two spaces apart; no trailing blanks. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** `90 s` → `1m` (`2m` with `Math.ceil`), `2 h` → `2h`; at least `0m`. */
export function duration(ms: number, round: (x: number) => number = Math.floor): string {
  const m = Math.max(0, round(ms / 60_000));
  return m < 60 ? `${m}m` : `${Math.floor(m / 60)}h${m % 60 ? `${m % 60}m` : ''}`;
}

/** One-line JSON, cut at `max` characters with `…`. */
export function compact(value: unknown, max = 100): string {
  const s = JSON.stringify(value);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** `2026-11-29 12:00:01` (UTC). */
export const timestamp = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
