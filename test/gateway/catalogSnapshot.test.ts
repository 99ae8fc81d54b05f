/**
 * The catalog snapshot beside the store: read back for the same upstreams, ignored for
 * other upstreams or a damaged file, and its age told in words.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolRecord } from '../../src/library/tools.js';
import type { LoadedConfig } from '../../src/config/load.js';
import { readSnapshot, snapshotAge, snapshotPath, writeSnapshot } from '../../src/gateway/catalogSnapshot.js';

function loaded(upstreams: Record<string, unknown>, store = '.tool-curator/store.db'): LoadedConfig {
  const dir = mkdtempSync(join(tmpdir(), 'tc-snapshot-'));
  return { file: join(dir, 'gateway.config.yaml'), baseDir: dir, config: { upstreams, store } } as unknown as LoadedConfig;
}

const TOOLS = [toolRecord({ name: 'get_fee_dues', description: 'Fee dues of a student', server: 'finance' }), toolRecord({ name: 'pay_fee', server: 'finance' })];

describe('catalog snapshot', () => {
  it('is read back for the same upstreams, with the time it was written', () => {
    const l = loaded({ finance: { command: 'node', args: ['finance.js'] } });
    const at = new Date('2026-12-01T10:00:00Z');
    writeSnapshot(l, TOOLS, at);
    expect(snapshotPath(l)).toBe(join(l.baseDir, '.tool-curator', 'catalog.json'));
    const back = readSnapshot(l)!;
    expect(back.writtenAt).toEqual(at);
    expect(back.tools).toEqual(TOOLS);
  });

  it('is ignored once the upstreams change, or when damaged', () => {
    const l = loaded({ finance: { command: 'node', args: ['finance.js'] } });
    writeSnapshot(l, TOOLS);
    const changed = { ...l, config: { ...l.config, upstreams: { finance: { command: 'node', args: ['finance-v2.js'] } } } } as LoadedConfig;
    expect(readSnapshot(changed)).toBeUndefined();
    writeFileSync(snapshotPath(l), '{"version":1,');
    expect(readSnapshot(l)).toBeUndefined();
  });

  it('lives beside a file store, and in .tool-curator beside the config for one that is not a file', () => {
    const file = loaded({}, 'data/tc.db');
    expect(snapshotPath(file)).toBe(join(file.baseDir, 'data', 'catalog.json'));
    const url = loaded({}, 'postgres://db.example/tc');
    expect(snapshotPath(url)).toBe(join(url.baseDir, '.tool-curator', 'catalog.json'));
  });

  it('says how old it is', () => {
    const now = new Date('2026-12-02T12:00:00Z');
    expect(snapshotAge(new Date('2026-12-02T11:59:20Z'), now)).toBe('40 s ago (2026-12-02 11:59 UTC)');
    expect(snapshotAge(new Date('2026-12-02T11:00:00Z'), now)).toBe('60 min ago (2026-12-02 11:00 UTC)');
    expect(snapshotAge(new Date('2026-12-02T09:00:00Z'), now)).toBe('3 h ago (2026-12-02 09:00 UTC)');
    expect(snapshotAge(new Date('2026-11-28T12:00:00Z'), now)).toBe('4 days ago (2026-11-28 12:00 UTC)');
  });
});
