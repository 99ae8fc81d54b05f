/**
 * Attendance tools for instructors and leadership: marking a class, correcting a record,
 * class and course reports, shortage lists, condonation review, the marking log, trends,
 * department statistics and the correction audit trail.
 */
import { z } from 'zod';
import { asFaculty, courseId, isoDate, positiveId, studentId } from '../shared/args.js';
import { ATTENDANCE_MIN, CONDONATION_MIN, CURRENT_TERM, TEACHING_START, TODAY } from '../shared/fixture.js';
import { addDays, weekday } from '../shared/dates.js';
import { all, found, nowIso, one, requireCourse, requireFaculty, requireStudent, requireTeaches } from '../shared/lookup.js';
import { attendanceOf } from '../shared/rules.js';
import { defineTool, ToolError } from '../shared/tool.js';
import type { Db } from '../shared/db.js';

const department = z.enum(['CSE', 'ECE', 'MECH', 'CIVIL', 'EEE']);

/** Per-student, per-course percentages for every current enrolment (one query). */
function allPercentages(db: Db) {
  return all<{ student_id: string; course_id: string; held: number; attended: number; percentage: number; dept_id: string }>(db, `
    SELECT a.student_id, s.course_id, COUNT(*) AS held, SUM(a.status = 'present') AS attended,
           ROUND(100.0 * SUM(a.status = 'present') / COUNT(*), 1) AS percentage, st.dept_id
    FROM attendance a JOIN class_sessions s ON s.session_id = a.session_id JOIN students st ON st.student_id = a.student_id
    GROUP BY a.student_id, s.course_id`);
}

function sessionOf(db: Db, course: string, date: string): number {
  return found(one<{ session_id: number }>(db, 'SELECT session_id FROM class_sessions WHERE course_id = ? AND date = ?', course, date), `No class of ${course} was recorded on ${date}.`).session_id;
}

export const facultyTools = [
  defineTool({
    name: 'get_attendance_trend',
    description: 'Returns a student\'s attendance week by week this term across all courses (week start, classes, attended, percentage), to show whether it is improving or slipping.',
    input: { student_id: studentId.describe('Student whose trend is shown.') },
    run: ({ student_id }, db) => {
      requireStudent(db, student_id);
      return all(db, `SELECT date(s.date, 'weekday 1', '-7 days') AS week_start, COUNT(*) AS classes, SUM(a.status = 'present') AS attended,
        ROUND(100.0 * SUM(a.status = 'present') / COUNT(*), 1) AS percentage
        FROM attendance a JOIN class_sessions s ON s.session_id = a.session_id WHERE a.student_id = ? GROUP BY week_start ORDER BY week_start`, student_id);
    },
  }),
  defineTool({
    name: 'mark_attendance',
    description: 'Records attendance for a NEW class session of a course the faculty member teaches: every enrolled student is marked present except the listed absentees. Refuses if that date is already recorded; to change one student\'s existing record use update_attendance.',
    action: true,
    input: {
      ...asFaculty, course_id: courseId, date: isoDate('date').describe(`Class date, YYYY-MM-DD, a weekday from ${TEACHING_START} to today (${TODAY}).`),
      absent_student_ids: z.array(studentId).default([]).describe('Students absent from this class; everyone else enrolled is marked present.'),
    },
    run: ({ faculty_id, course_id, date, absent_student_ids }, db) => {
      requireTeaches(db, faculty_id, course_id);
      if (date < TEACHING_START || date > TODAY) throw new ToolError(`date ${date} is outside the term's classes (${TEACHING_START} to ${TODAY}).`);
      if (['Sat', 'Sun'].includes(weekday(date))) throw new ToolError(`date ${date} is a ${weekday(date)}; classes run Monday to Friday.`);
      if (one(db, 'SELECT 1 FROM class_sessions WHERE course_id = ? AND date = ?', course_id, date)) throw new ToolError(`Attendance for ${course_id} on ${date} is already recorded; use update_attendance to correct a student.`);
      const roster = all<{ student_id: string }>(db, "SELECT student_id FROM enrolments WHERE course_id = ? AND term = ? AND status = 'enrolled'", course_id, CURRENT_TERM).map((r) => r.student_id);
      const stray = absent_student_ids.filter((s) => !roster.includes(s));
      if (stray.length) throw new ToolError(`Not enrolled in ${course_id}: ${stray.join(', ')}.`);
      const session = Number(db.prepare('INSERT INTO class_sessions (course_id, date, marked_by, marked_at) VALUES (?, ?, ?, ?)').run(course_id, date, faculty_id, nowIso()).lastInsertRowid);
      const insert = db.prepare('INSERT INTO attendance (session_id, student_id, status) VALUES (?, ?, ?)');
      for (const s of roster) insert.run(session, s, absent_student_ids.includes(s) ? 'absent' : 'present');
      return { course_id, date, session_id: session, present: roster.length - absent_student_ids.length, absent: absent_student_ids.length };
    },
  }),
  defineTool({
    name: 'update_attendance',
    description: 'Corrects ONE student\'s EXISTING attendance record for a class already marked (e.g. absent to present after late arrival or on-duty), logging old and new status and the reason. Does not create a session: use mark_attendance for a new class.',
    action: true,
    input: {
      ...asFaculty, student_id: studentId.describe('Student whose record is corrected.'), course_id: courseId, date: isoDate('date').describe('Date of the class already recorded, YYYY-MM-DD.'),
      status: z.enum(['present', 'absent']).describe('Corrected status.'), reason: z.string().min(3, 'reason must say why the record changes').describe('Why the record changes; kept in the audit trail.'),
    },
    run: ({ faculty_id, student_id, course_id, date, status, reason }, db) => {
      requireTeaches(db, faculty_id, course_id);
      requireStudent(db, student_id);
      const session = sessionOf(db, course_id, date);
      const row = found(one<{ status: string }>(db, 'SELECT status FROM attendance WHERE session_id = ? AND student_id = ?', session, student_id), `${student_id} has no attendance record in ${course_id} on ${date}.`);
      if (row.status === status) throw new ToolError(`${student_id} is already marked ${status} in ${course_id} on ${date}.`);
      db.prepare('UPDATE attendance SET status = ? WHERE session_id = ? AND student_id = ?').run(status, session, student_id);
      db.prepare('INSERT INTO attendance_audit (session_id, student_id, old_status, new_status, reason, changed_by, changed_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(session, student_id, row.status, status, reason, faculty_id, nowIso());
      return { student_id, course_id, date, old_status: row.status, new_status: status, course_percentage: attendanceOf(db, student_id, course_id)[0]?.percentage };
    },
  }),
  defineTool({
    name: 'get_class_attendance',
    description: 'Returns the attendance sheet of one class session: each enrolled student\'s status on that date, with present and absent counts.',
    input: { course_id: courseId, date: isoDate('date').describe('Class date, YYYY-MM-DD.') },
    run: ({ course_id, date }, db) => {
      requireCourse(db, course_id);
      const session = sessionOf(db, course_id, date);
      const rows = all<{ status: string }>(db, 'SELECT a.student_id, s.name, a.status FROM attendance a JOIN students s ON s.student_id = a.student_id WHERE a.session_id = ? ORDER BY a.student_id', session);
      return { course_id, date, present: rows.filter((r) => r.status === 'present').length, absent: rows.filter((r) => r.status === 'absent').length, students: rows };
    },
  }),
  defineTool({
    name: 'get_course_attendance_report',
    description: `Returns attendance of every student in one course this term (held, attended, percentage), flagging those below ${ATTENDANCE_MIN}%, plus the class average.`,
    input: { course_id: courseId },
    run: ({ course_id }, db) => {
      requireCourse(db, course_id);
      const rows = allPercentages(db).filter((r) => r.course_id === course_id).map(({ dept_id: _d, ...r }) => ({ ...r, below_minimum: r.percentage < ATTENDANCE_MIN }));
      const avg = rows.length ? Math.round((10 * rows.reduce((s, r) => s + r.percentage, 0)) / rows.length) / 10 : null;
      return { course_id, term: CURRENT_TERM, students: rows.length, class_average: avg, below_minimum: rows.filter((r) => r.below_minimum).length, rows };
    },
  }),
  defineTool({
    name: 'get_attendance_shortage_list',
    description: `Returns every student below ${ATTENDANCE_MIN}% in any course this term (the exam debarment list), with the percentage and any condonation request, optionally for one course or department.`,
    input: { course_id: courseId.optional().describe('Only this course.'), department: department.optional().describe('Only students of this department.') },
    run: ({ course_id, department: d }, db) => {
      if (course_id) requireCourse(db, course_id);
      return allPercentages(db).filter((r) => r.percentage < ATTENDANCE_MIN && (!course_id || r.course_id === course_id) && (!d || r.dept_id === d))
        .map((r) => ({ ...r, condonable: r.percentage >= CONDONATION_MIN, condonation: one<{ status: string }>(db, 'SELECT status FROM condonation_requests WHERE student_id = ? AND course_id = ? ORDER BY request_id DESC LIMIT 1', r.student_id, r.course_id)?.status ?? null }));
    },
  }),
  defineTool({
    name: 'get_pending_condonation_requests',
    description: 'Returns the condonation requests awaiting a decision in the courses a faculty member teaches, each with the student\'s current attendance percentage.',
    input: { ...asFaculty },
    run: ({ faculty_id }, db) => {
      requireFaculty(db, faculty_id);
      return all<{ student_id: string; course_id: string }>(db, "SELECT r.request_id, r.student_id, r.course_id, r.reason, r.created_at FROM condonation_requests r JOIN courses c ON c.course_id = r.course_id WHERE c.faculty_id = ? AND r.status = 'pending' ORDER BY r.request_id", faculty_id)
        .map((r) => ({ ...r, attendance_percentage: attendanceOf(db, r.student_id, r.course_id)[0]?.percentage ?? null }));
    },
  }),
  defineTool({
    name: 'review_condonation_request',
    description: `Approves or rejects a pending attendance condonation request for a course the faculty member teaches. Approval needs at least ${CONDONATION_MIN}% attendance and restores exam eligibility for that course.`,
    action: true,
    input: { ...asFaculty, request_id: positiveId('request_id').describe('Condonation request id.'), decision: z.enum(['approve', 'reject']).describe('The decision.'), remarks: z.string().optional().describe('Note to the student.') },
    run: ({ faculty_id, request_id, decision, remarks }, db) => {
      const req = found(one<{ student_id: string; course_id: string; status: string }>(db, 'SELECT student_id, course_id, status FROM condonation_requests WHERE request_id = ?', request_id), `Unknown request_id ${request_id}: no such condonation request.`);
      requireTeaches(db, faculty_id, req.course_id);
      if (req.status !== 'pending') throw new ToolError(`Condonation request ${request_id} is already ${req.status}.`);
      const pct = attendanceOf(db, req.student_id, req.course_id)[0]?.percentage ?? 0;
      if (decision === 'approve' && pct < CONDONATION_MIN) throw new ToolError(`Cannot approve: attendance is ${pct}%, below the ${CONDONATION_MIN}% floor.`);
      const status = decision === 'approve' ? 'approved' : 'rejected';
      db.prepare('UPDATE condonation_requests SET status = ?, reviewed_by = ?, remarks = ? WHERE request_id = ?').run(status, faculty_id, remarks ?? null, request_id);
      return { request_id, student_id: req.student_id, course_id: req.course_id, status, attendance_percentage: pct };
    },
  }),
  defineTool({
    name: 'get_attendance_marking_log',
    description: 'Returns, for each course a faculty member teaches this term, the class sessions they recorded (date, present, absent) and the scheduled class days since the term began that have no attendance recorded yet.',
    input: { ...asFaculty },
    run: ({ faculty_id }, db) => {
      requireFaculty(db, faculty_id);
      const courses = all<{ course_id: string }>(db, 'SELECT course_id FROM courses WHERE faculty_id = ? AND semester % 2 = 1 ORDER BY course_id', faculty_id);
      return courses.map(({ course_id }) => {
        const sessions = all<{ date: string }>(db, `SELECT s.date, SUM(a.status = 'present') AS present, SUM(a.status = 'absent') AS absent FROM class_sessions s LEFT JOIN attendance a ON a.session_id = s.session_id
          WHERE s.course_id = ? GROUP BY s.session_id ORDER BY s.date`, course_id);
        const days = all<{ day: string }>(db, 'SELECT day FROM timetable WHERE course_id = ?', course_id).map((d) => d.day);
        const marked = new Set(sessions.map((s) => s.date));
        const unmarked: string[] = [];
        for (let d = TEACHING_START; d <= TODAY; d = addDays(d, 1)) if (days.includes(weekday(d)) && !marked.has(d) && !one(db, "SELECT 1 FROM calendar WHERE date = ? AND kind = 'holiday'", d)) unmarked.push(d);
        return { course_id, sessions_recorded: sessions.length, last_recorded: sessions.at(-1)?.date ?? null, unmarked_class_days: unmarked, recent_sessions: sessions.slice(-5) };
      });
    },
  }),
  defineTool({
    name: 'get_department_attendance_stats',
    description: `Returns attendance statistics per department this term: average attendance, students below ${ATTENDANCE_MIN}% in at least one course, and the three courses with the lowest average.`,
    input: { department: department.optional().describe('Only this department.') },
    run: ({ department: d }, db) => {
      const rows = allPercentages(db);
      const depts = d ? [d] : ['CSE', 'ECE', 'MECH', 'CIVIL', 'EEE'];
      return depts.map((dept) => {
        const mine = rows.filter((r) => r.dept_id === dept);
        const byCourse = new Map<string, number[]>();
        for (const r of mine) byCourse.set(r.course_id, [...(byCourse.get(r.course_id) ?? []), r.percentage]);
        const courseAvg = [...byCourse].map(([course_id, p]) => ({ course_id, average: Math.round((10 * p.reduce((a, b) => a + b, 0)) / p.length) / 10 })).sort((a, b) => a.average - b.average);
        return {
          department: dept, average_percentage: Math.round((10 * mine.reduce((s, r) => s + r.percentage, 0)) / Math.max(mine.length, 1)) / 10,
          students_below_minimum: new Set(mine.filter((r) => r.percentage < ATTENDANCE_MIN).map((r) => r.student_id)).size, lowest_courses: courseAvg.slice(0, 3),
        };
      });
    },
  }),
  defineTool({
    name: 'get_attendance_audit_trail',
    description: 'Returns the log of attendance corrections (who changed which student\'s record, old and new status, reason, when), optionally for one course or student.',
    input: { course_id: courseId.optional().describe('Only corrections in this course.'), student_id: studentId.optional().describe('Only corrections for this student.') },
    run: ({ course_id, student_id }, db) => all(db, `SELECT u.audit_id, u.student_id, s.course_id, s.date, u.old_status, u.new_status, u.reason, u.changed_by, u.changed_at
      FROM attendance_audit u JOIN class_sessions s ON s.session_id = u.session_id
      WHERE (@course IS NULL OR s.course_id = @course) AND (@student IS NULL OR u.student_id = @student) ORDER BY u.audit_id`, { course: course_id ?? null, student: student_id ?? null }),
  }),
];
