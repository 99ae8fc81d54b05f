/**
 * The SQLite store's file: checked before anything is written (a corrupt file or another
 * application's database is refused with the `store` key and its path and left
 * byte-for-byte as it was), created 0600, migrated in place from the previous release,
 * and a file deleted under a running process is noticed, not written into. The CLI's
 * JSON output is complete when piped to a slow reader.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { dump } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { openConfiguredStore } from '../../src/config/store.js';
import { APPLICATION_ID, openDb, openStore, SCHEMA_VERSION, StoreError, StoreUnavailableError } from '../../src/store/index.js';
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
  it('refuses a corrupt file with the store key and path, and never writes to it', async () => {
    const { store, configPath } = setup();
    writeFileSync(store, Buffer.alloc(8192, 'this is not a database '));
    const before = sha(store);
    const err = await openConfiguredStore(loadConfig(configPath)).then(
      () => undefined,
      (e: Error) => e,
    );
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
    old.exec('CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, time INTEGER NOT NULL)');
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

/** The schema the release before versioned migrations wrote (each module created its table). */
const PREVIOUS_RELEASE = `
CREATE TABLE embeddings (embedder TEXT NOT NULL, text_hash TEXT NOT NULL, dim INTEGER NOT NULL, vector BLOB NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (embedder, text_hash));
CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, time INTEGER NOT NULL, session_id TEXT NOT NULL, persona TEXT, user_id TEXT, tool TEXT NOT NULL, requested_name TEXT NOT NULL, args_json TEXT NOT NULL, decision TEXT NOT NULL, decisions TEXT NOT NULL, notes_json TEXT NOT NULL, upstream_ms REAL, outcome TEXT NOT NULL, detail TEXT);
CREATE TABLE approvals (id TEXT PRIMARY KEY, key TEXT NOT NULL, session_id TEXT NOT NULL, persona TEXT, user_id TEXT, tool TEXT NOT NULL, args_json TEXT NOT NULL, status TEXT NOT NULL, ttl_ms INTEGER NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, decided_at INTEGER, decided_by TEXT, used_at INTEGER, requested_name TEXT, proof TEXT);
CREATE INDEX approvals_key ON approvals (key, created_at);
CREATE TABLE tool_names (server TEXT NOT NULL, upstream_name TEXT NOT NULL, exposed TEXT NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (server, upstream_name));
CREATE TABLE oauth_state (upstream TEXT PRIMARY KEY, url TEXT NOT NULL, client_information TEXT, tokens TEXT, code_verifier TEXT, discovery TEXT, pending_scope TEXT, updated_at INTEGER NOT NULL);
INSERT INTO audit (time, session_id, tool, requested_name, args_json, decision, decisions, notes_json, outcome) VALUES (1, 's', 'get_fee_dues', 'get_fee_dues', '{}', 'allowed', '', '[]', 'ok');
INSERT INTO approvals (id, key, session_id, tool, args_json, status, ttl_ms, created_at, expires_at, decided_at, decided_by, used_at, proof)
  VALUES ('usedone1', 'k', 's', 'make_payment', '{}', 'used', 600000, 1, 9999999999999, 2, 'cli', 3, 'ed25519:x');
INSERT INTO tool_names VALUES ('a', 'search', 'search', 1);
INSERT INTO oauth_state (upstream, url, tokens, updated_at) VALUES ('secure', 'http://127.0.0.1:1/mcp', '{"access_token":"at"}', 5);
`;

describe('the SQLite file', () => {
  it('is created 0600, WAL and SHM too; an older, wider one is narrowed', async () => {
    const { store } = setup();
    const s = await openStore(store);
    await s.audit.record({ time: 1, sessionId: 's', tool: 't', requestedName: 't', args: {}, decision: 'allowed', decisions: [], notes: [], outcome: 'ok' });
    for (const f of [store, `${store}-wal`, `${store}-shm`]) expect(statSync(f).mode & 0o777, f).toBe(0o600);
    await s.close();
    chmodSync(store, 0o644);
    await (await openStore(store)).close();
    expect(statSync(store).mode & 0o777).toBe(0o600);
  });

  it('a store of the previous release is migrated in place, its rows kept', async () => {
    const { store } = setup();
    const old = new Database(store);
    old.pragma(`application_id = ${APPLICATION_ID}`);
    old.exec(PREVIOUS_RELEASE);
    old.close();
    const s = await openStore(store);
    expect((await s.audit.tail(5)).map((r) => r.tool)).toEqual(['get_fee_dues']);
    // A use recorded by the old status column is a use now: the approval cannot run again.
    expect(await s.approvals.get('usedone1')).toMatchObject({ status: 'used', usedAt: 3 });
    expect(await s.approvals.consume('usedone1')).toBe(false);
    expect(await s.names.load()).toEqual(new Map([['a\0search', 'search']]));
    expect(await s.oauth.get({ upstream: 'secure', url: 'http://127.0.0.1:1/mcp' }, 'tokens')).toBe('{"access_token":"at"}');
    await s.close();
    const check = new Database(store, { readonly: true });
    expect(check.prepare('SELECT MAX(version) AS v FROM schema_version').get()).toEqual({ v: SCHEMA_VERSION });
    check.close();
  });

  it('two processes opening a new file at once migrate it once', async () => {
    const { store } = setup();
    const both = await Promise.all([openStore(store), openStore(store)]);
    const check = new Database(store, { readonly: true });
    expect(check.prepare('SELECT version FROM schema_version ORDER BY version').all()).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }]);
    check.close();
    await Promise.all(both.map((s) => s.close()));
  });

  it('deleted under a running process: noticed and reported, nothing written into the unlinked file', async () => {
    const { store } = setup();
    const problems: string[] = [];
    const s = await openStore(store, { onProblem: (m) => problems.push(m) });
    await s.audit.record({ time: 1, sessionId: 's', tool: 't', requestedName: 't', args: {}, decision: 'allowed', decisions: [], notes: [], outcome: 'ok' });
    unlinkSync(store);
    const write = s.audit.record({ time: 2, sessionId: 's', tool: 't', requestedName: 't', args: {}, decision: 'allowed', decisions: [], notes: [], outcome: 'ok' });
    await expect(write).rejects.toThrow(StoreUnavailableError);
    await expect(write).rejects.toThrow(`store ${store} is unavailable: its file was deleted while this process ran`);
    await expect(s.ping()).rejects.toThrow(StoreUnavailableError);
    await expect(s.approvals.request({ key: 'k', sessionId: 's', tool: 't', args: {}, ttlMs: 1000 })).rejects.toThrow(StoreUnavailableError);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/its file was deleted while this process ran/);
    await s.close();
    expect(existsSync(store)).toBe(false);
  });
});

describe('CLI JSON output through a pipe', () => {
  it('audit --json is complete when the reader is slow (far past the 64 KiB pipe buffer)', async () => {
    const { store, configPath } = setup();
    const db = await openStore(store);
    const rows = 2000;
    for (let i = 0; i < rows; i++) {
      await db.audit.record({
        time: 1_700_000_000_000 + i, sessionId: `s${i}`, tool: 'get_fee_dues', requestedName: 'get_fee_dues',
        args: { note: 'x'.repeat(200), i }, decision: 'allowed', decisions: ['allowed'], notes: [], outcome: 'ok',
      });
    }
    await db.close();
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
