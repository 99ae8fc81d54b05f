/**
 * Business rules several servers share: grade scale, CGPA, attendance percentages, fee
 * clearance and exam eligibility. Examinations, academics, finance and placements all
 * read these, so one payment or one attendance correction changes every answer at once.
 */
import type { Db } from './db.js';
import { ATTENDANCE_MIN, CONDONATION_MIN, CURRENT_TERM } from './fixture.js';
import { all, nowIso, one } from './lookup.js';

export const GRADE_SCALE = [
  { grade: 'O', min_score: 90, points: 10 }, { grade: 'A+', min_score: 80, points: 9 },
  { grade: 'A', min_score: 70, points: 8 }, { grade: 'B+', min_score: 60, points: 7 },
  { grade: 'B', min_score: 50, points: 6 }, { grade: 'C', min_score: 45, points: 5 },
  { grade: 'P', min_score: 40, points: 4 }, { grade: 'F', min_score: 0, points: 0 },
];

export function gradeFor(score: number): { grade: string; points: number } {
  const g = GRADE_SCALE.find((s) => score >= s.min_score)!;
  return { grade: g.grade, points: g.points };
}

export function gradePoints(grade: string): number | undefined {
  return GRADE_SCALE.find((s) => s.grade === grade)?.points;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Credit-weighted CGPA over published grades; F counts with 0 points until cleared. */
export function cgpaOf(db: Db, studentId: string): { cgpa: number | null; credits_attempted: number; credits_earned: number; backlogs: number } {
  const rows = all<{ credits: number; grade_points: number; grade: string }>(db,
    "SELECT c.credits, g.grade_points, g.grade FROM grades g JOIN courses c ON c.course_id = g.course_id WHERE g.student_id = ? AND g.status = 'published'", studentId);
  const attempted = rows.reduce((s, r) => s + r.credits, 0);
  const weighted = rows.reduce((s, r) => s + r.credits * r.grade_points, 0);
  return {
    cgpa: attempted ? round2(weighted / attempted) : null,
    credits_attempted: attempted,
    credits_earned: rows.filter((r) => r.grade !== 'F').reduce((s, r) => s + r.credits, 0),
    backlogs: rows.filter((r) => r.grade === 'F').length,
  };
}

export interface CourseAttendance { course_id: string; title: string; classes_held: number; classes_attended: number; percentage: number }

/** Attendance per enrolled course in the current term, from class sessions. */
export function attendanceOf(db: Db, studentId: string, courseId?: string): CourseAttendance[] {
  return all<CourseAttendance>(db, `
    SELECT e.course_id, c.title, COUNT(a.session_id) AS classes_held,
           COALESCE(SUM(a.status = 'present'), 0) AS classes_attended,
           ROUND(100.0 * COALESCE(SUM(a.status = 'present'), 0) / MAX(COUNT(a.session_id), 1), 1) AS percentage
    FROM enrolments e JOIN courses c ON c.course_id = e.course_id
    LEFT JOIN class_sessions s ON s.course_id = e.course_id
    LEFT JOIN attendance a ON a.session_id = s.session_id AND a.student_id = e.student_id
    WHERE e.student_id = ? AND e.term = ? AND e.status = 'enrolled' ${courseId ? 'AND e.course_id = ?' : ''}
    GROUP BY e.course_id ORDER BY e.course_id`, ...[studentId, CURRENT_TERM, ...(courseId ? [courseId] : [])]);
}

/** Current-term tuition and exam-fee balances; an approved installment plan clears its invoice. */
export function feeBlock(db: Db, studentId: string): { outstanding: number; invoices: Array<{ invoice_id: number; category: string; balance: number }> } {
  const invoices = all<{ invoice_id: number; category: string; balance: number }>(db, `
    SELECT i.invoice_id, i.category, i.amount - i.paid AS balance FROM invoices i
    WHERE i.student_id = ? AND i.term = ? AND i.category IN ('tuition', 'exam') AND i.amount > i.paid
      AND NOT EXISTS (SELECT 1 FROM installment_plans p WHERE p.invoice_id = i.invoice_id AND p.status = 'approved')`, studentId, CURRENT_TERM);
  return { outstanding: invoices.reduce((s, i) => s + i.balance, 0), invoices };
}

export interface Eligibility {
  student_id: string; term: string; eligible: boolean; fee_cleared: boolean; fees_outstanding: number;
  hall_ticket_override: boolean; reasons: string[];
  courses: Array<CourseAttendance & { condonation: string | null; eligible: boolean; reason: string | null }>;
}

/**
 * Exam eligibility for the current term: every course needs ATTENDANCE_MIN % (or an
 * approved condonation and CONDONATION_MIN %), and tuition and exam fees must be paid.
 */
export function eligibilityOf(db: Db, studentId: string): Eligibility {
  const fees = feeBlock(db, studentId);
  const courses = attendanceOf(db, studentId).map((c) => {
    const cond = one<{ status: string }>(db, 'SELECT status FROM condonation_requests WHERE student_id = ? AND course_id = ? ORDER BY request_id DESC LIMIT 1', studentId, c.course_id);
    const condoned = cond?.status === 'approved' && c.percentage >= CONDONATION_MIN;
    const okAttendance = c.percentage >= ATTENDANCE_MIN || condoned;
    const reason = okAttendance ? (fees.outstanding > 0 ? 'fee dues outstanding' : null) : `attendance ${c.percentage}% is below ${ATTENDANCE_MIN}%`;
    return { ...c, condonation: cond?.status ?? null, eligible: okAttendance && fees.outstanding === 0, reason };
  });
  const reasons: string[] = [];
  if (fees.outstanding > 0) reasons.push(`fee dues of ${fees.outstanding} outstanding on invoice(s) ${fees.invoices.map((i) => i.invoice_id).join(', ')}`);
  for (const c of courses) if (c.reason?.startsWith('attendance')) reasons.push(`${c.course_id}: ${c.reason}`);
  const override = one(db, 'SELECT 1 FROM hall_ticket_overrides WHERE student_id = ? AND term = ?', studentId, CURRENT_TERM) !== undefined;
  return {
    student_id: studentId, term: CURRENT_TERM, eligible: reasons.length === 0, fee_cleared: fees.outstanding === 0,
    fees_outstanding: fees.outstanding, hall_ticket_override: override, reasons, courses,
  };
}

/** Raises an invoice on a student's account (finance shows it in get_fee_dues). */
export function addInvoice(db: Db, inv: { student_id: string; category: string; description: string; amount: number; due_date: string; created_by: string }): number {
  return Number(db.prepare('INSERT INTO invoices (student_id, term, category, description, amount, paid, due_date, created_by, created_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)')
    .run(inv.student_id, CURRENT_TERM, inv.category, inv.description, inv.amount, inv.due_date, inv.created_by, nowIso()).lastInsertRowid);
}
