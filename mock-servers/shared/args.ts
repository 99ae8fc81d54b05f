/**
 * Input schemas shared by the eight servers. Identity fields are named exactly
 * `student_id`, `faculty_id`, `employee_id`: the gateway injects them from the session.
 * Each validator's message names the field and the expected form.
 */
import { z } from 'zod';

export const studentId = z.string().regex(/^S\d{4}$/, 'student_id must look like S0001 (S0001–S0200)');
export const facultyId = z.string().regex(/^F\d{3}$/, 'faculty_id must look like F001 (F001–F040)');
export const employeeId = z.string().regex(/^E\d{3}$/, 'employee_id must look like E001');
export const courseId = z.string().regex(/^[A-Z]{2}\d{3}$/, 'course_id must look like CS701').describe('Course code, e.g. CS701.');
export const isoDate = (field: string) => z.string().regex(/^\d{4}-\d{2}-\d{2}$/, `${field} must be a date written YYYY-MM-DD`);
export const term = z.string().regex(/^\d{4}-(ODD|EVEN)$/, 'term must look like 2025-ODD or 2024-EVEN');
export const userId = z.string().regex(/^(S\d{4}|F\d{3}|E\d{3})$/, 'user_id must be a student (S0001), faculty (F001) or staff (E001) id');
export const positiveId = (field: string) => z.number().int(`${field} must be a whole number`).positive(`${field} must be positive`);

/** The student the call is about or acts for. */
export const asStudent = { student_id: studentId.describe('Id of the student (S0001–S0200) the call is about; the signed-in student for self-service calls.') };
/** The teaching staff member acting. */
export const asFaculty = { faculty_id: facultyId.describe('Id of the faculty member (F001–F040) acting or asking.') };
/** The staff member acting; the tool checks their role. */
export const asEmployee = { employee_id: employeeId.describe('Id of the staff member (e.g. E016) performing the action; their role must permit it.') };
/** Library, events, grievances and IT serve students and faculty alike: exactly one is given. */
export const asMember = {
  student_id: studentId.optional().describe('Id of the student member (S0001–S0200). Give this or faculty_id, not both.'),
  faculty_id: facultyId.optional().describe('Id of the faculty member (F001–F040). Give this or student_id, not both.'),
};
