/**
 * Finance tools for faculty (salary, reimbursements), the accounts office (invoices,
 * refunds, ledgers, defaulters) and leadership (collection, dues, scholarships, budgets).
 */
import { z } from 'zod';
import { asEmployee, asFaculty, isoDate, positiveId, studentId } from '../shared/args.js';
import { daysBetween } from '../shared/dates.js';
import { CURRENT_TERM, TODAY } from '../shared/fixture.js';
import { all, found, nowIso, one, requireEmployee, requireFaculty, requireStudent } from '../shared/lookup.js';
import { addInvoice } from '../shared/rules.js';
import { defineTool, ToolError } from '../shared/tool.js';

const department = z.enum(['CSE', 'ECE', 'MECH', 'CIVIL', 'EEE']);
const category = z.enum(['tuition', 'exam', 'hostel', 'mess', 'revaluation', 'supplementary', 'library', 'transport', 'other']);

export const officeTools = [
  defineTool({
    name: 'get_salary_slip',
    description: 'Returns a faculty member\'s salary slip for a month: basic pay, allowances, deductions and net pay. Defaults to the latest month.',
    input: { ...asFaculty, month: z.string().regex(/^\d{4}-\d{2}$/, 'month must look like 2025-10').optional().describe('Month as YYYY-MM; defaults to the latest slip.') },
    run: ({ faculty_id, month }, db) => {
      const f = requireFaculty(db, faculty_id);
      const slip = found(one<Record<string, unknown>>(db, 'SELECT * FROM salary_slips WHERE faculty_id = @f AND (@m IS NULL OR month = @m) ORDER BY month DESC LIMIT 1', { f: faculty_id, m: month ?? null }), `No salary slip for ${faculty_id} in ${month}.`);
      return { ...slip, name: f.name, designation: f.designation };
    },
  }),
  defineTool({
    name: 'submit_reimbursement_claim',
    description: 'Files a faculty member\'s expense reimbursement claim (conference travel, books, lab consumables, internet). Returns the claim id and status.',
    action: true,
    input: { ...asFaculty, category: z.enum(['conference travel', 'books', 'lab consumables', 'internet']).describe('Expense category.'), amount: z.number().int().positive('amount must be positive').max(200_000, 'claims above 200000 need a purchase order').describe('Amount in rupees.'), description: z.string().min(5, 'description is required').describe('What was bought and why.') },
    run: ({ faculty_id, category: c, amount, description }, db) => {
      requireFaculty(db, faculty_id);
      const id = Number(db.prepare("INSERT INTO reimbursements (faculty_id, category, amount, description, status, created_at) VALUES (?, ?, ?, ?, 'submitted', ?)").run(faculty_id, c, amount, description, nowIso()).lastInsertRowid);
      return { claim_id: id, category: c, amount, status: 'submitted' };
    },
  }),
  defineTool({
    name: 'get_reimbursement_status',
    description: 'Returns a faculty member\'s reimbursement claims with category, amount and status (submitted, approved, paid, rejected).',
    input: { ...asFaculty },
    run: ({ faculty_id }, db) => {
      requireFaculty(db, faculty_id);
      return all(db, 'SELECT claim_id, category, amount, description, status, created_at FROM reimbursements WHERE faculty_id = ? ORDER BY claim_id', faculty_id);
    },
  }),
  defineTool({
    name: 'create_fee_invoice',
    description: 'Accounts office: raises a new invoice on a student\'s account (e.g. transport, library damage, other charges). It appears in the student\'s dues at once.',
    action: true,
    input: { ...asEmployee, student_id: studentId.describe('Student to bill.'), category: category.describe('What kind of charge.'), amount: z.number().int().positive('amount must be positive').describe('Amount in rupees.'), due_date: isoDate('due_date').describe('Due date, YYYY-MM-DD.'), description: z.string().min(3, 'description is required').describe('What the charge is for.') },
    run: ({ employee_id, student_id, category: c, amount, due_date, description }, db) => {
      requireEmployee(db, employee_id, ['finance_officer']);
      requireStudent(db, student_id);
      const id = addInvoice(db, { student_id, category: c, description, amount, due_date, created_by: employee_id });
      return { invoice_id: id, student_id, category: c, amount, due_date, term: CURRENT_TERM };
    },
  }),
  defineTool({
    name: 'approve_refund',
    description: 'Accounts office: approves or rejects a pending student refund request. Returns the decided request.',
    action: true,
    input: { ...asEmployee, refund_id: positiveId('refund_id').describe('Refund request id.'), decision: z.enum(['approve', 'reject']).describe('The decision.') },
    run: ({ employee_id, refund_id, decision }, db) => {
      requireEmployee(db, employee_id, ['finance_officer']);
      const r = found(one<{ status: string; student_id: string; amount: number }>(db, 'SELECT status, student_id, amount FROM refunds WHERE refund_id = ?', refund_id), `Unknown refund_id ${refund_id}: no such refund request.`);
      if (r.status !== 'pending') throw new ToolError(`Refund ${refund_id} is already ${r.status}.`);
      const status = decision === 'approve' ? 'approved' : 'rejected';
      db.prepare('UPDATE refunds SET status = ?, decided_by = ? WHERE refund_id = ?').run(status, employee_id, refund_id);
      return { refund_id, student_id: r.student_id, amount: r.amount, status };
    },
  }),
  defineTool({
    name: 'get_student_ledger',
    description: 'Returns a student\'s complete account ledger for the accounts office: every invoice (paid or not), every payment and refund, and the net balance. Broader than get_fee_dues, which lists open dues only.',
    input: { student_id: studentId.describe('Student whose ledger is shown.') },
    run: ({ student_id }, db) => {
      requireStudent(db, student_id);
      const invoices = all<{ amount: number; paid: number }>(db, 'SELECT invoice_id, term, category, description, amount, paid, due_date FROM invoices WHERE student_id = ? ORDER BY invoice_id', student_id);
      return {
        student_id, invoices,
        payments: all(db, 'SELECT payment_id, invoice_id, amount, method, receipt_no, paid_at FROM payments WHERE student_id = ? ORDER BY payment_id', student_id),
        refunds: all(db, 'SELECT refund_id, payment_id, amount, status FROM refunds WHERE student_id = ? ORDER BY refund_id', student_id),
        billed: invoices.reduce((s, i) => s + i.amount, 0), paid: invoices.reduce((s, i) => s + i.paid, 0), balance: invoices.reduce((s, i) => s + i.amount - i.paid, 0),
      };
    },
  }),
  defineTool({
    name: 'get_defaulters_list',
    description: 'Returns students with overdue unpaid invoices (past the due date), with amount, category and days overdue, optionally for one department or beyond a minimum number of days.',
    input: { department: department.optional().describe('Only this department.'), min_days_overdue: z.number().int().min(0).default(0).describe('Only dues overdue by more than this many days.') },
    run: ({ department: d, min_days_overdue }, db) => all<{ due_date: string }>(db, `SELECT i.student_id, s.name, s.dept_id AS department, i.invoice_id, i.category, i.amount - i.paid AS balance, i.due_date
        FROM invoices i JOIN students s ON s.student_id = i.student_id WHERE i.amount > i.paid AND i.due_date < @today AND (@d IS NULL OR s.dept_id = @d) ORDER BY i.due_date, i.student_id`, { today: TODAY, d: d ?? null })
      .map((r) => ({ ...r, days_overdue: daysBetween(r.due_date, TODAY) })).filter((r) => r.days_overdue > min_days_overdue),
  }),
  defineTool({
    name: 'get_fee_collection_report',
    description: `Returns fee collection for the term (${CURRENT_TERM}) by category and department: amount billed, collected, outstanding and collection rate.`,
    input: { department: department.optional().describe('Only this department.') },
    run: ({ department: d }, db) => all(db, `SELECT s.dept_id AS department, i.category, SUM(i.amount) AS billed, SUM(i.paid) AS collected, SUM(i.amount - i.paid) AS outstanding,
        ROUND(100.0 * SUM(i.paid) / SUM(i.amount), 1) AS collection_rate_percent
      FROM invoices i JOIN students s ON s.student_id = i.student_id WHERE i.term = @t AND (@d IS NULL OR s.dept_id = @d) GROUP BY s.dept_id, i.category ORDER BY s.dept_id, i.category`, { t: CURRENT_TERM, d: d ?? null }),
  }),
  defineTool({
    name: 'get_outstanding_dues_report',
    description: 'Returns outstanding dues per department for leadership: students with dues, total outstanding, and ageing buckets (not yet due, 0–30, 31–60, over 60 days overdue).',
    input: { department: department.optional().describe('Only this department.') },
    run: ({ department: d }, db) => {
      const rows = all<{ department: string; student_id: string; balance: number; due_date: string }>(db, 'SELECT s.dept_id AS department, i.student_id, i.amount - i.paid AS balance, i.due_date FROM invoices i JOIN students s ON s.student_id = i.student_id WHERE i.amount > i.paid AND (@d IS NULL OR s.dept_id = @d)', { d: d ?? null });
      const depts = [...new Set(rows.map((r) => r.department))].sort();
      return depts.map((dept) => {
        const mine = rows.filter((r) => r.department === dept);
        const bucket = (lo: number, hi: number) => mine.filter((r) => { const age = daysBetween(r.due_date, TODAY); return age >= lo && age <= hi; }).reduce((s, r) => s + r.balance, 0);
        return { department: dept, students_with_dues: new Set(mine.map((r) => r.student_id)).size, total_outstanding: mine.reduce((s, r) => s + r.balance, 0), not_yet_due: bucket(-9999, -1), overdue_0_30: bucket(0, 30), overdue_31_60: bucket(31, 60), overdue_over_60: bucket(61, 99999) };
      });
    },
  }),
  defineTool({
    name: 'get_scholarship_disbursement_report',
    description: 'Returns, per scholarship, applications by status and the total amount committed to approved and disbursed awards.',
    input: {},
    run: (_a, db) => all(db, `SELECT s.scholarship_id, s.name, s.amount, COUNT(a.application_id) AS applications, SUM(a.status = 'pending') AS pending, SUM(a.status = 'approved') AS approved,
        SUM(a.status = 'disbursed') AS disbursed, SUM(a.status = 'rejected') AS rejected, s.amount * SUM(a.status IN ('approved', 'disbursed')) AS committed_amount
      FROM scholarships s LEFT JOIN scholarship_applications a ON a.scholarship_id = s.scholarship_id GROUP BY s.scholarship_id ORDER BY s.scholarship_id`),
  }),
  defineTool({
    name: 'get_budget_utilization',
    description: 'Returns each department\'s budget for the fiscal year: allocated, spent, remaining and utilisation percentage, plus faculty reimbursements pending payment.',
    input: { department: department.optional().describe('Only this department.') },
    run: ({ department: d }, db) => all(db, `SELECT b.dept_id AS department, b.fiscal_year, b.allocated, b.spent, b.allocated - b.spent AS remaining, ROUND(100.0 * b.spent / b.allocated, 1) AS utilisation_percent,
        (SELECT COALESCE(SUM(r.amount), 0) FROM reimbursements r JOIN faculty f ON f.faculty_id = r.faculty_id WHERE f.dept_id = b.dept_id AND r.status IN ('submitted', 'approved')) AS reimbursements_pending
      FROM budgets b WHERE (@d IS NULL OR b.dept_id = @d) ORDER BY b.dept_id`, { d: d ?? null }),
  }),
];
