/**
 * Academics tools for teaching staff and leadership: faculty profiles and timetables,
 * rosters, internal-mark entry and correction, final grades, advisees, directories and
 * department-level academic analytics.
 */
import { z } from 'zod';
import { asFaculty, courseId, studentId, term } from '../shared/args.js';
import { CURRENT_TERM } from '../shared/fixture.js';
import { all, nowIso, one, requireCourse, requireFaculty, requireStudent, requireTeaches } from '../shared/lookup.js';
import { attendanceOf, cgpaOf, gradePoints, GRADE_SCALE } from '../shared/rules.js';
import { defineTool, ToolError } from '../shared/tool.js';

const department = z.enum(['CSE', 'ECE', 'MECH', 'CIVIL', 'EEE']);
const COMPONENT_MAX: Record<string, number> = { quiz1: 5, quiz2: 5, assignment: 10, midterm: 20 };
const component = z.enum(['quiz1', 'quiz2', 'assignment', 'midterm']).describe('Assessment component: quiz1 (out of 5), quiz2 (5), assignment (10), midterm (20).');

function requireEnrolled(db: Parameters<typeof requireStudent>[0], studentId: string, course: string): void {
  requireStudent(db, studentId);
  if (!one(db, "SELECT 1 FROM enrolments WHERE student_id = ? AND course_id = ? AND term = ? AND status = 'enrolled'", studentId, course, CURRENT_TERM)) {
    throw new ToolError(`${studentId} is not enrolled in ${course} in ${CURRENT_TERM}.`);
  }
}

function checkMarks(comp: string, marks: number): void {
  if (marks > COMPONENT_MAX[comp]) throw new ToolError(`marks ${marks} exceed the maximum of ${COMPONENT_MAX[comp]} for ${comp}.`);
}

export const staffTools = [
  defineTool({
    name: 'get_faculty_profile',
    description: 'Returns a faculty member\'s profile: department, designation, office, email, specialisation, the courses they teach this term and how many students they advise.',
    input: { ...asFaculty },
    run: ({ faculty_id }, db) => {
      const f = requireFaculty(db, faculty_id);
      const courses = all(db, 'SELECT course_id, title FROM courses WHERE faculty_id = ? AND semester % 2 = 1 ORDER BY course_id', faculty_id);
      const advisees = one<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM students WHERE advisor_id = ?', faculty_id)!.n;
      return { ...f, courses_this_term: courses, advisee_count: advisees };
    },
  }),
  defineTool({
    name: 'get_faculty_timetable',
    description: 'Returns a faculty member\'s weekly teaching timetable this term: day, time, course and room of every class they teach.',
    input: { ...asFaculty },
    run: ({ faculty_id }, db) => {
      requireFaculty(db, faculty_id);
      return all(db, `SELECT t.day, t.start_time, t.end_time, c.course_id, c.title, t.room FROM courses c JOIN timetable t ON t.course_id = c.course_id
        WHERE c.faculty_id = ? AND c.semester % 2 = 1 ORDER BY CASE t.day WHEN 'Mon' THEN 1 WHEN 'Tue' THEN 2 WHEN 'Wed' THEN 3 WHEN 'Thu' THEN 4 ELSE 5 END, t.start_time`, faculty_id);
    },
  }),
  defineTool({
    name: 'list_faculty_courses',
    description: 'Returns every course a faculty member is assigned, with semester, credits, whether it runs this term, and its current enrolment.',
    input: { ...asFaculty },
    run: ({ faculty_id }, db) => {
      requireFaculty(db, faculty_id);
      return all(db, `SELECT c.course_id, c.title, c.semester, c.credits, c.kind, (c.semester % 2 = 1) AS running_this_term,
        (SELECT COUNT(*) FROM enrolments e WHERE e.course_id = c.course_id AND e.term = ? AND e.status = 'enrolled') AS enrolled
        FROM courses c WHERE c.faculty_id = ? ORDER BY c.course_id`, CURRENT_TERM, faculty_id);
    },
  }),
  defineTool({
    name: 'get_course_roster',
    description: 'Returns the class list of a course this term: each enrolled student\'s id, name, department, year and section.',
    input: { course_id: courseId },
    run: ({ course_id }, db) => {
      const c = requireCourse(db, course_id);
      const students = all(db, `SELECT s.student_id, s.name, s.dept_id AS department, s.year, s.section FROM enrolments e JOIN students s ON s.student_id = e.student_id
        WHERE e.course_id = ? AND e.term = ? AND e.status = 'enrolled' ORDER BY s.student_id`, course_id, CURRENT_TERM);
      return { course_id, title: c.title, term: CURRENT_TERM, count: students.length, students };
    },
  }),
  defineTool({
    name: 'enter_internal_marks',
    description: 'Records a NEW internal assessment mark (a component not yet entered) for one student in a course the faculty member teaches. Refuses if the component already has a mark: corrections go through update_internal_marks.',
    action: true,
    input: { ...asFaculty, course_id: courseId, student_id: studentId.describe('Student whose mark is entered.'), component, marks: z.number().min(0, 'marks cannot be negative').describe('Marks obtained, within the component maximum.') },
    run: ({ faculty_id, course_id, student_id, component: comp, marks }, db) => {
      requireTeaches(db, faculty_id, course_id);
      requireEnrolled(db, student_id, course_id);
      checkMarks(comp, marks);
      if (one(db, 'SELECT 1 FROM internal_marks WHERE student_id = ? AND course_id = ? AND term = ? AND component = ?', student_id, course_id, CURRENT_TERM, comp)) {
        throw new ToolError(`${comp} for ${student_id} in ${course_id} is already entered; use update_internal_marks to correct it.`);
      }
      db.prepare('INSERT INTO internal_marks (student_id, course_id, term, component, marks, max_marks, entered_by, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(student_id, course_id, CURRENT_TERM, comp, marks, COMPONENT_MAX[comp], faculty_id, nowIso());
      return { student_id, course_id, component: comp, marks, max_marks: COMPONENT_MAX[comp], status: 'entered' };
    },
  }),
  defineTool({
    name: 'update_internal_marks',
    description: 'Corrects an internal assessment mark that was ALREADY entered, recording the old value, the new value and the reason in the marks audit trail. Refuses if nothing was entered yet: first entries go through enter_internal_marks.',
    action: true,
    input: { ...asFaculty, course_id: courseId, student_id: studentId.describe('Student whose mark is corrected.'), component, marks: z.number().min(0, 'marks cannot be negative').describe('Corrected marks.'), reason: z.string().min(3, 'reason must say why the mark changes').describe('Why the mark changes, kept in the audit trail.') },
    run: ({ faculty_id, course_id, student_id, component: comp, marks, reason }, db) => {
      requireTeaches(db, faculty_id, course_id);
      requireEnrolled(db, student_id, course_id);
      checkMarks(comp, marks);
      const old = one<{ marks: number }>(db, 'SELECT marks FROM internal_marks WHERE student_id = ? AND course_id = ? AND term = ? AND component = ?', student_id, course_id, CURRENT_TERM, comp);
      if (!old) throw new ToolError(`No ${comp} mark for ${student_id} in ${course_id} yet; use enter_internal_marks first.`);
      db.prepare('UPDATE internal_marks SET marks = ?, entered_by = ?, updated_at = ? WHERE student_id = ? AND course_id = ? AND term = ? AND component = ?')
        .run(marks, faculty_id, nowIso(), student_id, course_id, CURRENT_TERM, comp);
      db.prepare('INSERT INTO marks_audit (student_id, course_id, component, old_marks, new_marks, reason, changed_by, changed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(student_id, course_id, comp, old.marks, marks, reason, faculty_id, nowIso());
      return { student_id, course_id, component: comp, old_marks: old.marks, new_marks: marks, status: 'updated' };
    },
  }),
  defineTool({
    name: 'submit_final_grades',
    description: 'Submits final letter grades for students of a course the faculty member teaches this term. Grades are stored as submitted, awaiting publication by the examinations office (publish_exam_results); published grades cannot be resubmitted.',
    action: true,
    input: {
      ...asFaculty, course_id: courseId,
      grades: z.array(z.object({ student_id: studentId.describe('Student graded.'), grade: z.enum(['O', 'A+', 'A', 'B+', 'B', 'C', 'P', 'F']).describe('Letter grade.') })).min(1, 'grades must list at least one student').describe('One entry per student: student_id and letter grade.'),
    },
    run: ({ faculty_id, course_id, grades }, db) => {
      requireTeaches(db, faculty_id, course_id);
      const upsert = db.prepare(`INSERT INTO grades (student_id, course_id, term, grade, grade_points, status, submitted_by) VALUES (?, ?, ?, ?, ?, 'submitted', ?)
        ON CONFLICT DO UPDATE SET grade = excluded.grade, grade_points = excluded.grade_points, submitted_by = excluded.submitted_by`);
      for (const g of grades) {
        requireEnrolled(db, g.student_id, course_id);
        const existing = one<{ status: string }>(db, 'SELECT status FROM grades WHERE student_id = ? AND course_id = ? AND term = ?', g.student_id, course_id, CURRENT_TERM);
        if (existing?.status === 'published') throw new ToolError(`${g.student_id}'s grade in ${course_id} is already published and cannot be resubmitted.`);
        upsert.run(g.student_id, course_id, CURRENT_TERM, g.grade, gradePoints(g.grade), faculty_id);
      }
      return { course_id, term: CURRENT_TERM, submitted: grades.length, status: 'submitted, awaiting publication' };
    },
  }),
  defineTool({
    name: 'get_course_grade_distribution',
    description: 'Returns how grades in one course are spread for a term: count per letter grade, pass rate and mean grade points, counting published and submitted grades separately.',
    input: { course_id: courseId, term: term.optional().describe('Term such as 2024-ODD; defaults to the latest term with grades in this course.') },
    run: ({ course_id, term: t }, db) => {
      requireCourse(db, course_id);
      const chosen = t ?? one<{ term: string }>(db, 'SELECT MAX(term) AS term FROM grades WHERE course_id = ?', course_id)?.term;
      if (!chosen) throw new ToolError(`No grades recorded for ${course_id} yet.`);
      const rows = all<{ grade: string; status: string; n: number; points: number }>(db, 'SELECT grade, status, COUNT(*) AS n, SUM(grade_points) AS points FROM grades WHERE course_id = ? AND term = ? GROUP BY grade, status', course_id, chosen);
      const total = rows.reduce((s, r) => s + r.n, 0);
      const passed = rows.filter((r) => r.grade !== 'F').reduce((s, r) => s + r.n, 0);
      return {
        course_id, term: chosen, students: total,
        distribution: GRADE_SCALE.map((g) => ({ grade: g.grade, published: rows.find((r) => r.grade === g.grade && r.status === 'published')?.n ?? 0, submitted: rows.find((r) => r.grade === g.grade && r.status === 'submitted')?.n ?? 0 })),
        pass_rate: total ? Math.round((1000 * passed) / total) / 10 : null,
        mean_grade_points: total ? Math.round((100 * rows.reduce((s, r) => s + r.points, 0)) / total) / 100 : null,
      };
    },
  }),
  defineTool({
    name: 'get_advisees',
    description: 'Returns the students a faculty member advises, each with year, CGPA, open backlogs and lowest course attendance this term, so at-risk advisees stand out.',
    input: { ...asFaculty },
    run: ({ faculty_id }, db) => {
      requireFaculty(db, faculty_id);
      return all<{ student_id: string; name: string; year: number }>(db, 'SELECT student_id, name, year FROM students WHERE advisor_id = ? ORDER BY student_id', faculty_id).map((s) => {
        const c = cgpaOf(db, s.student_id);
        const lowest = Math.min(...attendanceOf(db, s.student_id).map((a) => a.percentage));
        return { ...s, cgpa: c.cgpa, backlogs: c.backlogs, lowest_attendance_percentage: lowest };
      });
    },
  }),
  defineTool({
    name: 'list_students',
    description: 'Returns the student directory (id, name, department, year, section, email), optionally filtered by department, year and section.',
    input: { department: department.optional().describe('Department code.'), year: z.number().int().min(1).max(4).optional().describe('Year of study, 1–4.'), section: z.enum(['A', 'B']).optional().describe('Section.') },
    run: ({ department: d, year, section }, db) => all(db, `SELECT student_id, name, dept_id AS department, year, section, email FROM students
      WHERE (@d IS NULL OR dept_id = @d) AND (@year IS NULL OR year = @year) AND (@section IS NULL OR section = @section) ORDER BY student_id`, { d: d ?? null, year: year ?? null, section: section ?? null }),
  }),
  defineTool({
    name: 'list_faculty',
    description: 'Returns the faculty directory (id, name, department, designation, office, email), optionally for one department.',
    input: { department: department.optional().describe('Department code.') },
    run: ({ department: d }, db) => all(db, 'SELECT faculty_id, name, dept_id AS department, designation, office, email FROM faculty WHERE (@d IS NULL OR dept_id = @d) ORDER BY faculty_id', { d: d ?? null }),
  }),
  defineTool({
    name: 'search_students',
    description: 'Finds students whose name or id contains the query text (case-insensitive); returns up to 20 matches with department, year, phone and guardian contact.',
    input: { query: z.string().min(2, 'query needs at least 2 characters').describe('Part of a name or id, e.g. "Iyer" or "S01".') },
    run: ({ query }, db) => all(db, "SELECT student_id, name, dept_id AS department, year, phone, guardian_name, guardian_phone FROM students WHERE name LIKE @q OR student_id LIKE @q ORDER BY student_id LIMIT 20", { q: `%${query}%` }),
  }),
];
