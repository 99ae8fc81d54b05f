/**
 * Academics analytics for leadership: a department report, institution-wide performance
 * and course fill rates. Aggregates over the same rows students and faculty see.
 */
import { z } from 'zod';
import { term } from '../shared/args.js';
import { ATTENDANCE_MIN, CURRENT_TERM, NEXT_TERM } from '../shared/fixture.js';
import { all, one } from '../shared/lookup.js';
import { attendanceOf, cgpaOf } from '../shared/rules.js';
import { defineTool } from '../shared/tool.js';
import type { Db } from '../shared/db.js';

const department = z.enum(['CSE', 'ECE', 'MECH', 'CIVIL', 'EEE']);

function studentStats(db: Db, dept?: string) {
  return all<{ student_id: string; year: number; dept_id: string }>(db, 'SELECT student_id, year, dept_id FROM students WHERE (@d IS NULL OR dept_id = @d)', { d: dept ?? null })
    .map((s) => ({ ...s, ...cgpaOf(db, s.student_id) }));
}

const mean = (xs: number[]) => (xs.length ? Math.round((100 * xs.reduce((a, b) => a + b, 0)) / xs.length) / 100 : null);

export const analyticsTools = [
  defineTool({
    name: 'get_department_academic_report',
    description: 'Returns one department\'s academic report: students per year, average CGPA, students with backlogs, pass rate of the last published term, and students below the attendance minimum this term.',
    input: { department: department.describe('Department code, e.g. CSE.') },
    run: ({ department: d }, db) => {
      const stats = studentStats(db, d);
      const last = one<{ term: string }>(db, "SELECT MAX(g.term) AS term FROM grades g JOIN courses c ON c.course_id = g.course_id WHERE c.dept_id = ? AND g.status = 'published'", d)!.term;
      const pass = one<{ n: number; passed: number }>(db, "SELECT COUNT(*) AS n, SUM(g.grade <> 'F') AS passed FROM grades g JOIN courses c ON c.course_id = g.course_id WHERE c.dept_id = ? AND g.term = ? AND g.status = 'published'", d, last)!;
      const short = stats.filter((s) => attendanceOf(db, s.student_id).some((a) => a.percentage < ATTENDANCE_MIN)).length;
      return {
        department: d, students: stats.length,
        students_by_year: [1, 2, 3, 4].map((y) => ({ year: y, count: stats.filter((s) => s.year === y).length })),
        average_cgpa: mean(stats.filter((s) => s.cgpa !== null).map((s) => s.cgpa!)),
        students_with_backlogs: stats.filter((s) => s.backlogs > 0).length,
        last_published_term: last, last_term_pass_rate: pass.n ? Math.round((1000 * pass.passed) / pass.n) / 10 : null,
        students_below_attendance_minimum: short,
      };
    },
  }),
  defineTool({
    name: 'get_academic_performance_analytics',
    description: 'Returns institution-wide academic performance grouped by department or by year: student count, average CGPA, CGPA bands (9+, 8–9, 7–8, 6–7, below 6) and backlog rate per group.',
    input: { group_by: z.enum(['department', 'year']).default('department').describe('Group rows by department (default) or year of study.') },
    run: ({ group_by }, db) => {
      const stats = studentStats(db).filter((s) => s.cgpa !== null);
      const keys = [...new Set(stats.map((s) => (group_by === 'year' ? String(s.year) : s.dept_id)))].sort();
      return keys.map((k) => {
        const g = stats.filter((s) => (group_by === 'year' ? String(s.year) : s.dept_id) === k);
        const band = (lo: number, hi: number) => g.filter((s) => s.cgpa! >= lo && s.cgpa! < hi).length;
        return {
          [group_by]: k, students: g.length, average_cgpa: mean(g.map((s) => s.cgpa!)),
          bands: { '9+': band(9, 11), '8-9': band(8, 9), '7-8': band(7, 8), '6-7': band(6, 7), 'below 6': band(0, 6) },
          backlog_rate_percent: Math.round((1000 * g.filter((s) => s.backlogs > 0).length) / g.length) / 10,
        };
      });
    },
  }),
  defineTool({
    name: 'get_course_enrolment_stats',
    description: `Returns per-course enrolment against capacity for a term (current ${CURRENT_TERM} or coming ${NEXT_TERM}), with fill rate, optionally for one department.`,
    input: { term: term.optional().describe(`Term, default ${CURRENT_TERM}.`), department: department.optional().describe('Department code.') },
    run: ({ term: t, department: d }, db) => all(db, `SELECT c.course_id, c.title, c.dept_id AS department, c.kind, c.capacity, COUNT(e.student_id) AS enrolled,
        ROUND(100.0 * COUNT(e.student_id) / c.capacity, 1) AS fill_rate_percent
      FROM courses c JOIN enrolments e ON e.course_id = c.course_id AND e.term = @t AND e.status = 'enrolled'
      WHERE (@d IS NULL OR c.dept_id = @d) GROUP BY c.course_id ORDER BY c.course_id`, { t: t ?? CURRENT_TERM, d: d ?? null }),
  }),
];
