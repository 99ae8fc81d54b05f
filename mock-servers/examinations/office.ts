/**
 * Examination tools for faculty and the examinations office: timetable, seating,
 * invigilation, end-semester marks, result publication, hall-ticket override,
 * rescheduling, debarment list, revaluation queue and result analytics.
 */
import { z } from 'zod';
import { asEmployee, asFaculty, courseId, isoDate, studentId, term } from '../shared/args.js';
import { CURRENT_TERM, TODAY } from '../shared/fixture.js';
import { weekday } from '../shared/dates.js';
import { all, found, nowIso, one, requireCourse, requireEmployee, requireFaculty, requireStudent, requireTeaches } from '../shared/lookup.js';
import { eligibilityOf, gradeFor } from '../shared/rules.js';
import { defineTool, ToolError } from '../shared/tool.js';
import type { Db } from '../shared/db.js';

const examId = z.string().regex(/^[A-Z]{2}\d{3}-(END|SUP)$/, 'exam_id must look like CS701-END or ME301-SUP').describe('Exam id: course code plus -END (end-semester) or -SUP (supplementary).');
const department = z.enum(['CSE', 'ECE', 'MECH', 'CIVIL', 'EEE']);

function requireExam(db: Db, id: string) {
  return found(one<{ exam_id: string; course_id: string; kind: string; date: string; session: string; venue: string; term: string }>(db, 'SELECT * FROM exams WHERE exam_id = ?', id), `Unknown exam_id '${id}': no such exam; get_exam_timetable lists them.`);
}

function passStats(db: Db, t: string, dept?: string) {
  return all<{ course_id: string; title: string; students: number; passed: number; pass_rate: number; mean_points: number }>(db, `
    SELECT g.course_id, c.title, COUNT(*) AS students, SUM(g.grade <> 'F') AS passed, ROUND(100.0 * SUM(g.grade <> 'F') / COUNT(*), 1) AS pass_rate, ROUND(AVG(g.grade_points), 2) AS mean_points
    FROM grades g JOIN courses c ON c.course_id = g.course_id WHERE g.term = @t AND g.status = 'published' AND (@d IS NULL OR c.dept_id = @d) GROUP BY g.course_id ORDER BY g.course_id`, { t, d: dept ?? null });
}

export const officeTools = [
  defineTool({
    name: 'get_exam_timetable',
    description: `Returns the published examination timetable of the whole term (${CURRENT_TERM}) for every course, not one student's: exam id, course, kind, date, session and venue, optionally by kind or department.`,
    input: { kind: z.enum(['end_semester', 'supplementary']).optional().describe('Only this kind of exam.'), department: department.optional().describe('Only courses of this department.') },
    run: ({ kind, department: d }, db) => all(db, `SELECT x.exam_id, x.course_id, c.title, x.kind, x.date, x.session, x.venue FROM exams x JOIN courses c ON c.course_id = x.course_id
      WHERE x.term = @term AND (@kind IS NULL OR x.kind = @kind) AND (@d IS NULL OR c.dept_id = @d) ORDER BY x.date, x.session DESC, x.exam_id`, { term: CURRENT_TERM, kind: kind ?? null, d: d ?? null }),
  }),
  defineTool({
    name: 'get_exam_details',
    description: 'Returns one exam\'s record: course, kind, date, session, venue, number of registered candidates and the invigilators assigned.',
    input: { exam_id: examId },
    run: ({ exam_id }, db) => {
      const x = requireExam(db, exam_id);
      const candidates = one<{ n: number }>(db, "SELECT COUNT(*) AS n FROM exam_registrations WHERE exam_id = ? AND status = 'registered'", exam_id)!.n;
      return { ...x, candidates, invigilators: all(db, 'SELECT d.faculty_id, f.name, d.role, d.room FROM invigilation_duties d JOIN faculty f ON f.faculty_id = d.faculty_id WHERE d.exam_id = ?', exam_id) };
    },
  }),
  defineTool({
    name: 'get_exam_seating_plan',
    description: 'Returns the seating plan of one exam: every registered candidate with seat number and hall, in seat order.',
    input: { exam_id: examId },
    run: ({ exam_id }, db) => {
      const x = requireExam(db, exam_id);
      const rows = all<{ student_id: string; name: string }>(db, "SELECT r.student_id, s.name FROM exam_registrations r JOIN students s ON s.student_id = r.student_id WHERE r.exam_id = ? AND r.status = 'registered' ORDER BY r.student_id", exam_id);
      return { exam_id, venue: x.venue, date: x.date, session: x.session, seats: rows.map((r, i) => ({ seat: i + 1, ...r })) };
    },
  }),
  defineTool({
    name: 'get_invigilation_duties',
    description: 'Returns a faculty member\'s invigilation duties this term: exam, course, date, session, room and role (chief or assistant invigilator).',
    input: { ...asFaculty },
    run: ({ faculty_id }, db) => {
      requireFaculty(db, faculty_id);
      return all(db, 'SELECT d.duty_id, d.exam_id, x.course_id, x.date, x.session, d.room, d.role FROM invigilation_duties d JOIN exams x ON x.exam_id = d.exam_id WHERE d.faculty_id = ? ORDER BY x.date', faculty_id);
    },
  }),
  defineTool({
    name: 'submit_exam_marks',
    description: 'Enters or corrects END-SEMESTER examination marks (out of 100) for students of a course the faculty member teaches, before results are published. Not for internal assessment marks.',
    action: true,
    input: {
      ...asFaculty, course_id: courseId,
      marks: z.array(z.object({ student_id: studentId.describe('Student whose script was marked.'), marks: z.number().min(0, 'marks cannot be negative').max(100, 'end-semester marks are out of 100').describe('Marks out of 100.') })).min(1, 'marks must list at least one student').describe('One entry per student: student_id and marks out of 100.'),
    },
    run: ({ faculty_id, course_id, marks }, db) => {
      requireTeaches(db, faculty_id, course_id);
      const upsert = db.prepare('INSERT INTO exam_marks (student_id, course_id, term, marks, entered_by, entered_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET marks = excluded.marks, entered_by = excluded.entered_by, entered_at = excluded.entered_at');
      for (const m of marks) {
        requireStudent(db, m.student_id);
        if (!one(db, "SELECT 1 FROM enrolments WHERE student_id = ? AND course_id = ? AND term = ? AND status = 'enrolled'", m.student_id, course_id, CURRENT_TERM)) throw new ToolError(`${m.student_id} is not enrolled in ${course_id}.`);
        if (one(db, "SELECT 1 FROM grades WHERE student_id = ? AND course_id = ? AND term = ? AND status = 'published'", m.student_id, course_id, CURRENT_TERM)) throw new ToolError(`${m.student_id}'s result in ${course_id} is already published.`);
        upsert.run(m.student_id, course_id, CURRENT_TERM, m.marks, faculty_id, nowIso());
      }
      return { course_id, term: CURRENT_TERM, entered: marks.length };
    },
  }),
  defineTool({
    name: 'get_exam_marks_entry_status',
    description: 'Returns, for one course this term, how many enrolled students have end-semester marks and complete internal marks entered, and lists the students still missing each.',
    input: { course_id: courseId },
    run: ({ course_id }, db) => {
      requireCourse(db, course_id);
      const roster = all<{ student_id: string }>(db, "SELECT student_id FROM enrolments WHERE course_id = ? AND term = ? AND status = 'enrolled' ORDER BY student_id", course_id, CURRENT_TERM).map((r) => r.student_id);
      const exam = new Set(all<{ student_id: string }>(db, 'SELECT student_id FROM exam_marks WHERE course_id = ? AND term = ?', course_id, CURRENT_TERM).map((r) => r.student_id));
      const internal = new Set(all<{ student_id: string }>(db, 'SELECT student_id FROM internal_marks WHERE course_id = ? AND term = ? GROUP BY student_id HAVING COUNT(*) = 4', course_id, CURRENT_TERM).map((r) => r.student_id));
      return { course_id, enrolled: roster.length, end_semester_entered: exam.size, internal_complete: internal.size, missing_end_semester: roster.filter((s) => !exam.has(s)), missing_internal_components: roster.filter((s) => !internal.has(s)) };
    },
  }),
  defineTool({
    name: 'get_exam_result_statistics',
    description: 'Returns per-course result statistics of one term across many courses: candidates, passed, pass rate and mean grade points, optionally for one department. Defaults to the latest published term.',
    input: { term: term.optional().describe('Term such as 2025-EVEN; defaults to the latest published term.'), department: department.optional().describe('Only this department\'s courses.') },
    run: ({ term: t, department: d }, db) => {
      const chosen = t ?? one<{ term: string }>(db, "SELECT MAX(term) AS term FROM grades WHERE status = 'published'")!.term;
      return { term: chosen, courses: passStats(db, chosen, d) };
    },
  }),
  defineTool({
    name: 'get_exam_performance_dashboard',
    description: 'Returns the examinations dashboard for leadership: latest term\'s overall pass rate, best and worst courses by pass rate, students with backlogs, students barred from this term\'s exams, and revaluation requests by status.',
    input: {},
    run: (_args, db) => {
      const t = one<{ term: string }>(db, "SELECT MAX(term) AS term FROM grades WHERE status = 'published'")!.term;
      const stats = passStats(db, t);
      const total = stats.reduce((s, c) => s + c.students, 0);
      const sorted = [...stats].sort((a, b) => b.pass_rate - a.pass_rate);
      const barred = all<{ student_id: string }>(db, 'SELECT student_id FROM students').filter((s) => !eligibilityOf(db, s.student_id).eligible).length;
      return {
        latest_term: t, overall_pass_rate: Math.round((1000 * stats.reduce((s, c) => s + c.passed, 0)) / total) / 10,
        best_courses: sorted.slice(0, 3), worst_courses: sorted.slice(-3).reverse(),
        students_with_backlogs: one<{ n: number }>(db, "SELECT COUNT(DISTINCT student_id) AS n FROM grades WHERE grade = 'F' AND status = 'published'")!.n,
        students_barred_this_term: barred, revaluation_requests: all(db, 'SELECT status, COUNT(*) AS count FROM revaluation_requests GROUP BY status'),
      };
    },
  }),
  defineTool({
    name: 'list_ineligible_students',
    description: 'Returns the students barred from this term\'s end-semester exams with each reason (attendance shortage per course, fee dues), optionally for one department or course.',
    input: { department: department.optional().describe('Only students of this department.'), course_id: courseId.optional().describe('Only students barred in this course.') },
    run: ({ department: d, course_id }, db) => {
      if (course_id) requireCourse(db, course_id);
      return all<{ student_id: string; name: string; dept_id: string }>(db, 'SELECT student_id, name, dept_id FROM students WHERE (@d IS NULL OR dept_id = @d) ORDER BY student_id', { d: d ?? null })
        .map((s) => ({ ...s, e: eligibilityOf(db, s.student_id) }))
        .filter(({ e }) => !e.eligible && (!course_id || e.courses.some((c) => c.course_id === course_id && !c.eligible)))
        .map(({ e, ...s }) => ({ ...s, fees_outstanding: e.fees_outstanding, reasons: e.reasons, hall_ticket_override: e.hall_ticket_override }));
    },
  }),
  defineTool({
    name: 'get_revaluation_queue',
    description: 'Returns all revaluation requests across students for the examinations office, optionally by status, with student, course, term and date.',
    input: { status: z.enum(['pending', 'cancelled', 'completed - grade unchanged', 'completed - grade revised']).optional().describe('Only requests with this status.') },
    run: ({ status }, db) => all(db, 'SELECT request_id, student_id, course_id, term, fee, status, created_at FROM revaluation_requests WHERE (@s IS NULL OR status = @s) ORDER BY request_id', { s: status ?? null }),
  }),
  defineTool({
    name: 'issue_hall_ticket',
    description: 'Examinations office override: issues a student\'s hall ticket for this term although they are not eligible (e.g. dues cleared offline, condonation by the dean). Records who issued it and why.',
    action: true,
    input: { ...asEmployee, student_id: studentId.describe('Student who receives the hall ticket.'), reason: z.string().min(5, 'reason must justify the override').describe('Why the ticket is issued despite ineligibility.') },
    run: ({ employee_id, student_id, reason }, db) => {
      requireEmployee(db, employee_id, ['exam_controller']);
      requireStudent(db, student_id);
      const e = eligibilityOf(db, student_id);
      if (e.hall_ticket_override) throw new ToolError(`${student_id} already has an override hall ticket for ${CURRENT_TERM}.`);
      if (e.eligible) throw new ToolError(`${student_id} is eligible; the hall ticket is issued automatically (get_hall_ticket).`);
      db.prepare('INSERT INTO hall_ticket_overrides (student_id, term, issued_by, reason, issued_at) VALUES (?, ?, ?, ?, ?)').run(student_id, CURRENT_TERM, employee_id, reason, nowIso());
      return { student_id, term: CURRENT_TERM, ticket_number: `HT-${CURRENT_TERM}-${student_id}`, overridden_reasons: e.reasons, issued_by: employee_id };
    },
  }),
  defineTool({
    name: 'reschedule_exam',
    description: 'Moves an exam to a new date and session, checking the date is a future weekday and the hall has no other exam in that slot. Returns old and new slot.',
    action: true,
    input: { ...asEmployee, exam_id: examId, date: isoDate('date').describe('New date, YYYY-MM-DD, after today.'), session: z.enum(['FN', 'AN']).describe('FN (forenoon) or AN (afternoon).'), reason: z.string().min(3, 'reason is required').describe('Why the exam moves.') },
    run: ({ employee_id, exam_id, date, session, reason }, db) => {
      requireEmployee(db, employee_id, ['exam_controller']);
      const x = requireExam(db, exam_id);
      if (date <= TODAY) throw new ToolError(`date ${date} must be after today (${TODAY}).`);
      if (['Sat', 'Sun'].includes(weekday(date))) throw new ToolError(`date ${date} is a ${weekday(date)}; exams run Monday to Friday.`);
      const clash = one<{ exam_id: string }>(db, 'SELECT exam_id FROM exams WHERE venue = ? AND date = ? AND session = ? AND exam_id <> ?', x.venue, date, session, exam_id);
      if (clash) throw new ToolError(`${x.venue} already holds ${clash.exam_id} on ${date} ${session}.`);
      db.prepare('UPDATE exams SET date = ?, session = ? WHERE exam_id = ?').run(date, session, exam_id);
      return { exam_id, from: { date: x.date, session: x.session }, to: { date, session }, reason };
    },
  }),
  defineTool({
    name: 'publish_exam_results',
    description: 'Publishes this term\'s results of one course: submitted final grades are published as they are; otherwise the grade is computed from internal marks (40) and end-semester marks scaled to 60. Students with neither stay unpublished and are listed.',
    action: true,
    input: { ...asEmployee, course_id: courseId },
    run: ({ employee_id, course_id }, db) => {
      requireEmployee(db, employee_id, ['exam_controller']);
      requireCourse(db, course_id);
      const roster = all<{ student_id: string }>(db, "SELECT student_id FROM enrolments WHERE course_id = ? AND term = ? AND status = 'enrolled'", course_id, CURRENT_TERM).map((r) => r.student_id);
      const published: Array<{ student_id: string; grade: string }> = [];
      const pending: string[] = [];
      for (const sid of roster) {
        const g = one<{ grade: string; status: string }>(db, 'SELECT grade, status FROM grades WHERE student_id = ? AND course_id = ? AND term = ?', sid, course_id, CURRENT_TERM);
        if (g?.status === 'published') continue;
        if (g) {
          db.prepare("UPDATE grades SET status = 'published' WHERE student_id = ? AND course_id = ? AND term = ?").run(sid, course_id, CURRENT_TERM);
          published.push({ student_id: sid, grade: g.grade });
          continue;
        }
        const exam = one<{ marks: number }>(db, 'SELECT marks FROM exam_marks WHERE student_id = ? AND course_id = ? AND term = ?', sid, course_id, CURRENT_TERM);
        if (!exam) { pending.push(sid); continue; }
        const internal = one<{ total: number }>(db, 'SELECT COALESCE(SUM(marks), 0) AS total FROM internal_marks WHERE student_id = ? AND course_id = ? AND term = ?', sid, course_id, CURRENT_TERM)!.total;
        const { grade, points } = gradeFor(Math.round(internal + exam.marks * 0.6));
        db.prepare("INSERT INTO grades (student_id, course_id, term, grade, grade_points, status, submitted_by) VALUES (?, ?, ?, ?, ?, 'published', ?)").run(sid, course_id, CURRENT_TERM, grade, points, employee_id);
        published.push({ student_id: sid, grade });
      }
      if (published.length === 0) throw new ToolError(`Nothing to publish for ${course_id}: no submitted grades or end-semester marks that are not already published.`);
      return { course_id, term: CURRENT_TERM, published: published.length, not_published_missing_marks: pending, grades: published };
    },
  }),
];
