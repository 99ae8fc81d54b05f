/**
 * Finance tools a student uses: dues, fee structure, payments and receipts, installment
 * plans, scholarships and refunds. A payment here clears the fee block that
 * examinations checks for eligibility.
 */
import { z } from 'zod';
import { asStudent, positiveId } from '../shared/args.js';
import { daysBetween } from '../shared/dates.js';
import { CURRENT_TERM, EXAM_FEE, HOSTEL_RENT, LATE_FEE_CAP, LATE_FEE_PER_DAY, MESS_PLANS, TODAY, TUITION } from '../shared/fixture.js';
import { all, found, nowIso, one, requireOwn, requireStudent } from '../shared/lookup.js';
import { cgpaOf, eligibilityOf } from '../shared/rules.js';
import { defineTool, ToolError } from '../shared/tool.js';
import type { Db } from '../shared/db.js';

const scholarshipId = z.string().regex(/^SCH\d{2}$/, 'scholarship_id must look like SCH01').describe('Scholarship id, e.g. SCH02 (list_scholarships).');

interface Invoice { invoice_id: number; student_id: string; category: string; description: string; amount: number; paid: number; due_date: string; late_fee_waived: number }

/** Late fee accrued on an overdue balance: per day, capped, unless waived; not on exam-office fees. */
export function lateFee(inv: Invoice): number {
  if (inv.late_fee_waived || inv.amount <= inv.paid || ['revaluation', 'supplementary'].includes(inv.category)) return 0;
  return Math.min(LATE_FEE_CAP, Math.max(0, daysBetween(inv.due_date, TODAY)) * LATE_FEE_PER_DAY);
}

function requireInvoice(db: Db, studentId: string, invoiceId: number): Invoice {
  return requireOwn<Invoice>(db, { table: 'invoices', key: 'invoice_id', id: invoiceId, ownerColumn: 'student_id', owner: studentId, what: 'Invoice' });
}

function scholarshipCheck(db: Db, studentId: string, sch: { scholarship_id: string; name: string; min_cgpa: number; max_family_income: number | null; dept_id: string | null; min_year: number; deadline: string }) {
  const s = requireStudent(db, studentId);
  const cgpa = cgpaOf(db, studentId).cgpa;
  const unmet: string[] = [];
  if (cgpa === null || cgpa < sch.min_cgpa) unmet.push(`CGPA ${cgpa ?? 'n/a'} below ${sch.min_cgpa}`);
  if (sch.max_family_income !== null && s.family_income > sch.max_family_income) unmet.push(`family income ${s.family_income} above ${sch.max_family_income}`);
  if (sch.dept_id && s.dept_id !== sch.dept_id) unmet.push(`only for ${sch.dept_id} students`);
  if (s.year < sch.min_year) unmet.push(`only from year ${sch.min_year}`);
  if (TODAY > sch.deadline) unmet.push(`deadline ${sch.deadline} has passed`);
  return { scholarship_id: sch.scholarship_id, name: sch.name, eligible: unmet.length === 0, unmet };
}

export const studentTools = [
  defineTool({
    name: 'get_fee_dues',
    description: 'Returns a student\'s OUTSTANDING fees only: every invoice with a balance (tuition, exam, hostel, mess, revaluation, supplementary), its due date, days overdue, late fee accrued and any installment plan, with the total payable and whether the dues bar the student from exams.',
    input: { ...asStudent },
    run: ({ student_id }, db) => {
      requireStudent(db, student_id);
      const open = all<Invoice>(db, 'SELECT * FROM invoices WHERE student_id = ? AND amount > paid ORDER BY due_date, invoice_id', student_id).map((i) => ({
        invoice_id: i.invoice_id, category: i.category, description: i.description, amount: i.amount, paid: i.paid, balance: i.amount - i.paid,
        due_date: i.due_date, days_overdue: Math.max(0, daysBetween(i.due_date, TODAY)), late_fee: lateFee(i),
        installment_plan: one<{ plan_id: number; installments: number; status: string }>(db, "SELECT plan_id, installments, status FROM installment_plans WHERE invoice_id = ? AND status <> 'rejected' ORDER BY plan_id DESC LIMIT 1", i.invoice_id) ?? null,
      }));
      const balance = open.reduce((s, i) => s + i.balance, 0);
      return { student_id, invoices: open, total_balance: balance, total_late_fees: open.reduce((s, i) => s + i.late_fee, 0), blocks_exams: !eligibilityOf(db, student_id).fee_cleared };
    },
  }),
  defineTool({
    name: 'get_fee_structure',
    description: `Returns the fee schedule per term (${CURRENT_TERM}): tuition, examination fee, hostel rent, mess plans, late-fee rule, revaluation and supplementary fees. Same for every programme and year.`,
    input: {},
    run: () => ({ term: CURRENT_TERM, tuition: TUITION, examination: EXAM_FEE, hostel_rent: HOSTEL_RENT, mess_plans: MESS_PLANS, late_fee: { per_day: LATE_FEE_PER_DAY, cap: LATE_FEE_CAP }, revaluation_per_course: 500, supplementary_per_course: 1200, due_dates: { tuition: '2025-08-31', hostel_and_mess: '2025-08-31', examination: '2025-10-31' } }),
  }),
  defineTool({
    name: 'make_payment',
    description: 'Pays all or part of one of the student\'s invoices and issues a receipt. Paying off tuition and exam fees lifts the fee block on exam eligibility. Returns the payment, receipt number and remaining balance.',
    action: true,
    input: { ...asStudent, invoice_id: positiveId('invoice_id').describe('Invoice to pay (get_fee_dues).'), amount: z.number().int('amount must be whole rupees').positive('amount must be positive').describe('Amount in rupees, at most the invoice balance.'), method: z.enum(['upi', 'card', 'netbanking']).describe('Payment method.') },
    run: ({ student_id, invoice_id, amount, method }, db) => {
      requireStudent(db, student_id);
      const inv = requireInvoice(db, student_id, invoice_id);
      const balance = inv.amount - inv.paid;
      if (balance <= 0) throw new ToolError(`Invoice ${invoice_id} is already paid in full.`);
      if (amount > balance) throw new ToolError(`amount ${amount} exceeds the balance of ${balance} on invoice ${invoice_id}.`);
      const id = Number(db.prepare('INSERT INTO payments (invoice_id, student_id, amount, method, receipt_no, paid_at) VALUES (?, ?, ?, ?, ?, ?)').run(invoice_id, student_id, amount, method, `TMP-${Date.now()}-${invoice_id}`, nowIso()).lastInsertRowid);
      const receipt = `RCPT-2025-${String(id).padStart(6, '0')}`;
      db.prepare('UPDATE payments SET receipt_no = ? WHERE payment_id = ?').run(receipt, id);
      db.prepare('UPDATE invoices SET paid = paid + ? WHERE invoice_id = ?').run(amount, invoice_id);
      return { payment_id: id, receipt_no: receipt, invoice_id, amount, method, remaining_balance: balance - amount, exam_fee_block_cleared: eligibilityOf(db, student_id).fee_cleared };
    },
  }),
  defineTool({
    name: 'get_payment_history',
    description: 'Returns every payment a student has made: date, amount, method, the invoice it paid and the receipt number.',
    input: { ...asStudent },
    run: ({ student_id }, db) => {
      requireStudent(db, student_id);
      return all(db, 'SELECT p.payment_id, p.paid_at, p.amount, p.method, p.receipt_no, p.invoice_id, i.description FROM payments p JOIN invoices i ON i.invoice_id = p.invoice_id WHERE p.student_id = ? ORDER BY p.payment_id', student_id);
    },
  }),
  defineTool({
    name: 'get_payment_receipt',
    description: 'Returns the official receipt of one payment: receipt number, student name and programme, what was paid for, amount, method and date.',
    input: { ...asStudent, payment_id: positiveId('payment_id').describe('Payment id (get_payment_history).') },
    run: ({ student_id, payment_id }, db) => {
      const s = requireStudent(db, student_id);
      const p = requireOwn<{ invoice_id: number }>(db, { table: 'payments', key: 'payment_id', id: payment_id, ownerColumn: 'student_id', owner: student_id, what: 'Payment' });
      const paidFor = one<{ description: string; term: string }>(db, 'SELECT description, term FROM invoices WHERE invoice_id = ?', p.invoice_id);
      return { ...p, ...paidFor, student_name: s.name, program: s.program, issued_by: 'Accounts and Fees Section' };
    },
  }),
  defineTool({
    name: 'request_installment_plan',
    description: 'Asks the accounts office to split an unpaid tuition, hostel or mess invoice into 2–4 installments. The request stays pending until approved; an approved plan stops the invoice from barring exams.',
    action: true,
    input: { ...asStudent, invoice_id: positiveId('invoice_id').describe('Invoice to split (get_fee_dues).'), installments: z.number().int().min(2, 'installments must be 2 to 4').max(4, 'installments must be 2 to 4').describe('Number of installments, 2–4.') },
    run: ({ student_id, invoice_id, installments }, db) => {
      requireStudent(db, student_id);
      const inv = requireInvoice(db, student_id, invoice_id);
      if (inv.amount <= inv.paid) throw new ToolError(`Invoice ${invoice_id} has no balance to split.`);
      if (!['tuition', 'hostel', 'mess'].includes(inv.category)) throw new ToolError(`Only tuition, hostel and mess invoices can be paid in installments; invoice ${invoice_id} is ${inv.category}.`);
      const open = one<{ plan_id: number; status: string }>(db, "SELECT plan_id, status FROM installment_plans WHERE invoice_id = ? AND status IN ('pending', 'approved')", invoice_id);
      if (open) throw new ToolError(`Installment plan ${open.plan_id} for invoice ${invoice_id} is already ${open.status}.`);
      const id = Number(db.prepare("INSERT INTO installment_plans (invoice_id, student_id, installments, status, created_at) VALUES (?, ?, ?, 'pending', ?)").run(invoice_id, student_id, installments, nowIso()).lastInsertRowid);
      return { plan_id: id, invoice_id, installments, per_installment: Math.ceil((inv.amount - inv.paid) / installments), status: 'pending' };
    },
  }),
  defineTool({
    name: 'list_scholarships',
    description: 'Returns the scholarships on offer with amount, kind, eligibility criteria (minimum CGPA, family income ceiling, department, year) and application deadline.',
    input: {},
    run: (_a, db) => all(db, 'SELECT * FROM scholarships ORDER BY scholarship_id'),
  }),
  defineTool({
    name: 'check_scholarship_eligibility',
    description: 'Checks a student against one scholarship\'s criteria, or all of them: eligible or not, and each unmet criterion (CGPA, family income, department, year, deadline).',
    input: { ...asStudent, scholarship_id: scholarshipId.optional() },
    run: ({ student_id, scholarship_id }, db) => {
      requireStudent(db, student_id);
      const list = all<Parameters<typeof scholarshipCheck>[2]>(db, 'SELECT * FROM scholarships WHERE (@id IS NULL OR scholarship_id = @id) ORDER BY scholarship_id', { id: scholarship_id ?? null });
      if (list.length === 0) throw new ToolError(`Unknown scholarship_id '${scholarship_id}'.`);
      return list.map((sch) => scholarshipCheck(db, student_id, sch));
    },
  }),
  defineTool({
    name: 'apply_for_scholarship',
    description: 'Submits a scholarship application for a student who meets its criteria. Returns the application id and status.',
    action: true,
    input: { ...asStudent, scholarship_id: scholarshipId, statement: z.string().min(10, 'statement must be at least 10 characters').describe('Why the student should receive it.') },
    run: ({ student_id, scholarship_id, statement }, db) => {
      const sch = found(one<Parameters<typeof scholarshipCheck>[2]>(db, 'SELECT * FROM scholarships WHERE scholarship_id = ?', scholarship_id), `Unknown scholarship_id '${scholarship_id}'.`);
      const check = scholarshipCheck(db, student_id, sch);
      if (!check.eligible) throw new ToolError(`${student_id} is not eligible for ${scholarship_id}: ${check.unmet.join('; ')}.`);
      const open = one<{ application_id: number; status: string }>(db, "SELECT application_id, status FROM scholarship_applications WHERE student_id = ? AND scholarship_id = ? AND status IN ('pending', 'approved', 'disbursed')", student_id, scholarship_id);
      if (open) throw new ToolError(`Application ${open.application_id} for ${scholarship_id} is already ${open.status}.`);
      const id = Number(db.prepare("INSERT INTO scholarship_applications (scholarship_id, student_id, statement, status, created_at) VALUES (?, ?, ?, 'pending', ?)").run(scholarship_id, student_id, statement, nowIso()).lastInsertRowid);
      return { application_id: id, scholarship_id, name: sch.name, status: 'pending' };
    },
  }),
  defineTool({
    name: 'get_scholarship_status',
    description: 'Returns a student\'s scholarship applications with scholarship name, amount and status (pending, approved, rejected, disbursed, withdrawn).',
    input: { ...asStudent },
    run: ({ student_id }, db) => {
      requireStudent(db, student_id);
      return all(db, 'SELECT a.application_id, a.scholarship_id, s.name, s.amount, a.status, a.created_at FROM scholarship_applications a JOIN scholarships s ON s.scholarship_id = a.scholarship_id WHERE a.student_id = ? ORDER BY a.application_id', student_id);
    },
  }),
  defineTool({
    name: 'withdraw_scholarship_application',
    description: 'Withdraws a student\'s PENDING scholarship application. Returns the withdrawn application.',
    action: true,
    destructive: true,
    input: { ...asStudent, application_id: positiveId('application_id').describe('Application id (get_scholarship_status).') },
    run: ({ student_id, application_id }, db) => {
      requireStudent(db, student_id);
      const app = requireOwn<{ student_id: string; status: string; scholarship_id: string }>(db, { table: 'scholarship_applications', key: 'application_id', id: application_id, ownerColumn: 'student_id', owner: student_id, what: 'Application' });
      if (app.status !== 'pending') throw new ToolError(`Application ${application_id} is ${app.status}; only pending applications can be withdrawn.`);
      db.prepare("UPDATE scholarship_applications SET status = 'withdrawn' WHERE application_id = ?").run(application_id);
      return { application_id, scholarship_id: app.scholarship_id, status: 'withdrawn' };
    },
  }),
  defineTool({
    name: 'request_refund',
    description: 'Requests a refund of all or part of a payment the student made (excess or duplicate payment, withdrawal). Returns the pending refund request.',
    action: true,
    input: { ...asStudent, payment_id: positiveId('payment_id').describe('Payment to refund (get_payment_history).'), amount: z.number().int().positive('amount must be positive').describe('Amount in rupees.'), reason: z.string().min(5, 'reason is required').describe('Why the refund is due.') },
    run: ({ student_id, payment_id, amount, reason }, db) => {
      requireStudent(db, student_id);
      const p = requireOwn<{ student_id: string; amount: number }>(db, { table: 'payments', key: 'payment_id', id: payment_id, ownerColumn: 'student_id', owner: student_id, what: 'Payment' });
      const claimed = one<{ s: number }>(db, "SELECT COALESCE(SUM(amount), 0) AS s FROM refunds WHERE payment_id = ? AND status <> 'rejected'", payment_id)!.s;
      if (amount > p.amount - claimed) throw new ToolError(`amount ${amount} exceeds what is refundable on payment ${payment_id} (${p.amount - claimed}).`);
      const id = Number(db.prepare("INSERT INTO refunds (student_id, payment_id, amount, reason, status, created_at) VALUES (?, ?, ?, ?, 'pending', ?)").run(student_id, payment_id, amount, reason, nowIso()).lastInsertRowid);
      return { refund_id: id, payment_id, amount, status: 'pending' };
    },
  }),
  defineTool({
    name: 'get_refund_status',
    description: 'Returns a student\'s refund requests with payment, amount, reason and status (pending, approved, rejected, processed).',
    input: { ...asStudent },
    run: ({ student_id }, db) => {
      requireStudent(db, student_id);
      return all(db, 'SELECT refund_id, payment_id, amount, reason, status, decided_by, created_at FROM refunds WHERE student_id = ? ORDER BY refund_id', student_id);
    },
  }),
];
