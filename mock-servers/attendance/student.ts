/**
 * Attendance tools about one student: course-wise summary, session records, missed
 * classes, how many classes are needed to recover, the policy, and condonation.
 */
import { z } from 'zod';
import { asStudent, courseId } from '../shared/args.js';
import { ATTENDANCE_MIN, CONDONATION_MIN, CURRENT_TERM, LAST_TEACHING_DAY, TODAY } from '../shared/fixture.js';
import { addDays, weekday } from '../shared/dates.js';
import { all, nowIso, one, requireCourse, requireStudent } from '../shared/lookup.js';
import { attendanceOf } from '../shared/rules.js';
import { defineTool, ToolError } from '../shared/tool.js';
import type { Db } from '../shared/db.js';

/** Scheduled classes of a course after today up to the last teaching day. */
function remainingClasses(db: Db, course: string): number {
  const days = all<{ day: string }>(db, 'SELECT day FROM timetable WHERE course_id = ?', course).map((d) => d.day);
  let n = 0;
  for (let d = addDays(TODAY, 1); d <= LAST_TEACHING_DAY; d = addDays(d, 1)) if (days.includes(weekday(d))) n++;
  return n;
}

function enrolledAttendance(db: Db, studentId: string, course: string) {
  const att = attendanceOf(db, studentId, course);
  if (att.length === 0) throw new ToolError(`${studentId} is not enrolled in ${course} in ${CURRENT_TERM}.`);
  return att[0];
}

export const studentTools = [
  defineTool({
    name: 'get_attendance_summary',
    description: `Returns a student's attendance this term per course (classes held, attended, percentage) and overall, flagging every course below the ${ATTENDANCE_MIN}% minimum with its condonation status.`,
    input: { ...asStudent },
    run: ({ student_id }, db) => {
      requireStudent(db, student_id);
      const courses = attendanceOf(db, student_id).map((c) => ({
        ...c, below_minimum: c.percentage < ATTENDANCE_MIN,
        condonation: one<{ status: string }>(db, 'SELECT status FROM condonation_requests WHERE student_id = ? AND course_id = ? ORDER BY request_id DESC LIMIT 1', student_id, c.course_id)?.status ?? null,
      }));
      const held = courses.reduce((s, c) => s + c.classes_held, 0);
      const attended = courses.reduce((s, c) => s + c.classes_attended, 0);
      return { student_id, term: CURRENT_TERM, minimum_percentage: ATTENDANCE_MIN, overall_percentage: held ? Math.round((1000 * attended) / held) / 10 : null, courses };
    },
  }),
  defineTool({
    name: 'get_course_attendance',
    description: 'Returns a student\'s class-by-class attendance in ONE course this term: each session\'s date and present/absent status, with totals.',
    input: { ...asStudent, course_id: courseId },
    run: ({ student_id, course_id }, db) => {
      requireStudent(db, student_id);
      requireCourse(db, course_id);
      const totals = enrolledAttendance(db, student_id, course_id);
      const sessions = all(db, 'SELECT s.date, a.status FROM class_sessions s JOIN attendance a ON a.session_id = s.session_id WHERE s.course_id = ? AND a.student_id = ? ORDER BY s.date', course_id, student_id);
      return { ...totals, student_id, sessions };
    },
  }),
  defineTool({
    name: 'get_classes_needed_for_attendance',
    description: `Returns, per course, how many of the remaining classes (until ${LAST_TEACHING_DAY}) a student must attend to reach ${ATTENDANCE_MIN}%, and whether that is still possible.`,
    input: { ...asStudent, course_id: courseId.optional().describe('Only this course; all current courses if omitted.') },
    run: ({ student_id, course_id }, db) => {
      requireStudent(db, student_id);
      if (course_id) requireCourse(db, course_id);
      const rows = course_id ? [enrolledAttendance(db, student_id, course_id)] : attendanceOf(db, student_id);
      return rows.map((c) => {
        const remaining = remainingClasses(db, c.course_id);
        const needed = Math.max(0, Math.ceil((ATTENDANCE_MIN * c.classes_held - 100 * c.classes_attended) / (100 - ATTENDANCE_MIN)));
        return { course_id: c.course_id, percentage: c.percentage, remaining_classes: remaining, classes_needed: needed, reachable: needed <= remaining };
      });
    },
  }),
  defineTool({
    name: 'get_attendance_policy',
    description: 'Returns the university attendance rules: the minimum percentage per course, the condonation band and grounds, how medical absence is treated, and what happens below the minimum.',
    input: {},
    run: () => ({
      minimum_percentage_per_course: ATTENDANCE_MIN,
      condonation: { band: `${CONDONATION_MIN}% to below ${ATTENDANCE_MIN}%`, grounds: ['medical reasons with certificate', 'representing the university', 'bereavement in the family'], decided_by: 'the course instructor' },
      medical_absence: 'Counts as absence; submit a condonation request with the medical certificate.',
      below_minimum: 'Not eligible to write that course\'s end-semester examination; the course must be repeated.',
      last_teaching_day: LAST_TEACHING_DAY,
    }),
  }),
  defineTool({
    name: 'apply_for_attendance_condonation',
    description: `Files a condonation request for a course where the student's attendance is between ${CONDONATION_MIN}% and ${ATTENDANCE_MIN}%; the instructor decides. Returns the new request with its id.`,
    action: true,
    input: { ...asStudent, course_id: courseId, reason: z.string().min(10, 'reason must explain the absence in at least 10 characters').describe('Why the classes were missed, with any supporting document mentioned.') },
    run: ({ student_id, course_id, reason }, db) => {
      requireStudent(db, student_id);
      requireCourse(db, course_id);
      const att = enrolledAttendance(db, student_id, course_id);
      if (att.percentage >= ATTENDANCE_MIN) throw new ToolError(`${student_id}'s attendance in ${course_id} is ${att.percentage}%, already at or above ${ATTENDANCE_MIN}%; no condonation needed.`);
      if (att.percentage < CONDONATION_MIN) throw new ToolError(`${student_id}'s attendance in ${course_id} is ${att.percentage}%, below the ${CONDONATION_MIN}% floor for condonation.`);
      const open = one<{ request_id: number; status: string }>(db, "SELECT request_id, status FROM condonation_requests WHERE student_id = ? AND course_id = ? AND status IN ('pending', 'approved')", student_id, course_id);
      if (open) throw new ToolError(`Condonation request ${open.request_id} for ${course_id} is already ${open.status}.`);
      const id = db.prepare("INSERT INTO condonation_requests (student_id, course_id, reason, status, created_at) VALUES (?, ?, ?, 'pending', ?)").run(student_id, course_id, reason, nowIso()).lastInsertRowid;
      return { request_id: Number(id), student_id, course_id, attendance_percentage: att.percentage, status: 'pending' };
    },
  }),
  defineTool({
    name: 'get_condonation_status',
    description: 'Returns a student\'s attendance condonation requests with course, reason, status (pending, approved, rejected) and the reviewer\'s remarks.',
    input: { ...asStudent },
    run: ({ student_id }, db) => {
      requireStudent(db, student_id);
      return all(db, 'SELECT request_id, course_id, reason, status, reviewed_by, remarks, created_at FROM condonation_requests WHERE student_id = ? ORDER BY request_id', student_id);
    },
  }),
  defineTool({
    name: 'get_missed_classes',
    description: 'Returns the dates and courses of every class a student was marked absent for this term, optionally for one course.',
    input: { ...asStudent, course_id: courseId.optional().describe('Only this course.') },
    run: ({ student_id, course_id }, db) => {
      requireStudent(db, student_id);
      const rows = all(db, `SELECT s.date, s.course_id, c.title FROM attendance a JOIN class_sessions s ON s.session_id = a.session_id JOIN courses c ON c.course_id = s.course_id
        WHERE a.student_id = @student_id AND a.status = 'absent' AND (@course IS NULL OR s.course_id = @course) ORDER BY s.date`, { student_id, course: course_id ?? null });
      return { student_id, absences: rows.length, missed: rows };
    },
  }),
];
