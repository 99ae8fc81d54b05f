/**
 * Resolves ids to fixture rows or refuses with a message naming the unknown id. Every
 * handler goes through these, so "unknown id" errors read the same on all servers.
 */
import type { Db } from './db.js';
import { ToolError } from './errors.js';

export interface StudentRow {
  student_id: string; name: string; email: string; phone: string; dept_id: string; program: string;
  year: number; semester: number; section: string; admission_year: number; advisor_id: string;
  hostel_resident: number; family_income: number; guardian_name: string; guardian_phone: string; status: string;
}
export interface FacultyRow { faculty_id: string; name: string; email: string; dept_id: string; designation: string; office: string; specialization: string }
export interface CourseRow { course_id: string; title: string; dept_id: string; credits: number; semester: number; kind: string; faculty_id: string; capacity: number; description: string }

export function one<T>(db: Db, sql: string, ...params: unknown[]): T | undefined {
  return db.prepare(sql).get(...params) as T | undefined;
}

export function all<T>(db: Db, sql: string, ...params: unknown[]): T[] {
  return db.prepare(sql).all(...params) as T[];
}

export function requireStudent(db: Db, id: string): StudentRow {
  const row = one<StudentRow>(db, 'SELECT * FROM students WHERE student_id = ?', id);
  if (!row) throw new ToolError(`Unknown student_id '${id}': no such student (valid ids are S0001–S0200).`);
  return row;
}

export function requireFaculty(db: Db, id: string): FacultyRow {
  const row = one<FacultyRow>(db, 'SELECT * FROM faculty WHERE faculty_id = ?', id);
  if (!row) throw new ToolError(`Unknown faculty_id '${id}': no such faculty member (valid ids are F001–F040).`);
  return row;
}

export function requireCourse(db: Db, id: string): CourseRow {
  const row = one<CourseRow>(db, 'SELECT * FROM courses WHERE course_id = ?', id);
  if (!row) throw new ToolError(`Unknown course_id '${id}': no such course; list_courses shows the catalogue.`);
  return row;
}

/** The faculty member must teach the course. */
export function requireTeaches(db: Db, facultyId: string, courseId: string): CourseRow {
  requireFaculty(db, facultyId);
  const course = requireCourse(db, courseId);
  if (course.faculty_id !== facultyId) throw new ToolError(`${facultyId} does not teach ${courseId} (taught by ${course.faculty_id}).`);
  return course;
}

/** A staff member with one of `roles` (the `admin` role always qualifies). */
export function requireEmployee(db: Db, id: string, roles: string[]): { employee_id: string; name: string; title: string } {
  const row = one<{ employee_id: string; name: string; title: string }>(db, 'SELECT employee_id, name, title FROM employees WHERE employee_id = ?', id);
  if (!row) throw new ToolError(`Unknown employee_id '${id}': no such staff member.`);
  const held = all<{ role: string }>(db, "SELECT r.role FROM user_roles r JOIN users u ON u.user_id = r.user_id WHERE r.user_id = ? AND u.status = 'active'", id).map((r) => r.role);
  if (!held.includes('admin') && !roles.some((r) => held.includes(r))) {
    throw new ToolError(`${id} (${row.title}) is not authorised: this needs ${roles.length ? `the role ${roles.join(' or ')}, or admin` : 'the admin role'}.`);
  }
  return row;
}

/** Exactly one of student_id / faculty_id, resolved to an existing member id. */
export function requireMember(db: Db, args: { student_id?: string; faculty_id?: string }): string {
  if (args.student_id && args.faculty_id) throw new ToolError('Give either student_id or faculty_id, not both.');
  if (args.student_id) return requireStudent(db, args.student_id).student_id;
  if (args.faculty_id) return requireFaculty(db, args.faculty_id).faculty_id;
  throw new ToolError('Missing member: give student_id (students) or faculty_id (faculty).');
}

/** The row, or a ToolError with `message` when it is absent. */
export function found<T>(row: T | undefined, message: string): T {
  if (row === undefined) throw new ToolError(message);
  return row;
}

export function nowIso(): string {
  return new Date().toISOString();
}

/**
 * A request-like row (leave, refund, loan, offer...) that must belong to the caller:
 * refuses with "Unknown <key> <id>" or "<what> <id> belongs to another student|member".
 */
export function requireOwn<T>(db: Db, o: { table: string; key: string; id: number; ownerColumn: string; owner: string; what: string }): T {
  const row = found(one<T & Record<string, unknown>>(db, `SELECT * FROM ${o.table} WHERE ${o.key} = ?`, o.id), `Unknown ${o.key} ${o.id}: no such ${o.what.toLowerCase()}.`);
  if (row[o.ownerColumn] !== o.owner) throw new ToolError(`${o.what} ${o.id} belongs to another ${o.ownerColumn === 'student_id' ? 'student' : 'member'}.`);
  return row;
}
