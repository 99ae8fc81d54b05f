/**
 * The approvals a gateway ran or heard run, kept in a file of its own beside the approver
 * key, so that a restart does not forget them (confirmation.ts). The store's
 * `approval_uses` is the fleet's record of a use, and whoever can write the store can
 * delete it and re-arm the approval; this record is outside the store, so a gateway
 * restarted within an approval's signed validity still refuses to run it again.
 *
 * One line per use, `<id> <signed expiry, epoch ms>`, appended (several gateway processes
 * over one config folder, as stdio hosts start them, share the file). Lines past their
 * expiry are dropped when the file is read and has grown past COMPACT_BYTES; a use appended
 * by another process during that rewrite can be lost, which leaves that one approval to
 * the store's record and the processes' memories, as before this file.
 */
import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Size past which reading the file rewrites it without expired lines: about 30,000 uses. */
const COMPACT_BYTES = 1 << 20;

export interface UsedLedger {
  /** Ids recorded as used whose signed expiry is after `now`, each with that expiry. */
  load(now: number): Map<string, number>;
  /** Records a use. @throws when it cannot be written: the call must then not run. */
  add(id: string, expiresAt: number): void;
}

/**
 * A ledger in the file at `path` (created, mode 0600, with its folder, on first use).
 *
 * ### Usage
 * ```ts
 * const ledger = fileLedger('/srv/gateway/.tool-curator/approvals-used');
 * ledger.add('k3x9…', Date.now() + 600_000);
 * ledger.load(Date.now()).has('k3x9…'); // true, also in a new process
 * ```
 */
export function fileLedger(path: string): UsedLedger {
  return {
    load(now) {
      let text = '';
      try {
        text = readFileSync(path, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      const live = new Map<string, number>();
      for (const line of text.split('\n')) {
        const m = /^([a-z0-9]+) (\d+)$/.exec(line);
        if (m && Number(m[2]) > now) live.set(m[1]!, Math.max(Number(m[2]), live.get(m[1]!) ?? 0));
      }
      if (text.length > COMPACT_BYTES) {
        writeFileSync(`${path}.tmp`, [...live].map(([id, t]) => `${id} ${t}\n`).join(''), { mode: 0o600 });
        renameSync(`${path}.tmp`, path);
      }
      return live;
    },
    add(id, expiresAt) {
      mkdirSync(dirname(path), { recursive: true });
      appendFileSync(path, `${id} ${expiresAt}\n`, { mode: 0o600 });
    },
  };
}
