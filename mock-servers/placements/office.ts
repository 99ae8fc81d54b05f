/**
 * Placement tools for the placement cell, faculty mentors and leadership: resumes,
 * interview schedules, companies, registrants, offers, mentee status and statistics.
 */
import { z } from 'zod';
import { asEmployee, asFaculty, studentId } from '../shared/args.js';
import { addDays } from '../shared/dates.js';
import { TODAY } from '../shared/fixture.js';
import { all, found, nowIso, one, requireEmployee, requireFaculty, requireStudent } from '../shared/lookup.js';
import { cgpaOf } from '../shared/rules.js';
import { defineTool, ToolError } from '../shared/tool.js';
import type { Db } from '../shared/db.js';
import { driveId, requireDrive } from './common.js';

const department = z.enum(['CSE', 'ECE', 'MECH', 'CIVIL', 'EEE']);

function finalYears(db: Db, dept?: string) {
  return all<{ student_id: string; name: string; dept_id: string }>(db, 'SELECT student_id, name, dept_id FROM students WHERE year = 4 AND (@d IS NULL OR dept_id = @d) ORDER BY student_id', { d: dept ?? null });
}

export const officeTools = [
  defineTool({
    name: 'get_resume',
    description: 'Returns a student\'s current placement resume (version, headline, skills, summary, last updated) as recruiters and mentors see it.',
    input: { student_id: studentId.describe('Student whose resume is shown.') },
    run: ({ student_id }, db) => {
      requireStudent(db, student_id);
      return found(one(db, 'SELECT * FROM resumes WHERE student_id = ?', student_id), `${student_id} has not uploaded a resume yet.`);
    },
  }),
  defineTool({
    name: 'get_interview_schedule',
    description: 'Returns the interview slots of a placement drive: each shortlisted student with date and time.',
    input: { drive_id: driveId },
    run: ({ drive_id }, db) => {
      const d = requireDrive(db, drive_id);
      return { drive_id, role: d.role, slots: all(db, "SELECT r.student_id, s.name, r.interview_slot FROM drive_registrations r JOIN students s ON s.student_id = r.student_id WHERE r.drive_id = ? AND r.interview_slot IS NOT NULL ORDER BY r.interview_slot", drive_id) };
    },
  }),
  defineTool({
    name: 'get_company_details',
    description: 'Returns a recruiting company\'s profile (sector, headquarters, website) with its drives here and the offers it has made.',
    input: { company_id: z.string().regex(/^C\d{2}$/, 'company_id must look like C01').describe('Company id, e.g. C06.') },
    run: ({ company_id }, db) => {
      const c = found(one<Record<string, unknown>>(db, 'SELECT * FROM companies WHERE company_id = ?', company_id), `Unknown company_id '${company_id}'.`);
      return { ...c, drives: all(db, 'SELECT drive_id, role, ctc_lpa, drive_date, status FROM drives WHERE company_id = ?', company_id), offers_made: one<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM offers o JOIN drives d ON d.drive_id = o.drive_id WHERE d.company_id = ?', company_id)!.n };
    },
  }),
  defineTool({
    name: 'get_drive_registrants',
    description: 'Returns the students registered for a placement drive with department, CGPA, backlogs and registration status, for the placement cell.',
    input: { drive_id: driveId },
    run: ({ drive_id }, db) => {
      requireDrive(db, drive_id);
      return all<{ student_id: string }>(db, 'SELECT r.student_id, s.name, s.dept_id AS department, r.status FROM drive_registrations r JOIN students s ON s.student_id = r.student_id WHERE r.drive_id = ? ORDER BY r.student_id', drive_id)
        .map((r) => ({ ...r, cgpa: cgpaOf(db, r.student_id).cgpa, backlogs: cgpaOf(db, r.student_id).backlogs }));
    },
  }),
  defineTool({
    name: 'record_placement_offer',
    description: 'Placement cell: records a company\'s job offer to a student registered for its drive; the offer is pending the student\'s response for 10 days.',
    action: true,
    input: { ...asEmployee, student_id: studentId.describe('Student receiving the offer.'), drive_id: driveId, ctc_lpa: z.number().positive('ctc_lpa must be positive').optional().describe('CTC in lakh per annum; defaults to the drive\'s CTC.') },
    run: ({ employee_id, student_id, drive_id, ctc_lpa }, db) => {
      requireEmployee(db, employee_id, ['placement_officer']);
      requireStudent(db, student_id);
      const d = requireDrive(db, drive_id);
      const r = found(one<{ status: string }>(db, 'SELECT status FROM drive_registrations WHERE student_id = ? AND drive_id = ?', student_id, drive_id), `${student_id} is not registered for ${drive_id}.`);
      if (r.status === 'withdrawn') throw new ToolError(`${student_id} withdrew from ${drive_id}.`);
      if (one(db, 'SELECT 1 FROM offers WHERE student_id = ? AND drive_id = ?', student_id, drive_id)) throw new ToolError(`${student_id} already has an offer from ${drive_id}.`);
      db.prepare("UPDATE drive_registrations SET status = 'selected' WHERE student_id = ? AND drive_id = ?").run(student_id, drive_id);
      const id = Number(db.prepare("INSERT INTO offers (student_id, drive_id, role, ctc_lpa, status, offered_on, respond_by) VALUES (?, ?, ?, ?, 'pending', ?, ?)").run(student_id, drive_id, d.role, ctc_lpa ?? d.ctc_lpa, nowIso().slice(0, 10), addDays(TODAY, 10)).lastInsertRowid);
      return { offer_id: id, student_id, drive_id, role: d.role, ctc_lpa: ctc_lpa ?? d.ctc_lpa, status: 'pending' };
    },
  }),
  defineTool({
    name: 'get_mentee_placement_status',
    description: 'Returns, for a faculty mentor\'s final-year advisees, each student\'s drive registrations, offers and whether they have accepted one.',
    input: { ...asFaculty },
    run: ({ faculty_id }, db) => {
      requireFaculty(db, faculty_id);
      return all<{ student_id: string }>(db, 'SELECT student_id, name, dept_id AS department FROM students WHERE advisor_id = ? AND year = 4 ORDER BY student_id', faculty_id).map((s) => ({
        ...s,
        registrations: one<{ n: number }>(db, "SELECT COUNT(*) AS n FROM drive_registrations WHERE student_id = ? AND status <> 'withdrawn'", s.student_id)!.n,
        offers: all(db, 'SELECT offer_id, role, ctc_lpa, status FROM offers WHERE student_id = ?', s.student_id),
        placed: !!one(db, "SELECT 1 FROM offers WHERE student_id = ? AND status = 'accepted'", s.student_id),
      }));
    },
  }),
  defineTool({
    name: 'get_placement_statistics',
    description: 'Returns placement statistics per department for the final-year batch: students, placed (accepted offer), placement percentage, offers made, average and highest CTC.',
    input: { department: department.optional().describe('Only this department.') },
    run: ({ department: d }, db) => {
      const students = finalYears(db, d);
      const depts = [...new Set(students.map((s) => s.dept_id))].sort();
      return depts.map((dept) => {
        const ids = students.filter((s) => s.dept_id === dept).map((s) => s.student_id);
        const offers = all<{ student_id: string; ctc_lpa: number; status: string }>(db, `SELECT student_id, ctc_lpa, status FROM offers WHERE student_id IN (${ids.map(() => '?').join(',')})`, ...ids);
        const placed = new Set(offers.filter((o) => o.status === 'accepted').map((o) => o.student_id)).size;
        const ctcs = offers.map((o) => o.ctc_lpa);
        return { department: dept, final_year_students: ids.length, placed, placement_percent: Math.round((1000 * placed) / ids.length) / 10, offers: offers.length, average_ctc_lpa: ctcs.length ? Math.round((10 * ctcs.reduce((a, b) => a + b, 0)) / ctcs.length) / 10 : null, highest_ctc_lpa: ctcs.length ? Math.max(...ctcs) : null };
      });
    },
  }),
  defineTool({
    name: 'get_placement_dashboard',
    description: 'Returns the placement season at a glance for leadership: drives by status, total offers and acceptances, overall placement percentage, top recruiters by offers, highest CTC and the next upcoming drives.',
    input: {},
    run: (_a, db) => {
      const fy = finalYears(db).length;
      const placed = one<{ n: number }>(db, "SELECT COUNT(DISTINCT student_id) AS n FROM offers WHERE status = 'accepted'")!.n;
      return {
        drives_by_status: all(db, 'SELECT status, COUNT(*) AS drives FROM drives GROUP BY status'),
        offers: one<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM offers')!.n, accepted: one<{ n: number }>(db, "SELECT COUNT(*) AS n FROM offers WHERE status = 'accepted'")!.n,
        placement_percent: Math.round((1000 * placed) / fy) / 10,
        top_recruiters: all(db, 'SELECT c.name, COUNT(*) AS offers FROM offers o JOIN drives d ON d.drive_id = o.drive_id JOIN companies c ON c.company_id = d.company_id GROUP BY c.company_id ORDER BY offers DESC LIMIT 3'),
        highest_ctc_lpa: one<{ m: number }>(db, 'SELECT MAX(ctc_lpa) AS m FROM offers')!.m,
        upcoming_drives: all(db, "SELECT d.drive_id, c.name AS company, d.role, d.drive_date FROM drives d JOIN companies c ON c.company_id = d.company_id WHERE d.drive_date >= ? ORDER BY d.drive_date LIMIT 5", TODAY),
      };
    },
  }),
  defineTool({
    name: 'get_unplaced_students',
    description: 'Returns final-year students without an accepted offer, with CGPA, backlogs, pending offers and how many drives they registered for, optionally for one department.',
    input: { department: department.optional().describe('Only this department.') },
    run: ({ department: d }, db) => finalYears(db, d)
      .filter((s) => !one(db, "SELECT 1 FROM offers WHERE student_id = ? AND status = 'accepted'", s.student_id))
      .map((s) => ({ ...s, ...cgpaOf(db, s.student_id), pending_offers: one<{ n: number }>(db, "SELECT COUNT(*) AS n FROM offers WHERE student_id = ? AND status = 'pending'", s.student_id)!.n, registrations: one<{ n: number }>(db, "SELECT COUNT(*) AS n FROM drive_registrations WHERE student_id = ? AND status <> 'withdrawn'", s.student_id)!.n })),
  }),
  defineTool({
    name: 'get_internship_applications',
    description: 'Returns internship applications across students for the placement cell, optionally for one internship or one student, with status.',
    input: { internship_id: z.string().regex(/^INT\d{2}$/, 'internship_id must look like INT02').optional().describe('Only this internship.'), student_id: studentId.optional().describe('Only this student.') },
    run: ({ internship_id, student_id }, db) => all(db, `SELECT a.application_id, a.internship_id, i.title, a.student_id, s.name, a.status, a.created_at FROM internship_applications a JOIN internships i ON i.internship_id = a.internship_id
      JOIN students s ON s.student_id = a.student_id WHERE (@i IS NULL OR a.internship_id = @i) AND (@s IS NULL OR a.student_id = @s) ORDER BY a.application_id`, { i: internship_id ?? null, s: student_id ?? null }),
  }),
];
