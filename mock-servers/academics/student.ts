/**
 * Academics tools a student uses about their own record: profile, courses and
 * registration, grades, CGPA, internal marks, timetable, syllabus, calendar.
 */
import { z } from 'zod';
import { asStudent, courseId, term } from '../shared/args.js';
import { CURRENT_TERM, MAX_ELECTIVES_PER_TERM, NEXT_TERM, REGISTRATION_CLOSES, TODAY } from '../shared/fixture.js';
import { all, one, requireCourse, requireStudent } from '../shared/lookup.js';
import { attendanceOf, cgpaOf } from '../shared/rules.js';
import { defineTool, ToolError } from '../shared/tool.js';

export function internalMarks(db: Parameters<typeof requireStudent>[0], studentId: string, course?: string) {
  return all<{ course_id: string; component: string; marks: number; max_marks: number; updated_at: string }>(db,
    `SELECT course_id, component, marks, max_marks, updated_at FROM internal_marks WHERE student_id = ? AND term = ? ${course ? 'AND course_id = ?' : ''} ORDER BY course_id, component`,
    ...[studentId, CURRENT_TERM, ...(course ? [course] : [])]);
}

export const studentTools = [
  defineTool({
    name: 'get_student_profile',
    description: 'Returns a student\'s personal and programme record: name, email, phone, department, programme, year, semester, section, faculty advisor, hostel residency and guardian contact. Contains no grades or attendance.',
    input: { ...asStudent },
    run: ({ student_id }, db) => {
      const s = requireStudent(db, student_id);
      const advisor = one<{ name: string }>(db, 'SELECT name FROM faculty WHERE faculty_id = ?', s.advisor_id);
      return { ...s, hostel_resident: s.hostel_resident === 1, advisor_name: advisor?.name };
    },
  }),
  defineTool({
    name: 'list_courses',
    description: 'Returns the course catalogue: code, title, department, credits, semester, core or elective, and instructor, optionally filtered. The catalogue is every course offered, not what a student is enrolled in.',
    input: {
      department: z.enum(['CSE', 'ECE', 'MECH', 'CIVIL', 'EEE']).optional().describe('Department code to filter by.'),
      semester: z.number().int().min(1).max(8).optional().describe('Semester (1–8) the course belongs to.'),
      kind: z.enum(['core', 'elective']).optional().describe('Only core or only elective courses.'),
    },
    run: ({ department, semester, kind }, db) => all(db, `
      SELECT c.course_id, c.title, c.dept_id AS department, c.credits, c.semester, c.kind, f.name AS instructor
      FROM courses c JOIN faculty f ON f.faculty_id = c.faculty_id
      WHERE (@department IS NULL OR c.dept_id = @department) AND (@semester IS NULL OR c.semester = @semester) AND (@kind IS NULL OR c.kind = @kind)
      ORDER BY c.course_id`, { department: department ?? null, semester: semester ?? null, kind: kind ?? null }),
  }),
  defineTool({
    name: 'get_course_details',
    description: 'Returns one course\'s catalogue entry with its instructor, weekly class slots and rooms, and current-term enrolment against capacity.',
    input: { course_id: courseId },
    run: ({ course_id }, db) => {
      const c = requireCourse(db, course_id);
      const instructor = one<{ faculty_id: string; name: string; email: string }>(db, 'SELECT faculty_id, name, email FROM faculty WHERE faculty_id = ?', c.faculty_id);
      const slots = all(db, 'SELECT day, start_time, end_time, room FROM timetable WHERE course_id = ?', course_id);
      const enrolled = one<{ n: number }>(db, "SELECT COUNT(*) AS n FROM enrolments WHERE course_id = ? AND term = ? AND status = 'enrolled'", course_id, CURRENT_TERM)!.n;
      return { ...c, instructor, weekly_slots: slots, current_enrolment: enrolled };
    },
  }),
  defineTool({
    name: 'get_enrolled_courses',
    description: 'Returns the courses a student is registered for in one term (code, title, credits, core or elective, instructor, registration status). Registration only: no marks, grades or attendance.',
    input: { ...asStudent, term: term.optional().describe(`Term such as ${CURRENT_TERM} (default) or ${NEXT_TERM} for coming-term registrations.`) },
    run: ({ student_id, term: t }, db) => {
      requireStudent(db, student_id);
      const rows = all(db, `SELECT e.course_id, c.title, c.credits, c.kind, f.name AS instructor, e.status, e.enrolled_on
        FROM enrolments e JOIN courses c ON c.course_id = e.course_id JOIN faculty f ON f.faculty_id = c.faculty_id
        WHERE e.student_id = ? AND e.term = ? ORDER BY e.course_id`, student_id, t ?? CURRENT_TERM);
      return { student_id, term: t ?? CURRENT_TERM, courses: rows };
    },
  }),
  defineTool({
    name: 'enroll_in_course',
    description: `Registers a student for an elective of the coming term ${NEXT_TERM} (registration closes ${REGISTRATION_CLOSES}). The course must be an elective of the student's next semester with seats left; at most ${MAX_ELECTIVES_PER_TERM} electives per term. Returns the registration.`,
    action: true,
    input: { ...asStudent, course_id: courseId },
    run: ({ student_id, course_id }, db) => {
      const s = requireStudent(db, student_id);
      const c = requireCourse(db, course_id);
      if (TODAY > REGISTRATION_CLOSES) throw new ToolError(`Registration for ${NEXT_TERM} closed on ${REGISTRATION_CLOSES}.`);
      if (c.kind !== 'elective' || c.semester !== s.semester + 1) {
        throw new ToolError(`${course_id} is a ${c.kind} course of semester ${c.semester}; ${student_id} can register only for electives of semester ${s.semester + 1} (list_courses with kind=elective).`);
      }
      const existing = one<{ status: string }>(db, 'SELECT status FROM enrolments WHERE student_id = ? AND course_id = ? AND term = ?', student_id, course_id, NEXT_TERM);
      if (existing?.status === 'enrolled') throw new ToolError(`${student_id} is already registered for ${course_id} in ${NEXT_TERM}.`);
      const mine = one<{ n: number }>(db, "SELECT COUNT(*) AS n FROM enrolments WHERE student_id = ? AND term = ? AND status = 'enrolled'", student_id, NEXT_TERM)!.n;
      if (mine >= MAX_ELECTIVES_PER_TERM) throw new ToolError(`${student_id} already holds ${mine} electives for ${NEXT_TERM}; drop one first.`);
      const taken = one<{ n: number }>(db, "SELECT COUNT(*) AS n FROM enrolments WHERE course_id = ? AND term = ? AND status = 'enrolled'", course_id, NEXT_TERM)!.n;
      if (taken >= c.capacity) throw new ToolError(`${course_id} is full (${c.capacity} seats).`);
      db.prepare("INSERT INTO enrolments (student_id, course_id, term, status, enrolled_on) VALUES (?, ?, ?, 'enrolled', ?) ON CONFLICT DO UPDATE SET status = 'enrolled', enrolled_on = excluded.enrolled_on")
        .run(student_id, course_id, NEXT_TERM, TODAY);
      return { student_id, course_id, title: c.title, term: NEXT_TERM, status: 'enrolled', seats_left: c.capacity - taken - 1 };
    },
  }),
  defineTool({
    name: 'drop_course',
    description: `Withdraws a student's registration for a course of the coming term ${NEXT_TERM}. Current-term courses cannot be dropped after the add/drop deadline (2025-08-18). Returns the dropped registration.`,
    action: true,
    destructive: true,
    input: { ...asStudent, course_id: courseId },
    run: ({ student_id, course_id }, db) => {
      requireStudent(db, student_id);
      requireCourse(db, course_id);
      const row = one<{ status: string }>(db, 'SELECT status FROM enrolments WHERE student_id = ? AND course_id = ? AND term = ?', student_id, course_id, NEXT_TERM);
      if (!row || row.status !== 'enrolled') {
        const current = one(db, "SELECT 1 FROM enrolments WHERE student_id = ? AND course_id = ? AND term = ? AND status = 'enrolled'", student_id, course_id, CURRENT_TERM);
        throw new ToolError(current ? `${course_id} is a current-term (${CURRENT_TERM}) course; the add/drop deadline 2025-08-18 has passed.` : `${student_id} is not registered for ${course_id} in ${NEXT_TERM}.`);
      }
      db.prepare("UPDATE enrolments SET status = 'dropped' WHERE student_id = ? AND course_id = ? AND term = ?").run(student_id, course_id, NEXT_TERM);
      return { student_id, course_id, term: NEXT_TERM, status: 'dropped' };
    },
  }),
  defineTool({
    name: 'get_grades',
    description: 'Returns a student\'s published letter grades and grade points per course, grouped by term, for all terms or one. Grades only: no marks breakdown, no CGPA.',
    input: { ...asStudent, term: term.optional().describe('Only this term, e.g. 2024-EVEN; all terms if omitted.') },
    run: ({ student_id, term: t }, db) => {
      requireStudent(db, student_id);
      const rows = all<{ term: string }>(db, `SELECT g.term, g.course_id, c.title, c.credits, g.grade, g.grade_points FROM grades g JOIN courses c ON c.course_id = g.course_id
        WHERE g.student_id = @student_id AND g.status = 'published' AND (@term IS NULL OR g.term = @term) ORDER BY g.term, g.course_id`, { student_id, term: t ?? null });
      if (t && rows.length === 0) throw new ToolError(`No published grades for ${student_id} in ${t}.`);
      return { student_id, grades: rows };
    },
  }),
  defineTool({
    name: 'get_cgpa',
    description: 'Returns only a student\'s cumulative grade point average on the 10-point scale, with credits attempted and earned. One number, not per-course or per-term detail.',
    input: { ...asStudent },
    run: ({ student_id }, db) => {
      requireStudent(db, student_id);
      const c = cgpaOf(db, student_id);
      return { student_id, cgpa: c.cgpa, scale: 10, credits_attempted: c.credits_attempted, credits_earned: c.credits_earned, note: c.cgpa === null ? 'no completed terms yet' : undefined };
    },
  }),
  defineTool({
    name: 'get_course_performance_summary',
    description: 'Returns how a student is doing in ONE course this term: each internal assessment component, the internal total, attendance percentage, end-semester marks if entered, and the grade if published.',
    input: { ...asStudent, course_id: courseId },
    run: ({ student_id, course_id }, db) => {
      requireStudent(db, student_id);
      const c = requireCourse(db, course_id);
      const att = attendanceOf(db, student_id, course_id);
      if (att.length === 0) throw new ToolError(`${student_id} is not enrolled in ${course_id} in ${CURRENT_TERM}.`);
      const marks = internalMarks(db, student_id, course_id);
      const exam = one<{ marks: number }>(db, 'SELECT marks FROM exam_marks WHERE student_id = ? AND course_id = ? AND term = ?', student_id, course_id, CURRENT_TERM);
      const grade = one<{ grade: string; status: string }>(db, 'SELECT grade, status FROM grades WHERE student_id = ? AND course_id = ? AND term = ?', student_id, course_id, CURRENT_TERM);
      return {
        student_id, course_id, title: c.title, term: CURRENT_TERM, internal_components: marks,
        internal_total: marks.reduce((s, m) => s + m.marks, 0), internal_max: 40,
        attendance: att[0], end_semester_marks: exam?.marks ?? null, grade: grade?.status === 'published' ? grade.grade : null,
      };
    },
  }),
  defineTool({
    name: 'get_student_academic_summary',
    description: 'Returns a student\'s whole academic standing in one record: programme, year, CGPA, SGPA of every completed term, credits earned, open backlogs, current course load and academic standing (good standing, probation). Broader than get_cgpa; not about one course.',
    input: { ...asStudent },
    run: ({ student_id }, db) => {
      const s = requireStudent(db, student_id);
      const c = cgpaOf(db, student_id);
      const sgpa = all(db, `SELECT g.term, ROUND(SUM(c.credits * g.grade_points) * 1.0 / SUM(c.credits), 2) AS sgpa, SUM(c.credits) AS credits
        FROM grades g JOIN courses c ON c.course_id = g.course_id WHERE g.student_id = ? AND g.status = 'published' GROUP BY g.term ORDER BY g.term`, student_id);
      const backlogs = all(db, "SELECT course_id, term FROM grades WHERE student_id = ? AND grade = 'F' AND status = 'published'", student_id);
      const load = one<{ n: number; credits: number }>(db, "SELECT COUNT(*) AS n, COALESCE(SUM(c.credits), 0) AS credits FROM enrolments e JOIN courses c ON c.course_id = e.course_id WHERE e.student_id = ? AND e.term = ? AND e.status = 'enrolled'", student_id, CURRENT_TERM)!;
      const standing = c.cgpa === null ? 'first term' : c.cgpa < 5 ? 'academic probation' : backlogs.length ? 'good standing with backlogs' : 'good standing';
      return { student_id, name: s.name, program: s.program, year: s.year, semester: s.semester, cgpa: c.cgpa, credits_earned: c.credits_earned, sgpa_by_term: sgpa, backlogs, current_courses: load.n, current_credits: load.credits, standing };
    },
  }),
  defineTool({
    name: 'get_internal_assessment_marks',
    description: 'Returns a student\'s continuous internal assessment marks this term (quiz1, quiz2, assignment, midterm; out of 40 per course) for all current courses or one. Components not yet entered are absent.',
    input: { ...asStudent, course_id: courseId.optional().describe('Only this course, e.g. CS701; all current courses if omitted.') },
    run: ({ student_id, course_id }, db) => {
      requireStudent(db, student_id);
      if (course_id) requireCourse(db, course_id);
      return { student_id, term: CURRENT_TERM, marks: internalMarks(db, student_id, course_id) };
    },
  }),
  defineTool({
    name: 'get_timetable',
    description: 'Returns a student\'s weekly class timetable for the current term: day, start and end time, course and room, optionally for one day.',
    input: { ...asStudent, day: z.enum(['Mon', 'Tue', 'Wed', 'Thu', 'Fri']).optional().describe('Only this weekday.') },
    run: ({ student_id, day }, db) => {
      requireStudent(db, student_id);
      return all(db, `SELECT t.day, t.start_time, t.end_time, t.course_id, c.title, t.room FROM enrolments e JOIN timetable t ON t.course_id = e.course_id JOIN courses c ON c.course_id = e.course_id
        WHERE e.student_id = @student_id AND e.term = @term AND e.status = 'enrolled' AND (@day IS NULL OR t.day = @day)
        ORDER BY CASE t.day WHEN 'Mon' THEN 1 WHEN 'Tue' THEN 2 WHEN 'Wed' THEN 3 WHEN 'Thu' THEN 4 ELSE 5 END, t.start_time`, { student_id, term: CURRENT_TERM, day: day ?? null });
    },
  }),
  defineTool({
    name: 'get_course_syllabus',
    description: 'Returns a course\'s syllabus: its units with titles, topics and teaching hours.',
    input: { course_id: courseId },
    run: ({ course_id }, db) => {
      const c = requireCourse(db, course_id);
      return { course_id, title: c.title, credits: c.credits, units: all(db, 'SELECT unit, title, topics, hours FROM syllabus WHERE course_id = ? ORDER BY unit', course_id) };
    },
  }),
  defineTool({
    name: 'get_academic_calendar',
    description: `Returns the academic calendar of the current term ${CURRENT_TERM}: teaching days, holidays, deadlines, examination and result dates.`,
    input: { kind: z.enum(['teaching', 'holiday', 'deadline', 'exam', 'result']).optional().describe('Only entries of this kind.') },
    run: ({ kind }, db) => all(db, 'SELECT date, event, kind FROM calendar WHERE term = @term AND (@kind IS NULL OR kind = @kind) ORDER BY date', { term: CURRENT_TERM, kind: kind ?? null }),
  }),
];

export const backlogTool = defineTool({
  name: 'get_backlogs',
  description: 'Returns a student\'s uncleared failed courses (grade F) with the term failed and the supplementary exam scheduled for each, if any.',
  input: { ...asStudent },
  run: ({ student_id }, db) => {
    requireStudent(db, student_id);
    const rows = all(db, `SELECT g.course_id, c.title, g.term, x.exam_id AS supplementary_exam, x.date AS supplementary_date
      FROM grades g JOIN courses c ON c.course_id = g.course_id LEFT JOIN exams x ON x.course_id = g.course_id AND x.kind = 'supplementary'
      WHERE g.student_id = ? AND g.grade = 'F' AND g.status = 'published' ORDER BY g.term`, student_id);
    return { student_id, backlog_count: rows.length, backlogs: rows };
  },
});
