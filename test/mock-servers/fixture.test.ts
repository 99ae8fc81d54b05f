/**
 * The shared fixture database: created at the documented path, seeded once,
 * deterministically, quickly, with the minimum sizes the issue asks for; an older
 * schema version is rebuilt rather than half-used.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openUniversityDb, universityDbPath, type Db } from '../../mock-servers/shared/db.js';
import { SCHEMA_VERSION } from '../../mock-servers/shared/schema.js';
import { ROOT } from './university.js';

const dir = mkdtempSync(join(tmpdir(), 'university-fixture-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TABLES = ['students', 'faculty', 'courses', 'enrolments', 'grades', 'internal_marks', 'attendance', 'invoices', 'payments', 'hostel_allocations', 'hostel_leaves', 'loans', 'library_fines', 'drives', 'drive_registrations', 'offers', 'grievances'];

function digest(db: Db): string {
  const h = createHash('sha256');
  for (const t of TABLES) h.update(JSON.stringify(db.prepare(`SELECT * FROM ${t} ORDER BY rowid`).raw().all()));
  return h.digest('hex');
}

const count = (db: Db, table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

describe('fixture database', () => {
  it('lives in .tool-curator/ under the repository root unless UNIVERSITY_DB says otherwise', () => {
    const saved = process.env.UNIVERSITY_DB;
    delete process.env.UNIVERSITY_DB;
    expect(universityDbPath()).toBe(join(ROOT, '.tool-curator', 'university.db'));
    process.env.UNIVERSITY_DB = join(dir, 'x.db');
    expect(universityDbPath()).toBe(join(dir, 'x.db'));
    if (saved === undefined) delete process.env.UNIVERSITY_DB;
    else process.env.UNIVERSITY_DB = saved;
  });

  // How long seeding takes is measured by `npm run bench`, not asserted here: timings fail under load.
  it('seeds at least 200 students, 40 faculty and 60 courses with their records', () => {
    const db = openUniversityDb(join(dir, 'a.db'));
    expect(count(db, 'students')).toBe(200);
    expect(count(db, 'faculty')).toBe(40);
    expect(count(db, 'courses')).toBe(60);
    for (const t of ['attendance', 'internal_marks', 'invoices', 'payments', 'hostel_allocations', 'loans', 'drive_registrations', 'offers']) expect(count(db, t), t).toBeGreaterThan(20);
    db.close();
  });

  it('seeds the same rows every time', () => {
    const a = openUniversityDb(join(dir, 'a.db'));
    const b = openUniversityDb(join(dir, 'b.db'));
    expect(digest(a)).toBe(digest(b));
    a.close();
    b.close();
  });

  it('reopens a current file without reseeding and rebuilds one from another schema version', () => {
    const path = join(dir, 'c.db');
    const first = openUniversityDb(path);
    first.prepare("UPDATE students SET name = 'Changed Name' WHERE student_id = 'S0001'").run();
    first.close();
    const again = openUniversityDb(path);
    expect((again.prepare("SELECT name FROM students WHERE student_id = 'S0001'").get() as { name: string }).name).toBe('Changed Name');
    again.prepare("UPDATE meta SET value = 'old' WHERE key = 'schema_version'").run();
    again.close();
    const rebuilt = openUniversityDb(path);
    expect((rebuilt.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string }).value).toBe(SCHEMA_VERSION);
    expect((rebuilt.prepare("SELECT name FROM students WHERE student_id = 'S0001'").get() as { name: string }).name).not.toBe('Changed Name');
    expect(count(rebuilt, 'students')).toBe(200);
    rebuilt.close();
  });
});
