/** Child processes for tests: free loopback ports, spawning a server and waiting until it listens. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Spawns `command args` and resolves once its stderr matches `ready`. Rejects on exit or after `timeoutMs`. */
export function spawnUntil(command: string, args: string[], ready: RegExp, env: Record<string, string> = {}, timeoutMs = 30_000): Promise<{ child: ChildProcess; stderr: () => string }> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} not ready after ${timeoutMs} ms:\n${err}`)), timeoutMs);
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      if (ready.test(err)) {
        clearTimeout(timer);
        resolve({ child, stderr: () => err });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited with ${code}:\n${err}`));
    });
  });
}
