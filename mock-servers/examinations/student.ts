/**
 * Examination tools about one student: schedule, eligibility, hall ticket, results,
 * supplementary registration and revaluation. Eligibility reads attendance and fees
 * live, so a payment or a condonation elsewhere changes the answer here.
 */
import { z } from 'zod';
import { asStudent, courseId, positiveId, term } from '../shared/args.js';
import { CURRENT_TERM, REVALUATION_DEADLINE, REVALUATION_FEE, SUPPLEMENTARY_FEE, TODAY } from '../shared/fixture.js';
import { all, found, nowIso, one, requireCourse, requireOwn, requireStudent } from '../shared/lookup.js';
import { addInvoice, eligibilityOf, GRADE_SCALE } from '../shared/rules.js';
import { defineTool, ToolError } from '../shared/tool.js';
import type { Db } from '../shared/db.js';

/** The student's end-semester and supplementary exams this term, with seat numbers. */
export function examsOf(db: Db, studentId: string) {
  return all<{ exam_id: string; course_id: string; title: string; kind: string; date: string; session: string; venue: string; seat: number }>(db, `
    SELECT x.exam_id, x.course_id, c.title, x.kind, x.date, x.session, x.venue,
      (SELECT COUNT(*) FROM exam_registrations r2 WHERE r2.exam_id = x.exam_id AND r2.status = 'registered' AND r2.student_id <= r.student_id) AS seat
    FROM exam_registrations r JOIN exams x ON x.exam_id = r.exam_id JOIN courses c ON c.course_id = x.course_id
    WHERE r.student_id = ? AND r.status = 'registered' AND x.term = ? ORDER BY x.date, x.session DESC`, studentId, CURRENT_TERM);
}

function latestPublishedTerm(db: Db, studentId: string): string | undefined {
  return one<{ term: string | null }>(db, "SELECT MAX(term) AS term FROM grades WHERE student_id = ? AND status = 'published'", studentId)?.term ?? undefined;
}

export const studentTools = [
  defineTool({
    name: 'get_exam_schedule',
    description: `Returns ONE student's own examinations this term (${CURRENT_TERM}): each registered end-semester or supplementary exam with course, date, session (FN 09:30, AN 14:00) and venue.`,
    input: { ...asStudent },
    run: ({ student_id }, db) => {
      requireStudent(db, student_id);
      return { student_id, term: CURRENT_TERM, exams: examsOf(db, student_id).map(({ seat: _seat, ...e }) => e) };
    },
  }),
  defineTool({
    name: 'get_exam_eligibility',
    description: 'Returns whether a student may sit this term\'s end-semester exams, per course: attendance percentage against the 75% minimum (or an approved condonation) and whether tuition and exam fees are cleared, with every reason for being barred.',
    input: { ...asStudent },
    run: ({ student_id }, db) => {
      requireStudent(db, student_id);
      return eligibilityOf(db, student_id);
    },
  }),
  defineTool({
    name: 'get_hall_ticket',
    description: 'Returns a student\'s hall ticket (admit card) for this term\'s exams: ticket number, photo-ID instructions, and each exam with date, session, venue and seat. Issued only when the student is eligible or the examinations office issued it by override; otherwise says why it is withheld.',
    input: { ...asStudent },
    run: ({ student_id }, db) => {
      const s = requireStudent(db, student_id);
      const e = eligibilityOf(db, student_id);
      if (!e.eligible && !e.hall_ticket_override) return { student_id, issued: false, withheld_because: e.reasons };
      return {
        student_id, name: s.name, issued: true, ticket_number: `HT-${CURRENT_TERM}-${student_id}`, by_override: !e.eligible,
        instructions: 'Carry this hall ticket and your university ID card; report 30 minutes before the session.',
        exams: examsOf(db, student_id),
      };
    },
  }),
  defineTool({
    name: 'get_exam_results',
    description: 'Returns a student\'s declared result for one term as published by the examinations office: grade and pass/fail per course, the term\'s SGPA, the overall result (pass, or pass with backlogs) and any revaluation outcome. Defaults to the latest published term.',
    input: { ...asStudent, term: term.optional().describe('Term such as 2025-EVEN; defaults to the latest published term.') },
    run: ({ student_id, term: t }, db) => {
      requireStudent(db, student_id);
      const chosen = t ?? latestPublishedTerm(db, student_id);
      if (!chosen) throw new ToolError(`No results have been published for ${student_id} yet.`);
      const rows = all<{ course_id: string; credits: number; grade_points: number; grade: string }>(db, `SELECT g.course_id, c.title, c.credits, g.grade, g.grade_points, CASE g.grade WHEN 'F' THEN 'fail' ELSE 'pass' END AS result,
        (SELECT status FROM revaluation_requests v WHERE v.student_id = g.student_id AND v.course_id = g.course_id AND v.term = g.term ORDER BY request_id DESC LIMIT 1) AS revaluation
        FROM grades g JOIN courses c ON c.course_id = g.course_id WHERE g.student_id = ? AND g.term = ? AND g.status = 'published' ORDER BY g.course_id`, student_id, chosen);
      if (rows.length === 0) throw new ToolError(`No published results for ${student_id} in ${chosen}.`);
      const credits = rows.reduce((s, r) => s + r.credits, 0);
      const fails = rows.filter((r) => r.grade === 'F').length;
      return { student_id, term: chosen, sgpa: Math.round((100 * rows.reduce((s, r) => s + r.credits * r.grade_points, 0)) / credits) / 100, result: fails ? `pass with ${fails} backlog(s)` : 'pass', courses: rows };
    },
  }),
  defineTool({
    name: 'register_for_supplementary_exam',
    description: `Registers a student for the supplementary exam of a course they failed (grade F), raising a ${SUPPLEMENTARY_FEE} fee invoice. Returns the registration and invoice id.`,
    action: true,
    input: { ...asStudent, course_id: courseId.describe('The failed course, e.g. ME301.') },
    run: ({ student_id, course_id }, db) => {
      requireStudent(db, student_id);
      requireCourse(db, course_id);
      if (!one(db, "SELECT 1 FROM grades WHERE student_id = ? AND course_id = ? AND grade = 'F' AND status = 'published'", student_id, course_id)) throw new ToolError(`${student_id} has no backlog in ${course_id}; supplementary exams are only for failed courses.`);
      const exam = found(one<{ exam_id: string; date: string }>(db, "SELECT exam_id, date FROM exams WHERE course_id = ? AND kind = 'supplementary' AND term = ?", course_id, CURRENT_TERM), `No supplementary exam of ${course_id} is scheduled this term.`);
      if (one(db, "SELECT 1 FROM exam_registrations WHERE student_id = ? AND exam_id = ? AND status = 'registered'", student_id, exam.exam_id)) throw new ToolError(`${student_id} is already registered for ${exam.exam_id}.`);
      const invoice = addInvoice(db, { student_id, category: 'supplementary', description: `Supplementary exam fee, ${course_id}`, amount: SUPPLEMENTARY_FEE, due_date: '2025-11-30', created_by: 'system' });
      const id = db.prepare("INSERT INTO exam_registrations (student_id, exam_id, kind, fee, status, invoice_id, created_at) VALUES (?, ?, 'supplementary', ?, 'registered', ?, ?) ON CONFLICT DO UPDATE SET status = 'registered', invoice_id = excluded.invoice_id")
        .run(student_id, exam.exam_id, SUPPLEMENTARY_FEE, invoice, nowIso()).lastInsertRowid;
      return { registration_id: Number(id), student_id, exam_id: exam.exam_id, date: exam.date, fee: SUPPLEMENTARY_FEE, invoice_id: invoice, status: 'registered' };
    },
  }),
  defineTool({
    name: 'get_exam_registrations',
    description: 'Returns every exam registration of a student this term, regular and supplementary, with exam date, fee and registration status.',
    input: { ...asStudent },
    run: ({ student_id }, db) => {
      requireStudent(db, student_id);
      return all(db, 'SELECT r.registration_id, r.exam_id, x.course_id, r.kind, x.date, r.fee, r.status, r.invoice_id FROM exam_registrations r JOIN exams x ON x.exam_id = r.exam_id WHERE r.student_id = ? ORDER BY x.date', student_id);
    },
  }),
  defineTool({
    name: 'apply_for_revaluation',
    description: `Requests re-evaluation of a student's answer script for a course in their latest published term, until ${REVALUATION_DEADLINE}; raises a ${REVALUATION_FEE} fee invoice. Returns the request id.`,
    action: true,
    input: { ...asStudent, course_id: courseId, reason: z.string().min(5, 'reason must say why re-evaluation is requested').describe('Why the student expects a different grade.') },
    run: ({ student_id, course_id, reason }, db) => {
      requireStudent(db, student_id);
      requireCourse(db, course_id);
      if (TODAY > REVALUATION_DEADLINE) throw new ToolError(`Revaluation applications closed on ${REVALUATION_DEADLINE}.`);
      const latest = latestPublishedTerm(db, student_id);
      const grade = one<{ grade: string }>(db, "SELECT grade FROM grades WHERE student_id = ? AND course_id = ? AND term = ? AND status = 'published'", student_id, course_id, latest);
      if (!grade) throw new ToolError(`${course_id} has no published result for ${student_id} in the latest published term (${latest ?? 'none'}); only that term can be revalued.`);
      const open = one<{ request_id: number }>(db, "SELECT request_id FROM revaluation_requests WHERE student_id = ? AND course_id = ? AND status = 'pending'", student_id, course_id);
      if (open) throw new ToolError(`Revaluation request ${open.request_id} for ${course_id} is already pending.`);
      const invoice = addInvoice(db, { student_id, category: 'revaluation', description: `Revaluation fee, ${course_id} (${latest})`, amount: REVALUATION_FEE, due_date: REVALUATION_DEADLINE, created_by: 'system' });
      const id = Number(db.prepare("INSERT INTO revaluation_requests (student_id, course_id, term, reason, fee, status, invoice_id, created_at) VALUES (?, ?, ?, ?, ?, 'pending', ?, ?)")
        .run(student_id, course_id, latest, reason, REVALUATION_FEE, invoice, nowIso()).lastInsertRowid);
      return { request_id: id, student_id, course_id, term: latest, current_grade: grade.grade, fee: REVALUATION_FEE, invoice_id: invoice, status: 'pending' };
    },
  }),
  defineTool({
    name: 'get_revaluation_status',
    description: 'Returns a student\'s revaluation requests with course, term, fee and status (pending, cancelled, completed - grade unchanged, completed - grade revised).',
    input: { ...asStudent },
    run: ({ student_id }, db) => {
      requireStudent(db, student_id);
      return all(db, 'SELECT request_id, course_id, term, reason, fee, status, created_at FROM revaluation_requests WHERE student_id = ? ORDER BY request_id', student_id);
    },
  }),
  defineTool({
    name: 'cancel_revaluation_request',
    description: 'Cancels a student\'s PENDING revaluation request; an unpaid revaluation fee is written off. Returns the cancelled request.',
    action: true,
    destructive: true,
    input: { ...asStudent, request_id: positiveId('request_id').describe('Revaluation request id (get_revaluation_status).') },
    run: ({ student_id, request_id }, db) => {
      requireStudent(db, student_id);
      const req = requireOwn<{ student_id: string; status: string; invoice_id: number | null; course_id: string }>(db, { table: 'revaluation_requests', key: 'request_id', id: request_id, ownerColumn: 'student_id', owner: student_id, what: 'Revaluation request' });
      if (req.status !== 'pending') throw new ToolError(`Revaluation request ${request_id} is ${req.status}; only pending requests can be cancelled.`);
      db.prepare("UPDATE revaluation_requests SET status = 'cancelled' WHERE request_id = ?").run(request_id);
      if (req.invoice_id) db.prepare('UPDATE invoices SET amount = paid WHERE invoice_id = ?').run(req.invoice_id);
      return { request_id, course_id: req.course_id, status: 'cancelled' };
    },
  }),
  defineTool({
    name: 'get_previous_question_papers',
    description: 'Returns links to past end-semester question papers of a course, by term.',
    input: { course_id: courseId },
    run: ({ course_id }, db) => {
      const c = requireCourse(db, course_id);
      return { course_id, title: c.title, papers: all(db, 'SELECT term, kind, url FROM question_papers WHERE course_id = ? ORDER BY term DESC', course_id) };
    },
  }),
  defineTool({
    name: 'get_grading_scale',
    description: 'Returns the grading scheme: letter grades with their score ranges and grade points, the pass mark, and how internal assessment (40) and the end-semester exam (60) combine.',
    input: {},
    run: () => ({ scale: GRADE_SCALE, pass_grade: 'P (40 and above)', weighting: { internal_assessment: 40, end_semester_exam: 60, end_semester_marked_out_of: 100 }, cgpa: 'credit-weighted mean of grade points; F counts as 0 until cleared' }),
  }),
];
