/**
 * Executive dashboards and analytics across the university: headline KPIs, enrolment,
 * faculty workload, grievances and student outcomes. Read-only aggregates over the
 * same rows the other servers write.
 */
import { z } from 'zod';
import { daysBetween } from '../shared/dates.js';
import { ATTENDANCE_MIN, CURRENT_TERM, NEXT_TERM, TODAY } from '../shared/fixture.js';
import { all, one } from '../shared/lookup.js';
import { cgpaOf, eligibilityOf } from '../shared/rules.js';
import { defineTool } from '../shared/tool.js';

const department = z.enum(['CSE', 'ECE', 'MECH', 'CIVIL', 'EEE']);
const pct = (a: number, b: number) => (b ? Math.round((1000 * a) / b) / 10 : null);

export const analyticsTools = [
  defineTool({
    name: 'get_executive_dashboard',
    description: 'Returns the university\'s headline KPIs on one screen: students, faculty, student-faculty ratio, average CGPA, average attendance, students barred from exams, fee collection rate, hostel occupancy, placement rate and open grievances.',
    input: {},
    run: (_a, db) => {
      const students = all<{ student_id: string; year: number }>(db, 'SELECT student_id, year FROM students');
      const faculty = one<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM faculty')!.n;
      const cgpas = students.map((s) => cgpaOf(db, s.student_id).cgpa).filter((c): c is number => c !== null);
      const att = one<{ p: number }>(db, "SELECT ROUND(100.0 * SUM(status = 'present') / COUNT(*), 1) AS p FROM attendance")!.p;
      const fees = one<{ billed: number; paid: number }>(db, 'SELECT SUM(amount) AS billed, SUM(paid) AS paid FROM invoices WHERE term = ?', CURRENT_TERM)!;
      const beds = one<{ n: number }>(db, 'SELECT SUM(capacity) AS n FROM hostel_rooms')!.n;
      const final = students.filter((s) => s.year === 4).length;
      return {
        as_of: TODAY, students: students.length, faculty, student_faculty_ratio: Math.round((10 * students.length) / faculty) / 10,
        average_cgpa: Math.round((100 * cgpas.reduce((a, b) => a + b, 0)) / cgpas.length) / 100, average_attendance_percent: att,
        students_barred_from_exams: students.filter((s) => !eligibilityOf(db, s.student_id).eligible).length,
        fee_collection_percent: pct(fees.paid, fees.billed),
        hostel_occupancy_percent: pct(one<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM hostel_allocations')!.n, beds),
        placement_percent: pct(one<{ n: number }>(db, "SELECT COUNT(DISTINCT student_id) AS n FROM offers WHERE status = 'accepted'")!.n, final),
        open_grievances: one<{ n: number }>(db, "SELECT COUNT(*) AS n FROM grievances WHERE status <> 'resolved'")!.n,
      };
    },
  }),
  defineTool({
    name: 'get_enrollment_analytics',
    description: `Returns enrolment analytics: students by department and year, intake by admission year, hostel residents versus day scholars, and elective registrations for the coming term ${NEXT_TERM}.`,
    input: { department: department.optional().describe('Only this department.') },
    run: ({ department: d }, db) => ({
      by_department_and_year: all(db, 'SELECT dept_id AS department, year, COUNT(*) AS students FROM students WHERE (@d IS NULL OR dept_id = @d) GROUP BY dept_id, year ORDER BY dept_id, year', { d: d ?? null }),
      intake_by_admission_year: all(db, 'SELECT admission_year, COUNT(*) AS students FROM students WHERE (@d IS NULL OR dept_id = @d) GROUP BY admission_year ORDER BY admission_year', { d: d ?? null }),
      residency: all(db, "SELECT CASE hostel_resident WHEN 1 THEN 'hostel resident' ELSE 'day scholar' END AS residency, COUNT(*) AS students FROM students WHERE (@d IS NULL OR dept_id = @d) GROUP BY hostel_resident", { d: d ?? null }),
      next_term_elective_registrations: one<{ n: number }>(db, "SELECT COUNT(*) AS n FROM enrolments e JOIN students s ON s.student_id = e.student_id WHERE e.term = @t AND e.status = 'enrolled' AND (@d IS NULL OR s.dept_id = @d)", { t: NEXT_TERM, d: d ?? null })!.n,
    }),
  }),
  defineTool({
    name: 'get_faculty_workload_analytics',
    description: 'Returns teaching workload per faculty member this term: courses, credit hours, students taught, advisees and invigilation duties, optionally for one department.',
    input: { department: department.optional().describe('Only this department.') },
    run: ({ department: d }, db) => all(db, `SELECT f.faculty_id, f.name, f.dept_id AS department, f.designation,
        (SELECT COUNT(*) FROM courses c WHERE c.faculty_id = f.faculty_id AND c.semester % 2 = 1) AS courses,
        (SELECT COALESCE(SUM(c.credits), 0) FROM courses c WHERE c.faculty_id = f.faculty_id AND c.semester % 2 = 1) AS credit_hours,
        (SELECT COUNT(*) FROM enrolments e JOIN courses c ON c.course_id = e.course_id WHERE c.faculty_id = f.faculty_id AND e.term = @t AND e.status = 'enrolled') AS students_taught,
        (SELECT COUNT(*) FROM students s WHERE s.advisor_id = f.faculty_id) AS advisees,
        (SELECT COUNT(*) FROM invigilation_duties i WHERE i.faculty_id = f.faculty_id) AS invigilation_duties
      FROM faculty f WHERE (@d IS NULL OR f.dept_id = @d) ORDER BY f.faculty_id`, { t: CURRENT_TERM, d: d ?? null }),
  }),
  defineTool({
    name: 'get_grievance_analytics',
    description: 'Returns grievance analytics: counts by category and status, average days to resolve, and unresolved grievances older than 14 days.',
    input: {},
    run: (_a, db) => {
      const resolved = all<{ created_at: string; resolved_at: string }>(db, "SELECT created_at, resolved_at FROM grievances WHERE status = 'resolved' AND resolved_at IS NOT NULL");
      const open = all<{ grievance_id: number; category: string; created_at: string }>(db, "SELECT grievance_id, category, created_at FROM grievances WHERE status <> 'resolved'");
      return {
        by_category: all(db, "SELECT category, COUNT(*) AS total, SUM(status <> 'resolved') AS unresolved FROM grievances GROUP BY category ORDER BY total DESC"),
        by_status: all(db, 'SELECT status, COUNT(*) AS count FROM grievances GROUP BY status'),
        average_days_to_resolve: resolved.length ? Math.round((10 * resolved.reduce((s, g) => s + daysBetween(g.created_at.slice(0, 10), g.resolved_at.slice(0, 10)), 0)) / resolved.length) / 10 : null,
        unresolved_over_14_days: open.filter((g) => daysBetween(g.created_at.slice(0, 10), TODAY) > 14),
      };
    },
  }),
  defineTool({
    name: 'get_student_outcome_analytics',
    description: `Returns student outcomes per department: average CGPA, share with CGPA 8 or above, backlog rate, share below ${ATTENDANCE_MIN}% attendance in some course, and final-year placement rate.`,
    input: {},
    run: (_a, db) => ['CSE', 'ECE', 'MECH', 'CIVIL', 'EEE'].map((dept) => {
      const ids = all<{ student_id: string; year: number }>(db, 'SELECT student_id, year FROM students WHERE dept_id = ?', dept);
      const stats = ids.map((s) => ({ ...s, ...cgpaOf(db, s.student_id), barred: eligibilityOf(db, s.student_id).courses.some((c) => c.percentage < ATTENDANCE_MIN) }));
      const graded = stats.filter((s) => s.cgpa !== null);
      const final = stats.filter((s) => s.year === 4);
      const placed = final.filter((s) => one(db, "SELECT 1 FROM offers WHERE student_id = ? AND status = 'accepted'", s.student_id)).length;
      return {
        department: dept, students: ids.length, average_cgpa: Math.round((100 * graded.reduce((a, s) => a + s.cgpa!, 0)) / graded.length) / 100,
        cgpa_8_plus_percent: pct(graded.filter((s) => s.cgpa! >= 8).length, graded.length), backlog_rate_percent: pct(stats.filter((s) => s.backlogs > 0).length, ids.length),
        attendance_shortage_percent: pct(stats.filter((s) => s.barred).length, ids.length), placement_percent: pct(placed, final.length),
      };
    }),
  }),
];
