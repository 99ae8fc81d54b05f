/**
 * The store file is checked before anything is written: a corrupt file or another
 * application's SQLite database is refused with the `store` key and its path and left
 * byte-for-byte as it was; the CLI's JSON output is complete when piped to a slow reader.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { dump } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { AuditLog } from '../../src/store/audit.js';
import { APPLICATION_ID, openConfiguredStore, openDb, StoreError } from '../../src/store/db.js';
import { CLI } from '../helpers/reference.js';

function setup(): { dir: string; store: string; configPath: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tc-store-'));
  const store = join(dir, 'store.db');
  const configPath = join(dir, 'gateway.config.yaml');
  writeFileSync(configPath, dump({ upstreams: {}, store, curator: { mode: 'bm25', embedder: 'none' } }));
  return { dir, store, configPath };
}

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('store file checks', () => {
  it('refuses a corrupt file with the store key and path, and never writes to it', () => {
    const { store, configPath } = setup();
    writeFileSync(store, Buffer.alloc(8192, 'this is not a database '));
    const before = sha(store);
    const err = (() => {
      try {
        openConfiguredStore(loadConfig(configPath));
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err!.message).toContain('store:');
    expect(err!.message).toContain(store);
    expect(err!.message).toContain('not a SQLite database');
    expect(sha(store)).toBe(before);
    expect(existsSync(`${store}-wal`)).toBe(false);
  });

  it("refuses another application's SQLite file (tables, no mark) and leaves it untouched", () => {
    const { store } = setup();
    const other = new Database(store);
    other.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers (name) VALUES ('Ada')");
    other.close();
    const before = sha(store);
    expect(() => openDb(store)).toThrow(StoreError);
    expect(() => openDb(store)).toThrow(/another application \(tables customers\)/);
    expect(sha(store)).toBe(before);
    const check = new Database(store, { readonly: true });
    expect(check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()).toEqual([{ name: 'customers' }]);
    expect(check.pragma('journal_mode', { simple: true })).toBe('delete');
    check.close();
  });

  it('refuses a database marked with another application_id, even without tables', () => {
    const { store } = setup();
    const other = new Database(store);
    other.pragma('application_id = 1234');
    other.close();
    expect(() => openDb(store)).toThrow(/application_id 0x4d2/);
  });

  it('marks a new store and adopts an unmarked one holding only our tables', () => {
    const { dir, store } = setup();
    openDb(store).close();
    const fresh = new Database(store, { readonly: true });
    expect(fresh.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
    fresh.close();

    const legacy = join(dir, 'legacy.db');
    const old = new Database(legacy);
    new AuditLog(old);
    old.close();
    const reopened = openDb(legacy);
    expect(reopened.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
    reopened.close();
  });

  it('the CLI names the store key and path of a foreign file and exits 2', () => {
    const { store, configPath } = setup();
    const other = new Database(store);
    other.exec('CREATE TABLE notes (body TEXT)');
    other.close();
    const r = spawnSync(process.execPath, [CLI, 'audit', '--config', configPath], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`store: ${store}: a SQLite database of another application (tables notes)`);
  });
});

describe('CLI JSON output through a pipe', () => {
  it('audit --json is complete when the reader is slow (far past the 64 KiB pipe buffer)', async () => {
    const { store, configPath } = setup();
    const db = openDb(store);
    const audit = new AuditLog(db);
    const rows = 2000;
    for (let i = 0; i < rows; i++) {
      audit.record({
        time: 1_700_000_000_000 + i, sessionId: `s${i}`, tool: 'get_fee_dues', requestedName: 'get_fee_dues',
        args: { note: 'x'.repeat(200), i }, decision: 'allowed', decisions: ['allowed'], notes: [], outcome: 'ok',
      });
    }
    db.close();
    const child = spawn(process.execPath, [CLI, 'audit', '--json', '--tail', String(rows), '--config', configPath], { stdio: ['ignore', 'pipe', 'pipe'] });
    // Read nothing for a while: the pipe fills and the writer has to wait.
    child.stdout.pause();
    await new Promise((r) => setTimeout(r, 1500));
    const chunks: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.stdout.resume();
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    const out = Buffer.concat(chunks).toString('utf8');
    expect(code).toBe(0);
    expect(out.length).toBeGreaterThan(256 * 1024);
    const parsed = JSON.parse(out) as { args: { i: number } }[];
    expect(parsed).toHaveLength(rows);
    expect(parsed.at(-1)!.args.i).toBe(rows - 1);
  }, 60_000);
});
