/**
 * A throwaway PostgreSQL server of a test's own (initdb in a temp folder, a free port,
 * trust authentication on loopback), so a test can stop and start it without touching the
 * server other tests use. Needs the server binaries (Debian: postgresql); as root it runs
 * them as the `postgres` user, since the server refuses to run as root.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './process.js';

/** The folder of initdb and pg_ctl: $PG_BINDIR, else the newest /usr/lib/postgresql/N/bin. */
export function pgBinDir(): string | undefined {
  if (process.env.PG_BINDIR) return process.env.PG_BINDIR;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions[0] && join(root, versions[0], 'bin');
}

export interface PgCluster {
  /** postgres://tc@127.0.0.1:<port>/postgres */
  url: string;
  stop(mode?: 'fast' | 'immediate'): void;
  start(): void;
  remove(): void;
}

export async function startCluster(): Promise<PgCluster> {
  const bin = pgBinDir();
  if (!bin) throw new Error('no PostgreSQL server binaries (initdb, pg_ctl): apt-get install postgresql, or set PG_BINDIR');
  const dir = mkdtempSync(join(tmpdir(), 'tc-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const run = (tool: string, args: string[]) =>
    execFileSync(asRoot ? 'runuser' : join(bin, tool), asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args, { stdio: 'pipe', timeout: 120_000 });
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'tc', '--auth=trust', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const cluster: PgCluster = {
    url: `postgres://tc@127.0.0.1:${port}/postgres`,
    start: () => void run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '120', 'start']),
    stop: (mode = 'fast') => void run('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '120', 'stop']),
    remove: () => {
      try {
        cluster.stop('immediate');
      } catch {
        // Already stopped.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  cluster.start();
  return cluster;
}
