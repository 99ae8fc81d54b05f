/** The process table from /proc: a process's descendants, and whether pids are still alive. */
import { readdirSync, readFileSync } from 'node:fs';

function stat(pid: number): { ppid: number; state: string } | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may contain spaces: fields start after the last ')'.
    const [state, ppid] = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(ppid), state: state! };
  } catch {
    return undefined;
  }
}

/** The parent of `pid`, or undefined when it is gone. */
export function parentOf(pid: number): number | undefined {
  return stat(pid)?.ppid;
}

/** Every live descendant of `root` (children, grandchildren, …). */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const s = stat(pid);
    if (!s || s.state === 'Z') continue;
    children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid]);
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(root);
  return out;
}

/** The pids of `pids` still running (zombies count as gone: they hold no resources but a table slot). */
export function alive(pids: number[]): number[] {
  return pids.filter((pid) => {
    const s = stat(pid);
    return s !== undefined && s.state !== 'Z';
  });
}

/** Resident set size of `pid` in KiB (VmRSS), or undefined when it is gone. */
export function rssKiB(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Polls `check` every `everyMs` until it returns a value other than undefined/false, or throws after `timeoutMs`. */
export async function waitFor<T>(check: () => T | undefined | false, timeoutMs: number, what: string, everyMs = 50): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
