/**
 * Library tools for librarians and leadership: issue and return at the counter, overdue
 * list, bookings, purchase suggestions, member summaries and usage and fine reports.
 */
import { z } from 'zod';
import { asEmployee, asMember, isoDate, positiveId } from '../shared/args.js';
import { addDays } from '../shared/dates.js';
import { TODAY } from '../shared/fixture.js';
import { all, found, one, requireEmployee, requireMember } from '../shared/lookup.js';
import { defineTool, ToolError } from '../shared/tool.js';
import { accruingFine, availableCopies, bookId, kindOf, LOAN_DAYS, LOAN_LIMIT, requireBook } from './common.js';

export const librarianTools = [
  defineTool({
    name: 'issue_book',
    description: 'Librarian: lends a copy of a book to a member at the counter (students 21 days, faculty 60), within the member\'s borrowing limit and if a copy is free. A member\'s own active reservation of the book is fulfilled.',
    action: true,
    input: { ...asEmployee, book_id: bookId, ...asMember },
    run: ({ employee_id, book_id, student_id, faculty_id }, db) => {
      requireEmployee(db, employee_id, ['librarian']);
      const member = requireMember(db, { student_id, faculty_id });
      const b = requireBook(db, book_id);
      if (availableCopies(db, book_id) <= 0) throw new ToolError(`No copy of ${book_id} is free; reserve_book puts the member in the queue.`);
      const held = one<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM loans WHERE member_id = ? AND returned_on IS NULL', member)!.n;
      if (held >= LOAN_LIMIT[kindOf(member)]) throw new ToolError(`${member} already has ${held} books, the limit for a ${kindOf(member)}.`);
      const due = addDays(TODAY, LOAN_DAYS[kindOf(member)]);
      const id = Number(db.prepare('INSERT INTO loans (book_id, member_id, issued_on, due_on, renewals) VALUES (?, ?, ?, ?, 0)').run(book_id, member, TODAY, due).lastInsertRowid);
      db.prepare("UPDATE reservations SET status = 'fulfilled' WHERE book_id = ? AND member_id = ? AND status = 'active'").run(book_id, member);
      return { loan_id: id, book_id, title: b.title, member_id: member, issued_on: TODAY, due_on: due };
    },
  }),
  defineTool({
    name: 'return_book',
    description: 'Librarian: checks a borrowed book back in; a late return assesses a fine of 5 per day. Returns the closed loan and any fine.',
    action: true,
    input: { ...asEmployee, loan_id: positiveId('loan_id').describe('Loan id of the book being returned.') },
    run: ({ employee_id, loan_id }, db) => {
      requireEmployee(db, employee_id, ['librarian']);
      const l = found(one<{ member_id: string; due_on: string; returned_on: string | null; book_id: string }>(db, 'SELECT * FROM loans WHERE loan_id = ?', loan_id), `Unknown loan_id ${loan_id}: no such loan.`);
      if (l.returned_on) throw new ToolError(`Loan ${loan_id} was already returned on ${l.returned_on}.`);
      db.prepare('UPDATE loans SET returned_on = ? WHERE loan_id = ?').run(TODAY, loan_id);
      const fine = accruingFine(l.due_on);
      const fineId = fine > 0 ? Number(db.prepare("INSERT INTO library_fines (member_id, loan_id, amount, reason, status) VALUES (?, ?, ?, ?, 'unpaid')").run(l.member_id, loan_id, fine, `Returned ${fine / 5} days late`).lastInsertRowid) : null;
      return { loan_id, book_id: l.book_id, member_id: l.member_id, returned_on: TODAY, fine, fine_id: fineId };
    },
  }),
  defineTool({
    name: 'get_overdue_loans',
    description: 'Returns every loan past its due date and not returned, across all members, with member, book, days overdue and fine accrued.',
    input: {},
    run: (_a, db) => all<{ due_on: string }>(db, 'SELECT l.loan_id, l.member_id, l.book_id, b.title, l.due_on FROM loans l JOIN books b ON b.book_id = l.book_id WHERE l.returned_on IS NULL AND l.due_on < ? ORDER BY l.due_on', TODAY)
      .map((l) => ({ ...l, days_overdue: accruingFine(l.due_on) / 5, fine_accrued: accruingFine(l.due_on) })),
  }),
  defineTool({
    name: 'get_study_room_bookings',
    description: 'Returns confirmed study room bookings across members for a date (default today), optionally for one room.',
    input: { date: isoDate('date').optional().describe(`Date, default ${TODAY}.`), room_id: z.string().regex(/^SR\d$/, 'room_id must look like SR1').optional().describe('Only this room.') },
    run: ({ date, room_id }, db) => all(db, "SELECT booking_id, room_id, member_id, date, slot, purpose, status FROM room_bookings WHERE date = @d AND (@r IS NULL OR room_id = @r) AND status = 'confirmed' ORDER BY room_id, slot", { d: date ?? TODAY, r: room_id ?? null }),
  }),
  defineTool({
    name: 'get_purchase_suggestions',
    description: 'Returns members\' book purchase suggestions for the acquisitions desk, optionally by status (under review, ordered, declined).',
    input: { status: z.enum(['under review', 'ordered', 'declined']).optional().describe('Only suggestions with this status.') },
    run: ({ status }, db) => all(db, 'SELECT suggestion_id, member_id, title, author, reason, status, created_at FROM purchase_suggestions WHERE (@s IS NULL OR status = @s) ORDER BY suggestion_id', { s: status ?? null }),
  }),
  defineTool({
    name: 'get_library_member_summary',
    description: 'Librarian\'s view of one member: books on loan against the borrowing limit, overdue books, active reservations and unpaid fines.',
    input: { ...asMember },
    run: (args, db) => {
      const member = requireMember(db, args);
      const onLoan = one<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM loans WHERE member_id = ? AND returned_on IS NULL', member)!.n;
      return {
        member_id: member, kind: kindOf(member), on_loan: onLoan, limit: LOAN_LIMIT[kindOf(member)],
        overdue: one<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM loans WHERE member_id = ? AND returned_on IS NULL AND due_on < ?', member, TODAY)!.n,
        active_reservations: one<{ n: number }>(db, "SELECT COUNT(*) AS n FROM reservations WHERE member_id = ? AND status = 'active'", member)!.n,
        unpaid_fines: one<{ s: number }>(db, "SELECT COALESCE(SUM(amount), 0) AS s FROM library_fines WHERE member_id = ? AND status = 'unpaid'", member)!.s,
      };
    },
  }),
  defineTool({
    name: 'get_library_usage_report',
    description: 'Returns library usage for leadership: loans issued per month, books currently out, borrowers by member type, the five most borrowed titles and study room bookings this week.',
    input: {},
    run: (_a, db) => ({
      loans_per_month: all(db, "SELECT substr(issued_on, 1, 7) AS month, COUNT(*) AS loans FROM loans GROUP BY month ORDER BY month"),
      books_out_now: one<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM loans WHERE returned_on IS NULL')!.n,
      borrowers: all(db, "SELECT CASE WHEN member_id LIKE 'S%' THEN 'student' ELSE 'faculty' END AS member_type, COUNT(DISTINCT member_id) AS members, COUNT(*) AS loans FROM loans GROUP BY member_type"),
      most_borrowed: all(db, 'SELECT l.book_id, b.title, COUNT(*) AS loans FROM loans l JOIN books b ON b.book_id = l.book_id GROUP BY l.book_id ORDER BY loans DESC, l.book_id LIMIT 5'),
      study_room_bookings_next_7_days: one<{ n: number }>(db, "SELECT COUNT(*) AS n FROM room_bookings WHERE date BETWEEN ? AND ? AND status = 'confirmed'", TODAY, addDays(TODAY, 7))!.n,
    }),
  }),
  defineTool({
    name: 'get_fine_collection_report',
    description: 'Returns library fine totals for leadership: assessed, collected and outstanding, by member type, plus fines accruing on overdue loans.',
    input: {},
    run: (_a, db) => ({
      by_member_type: all(db, "SELECT CASE WHEN member_id LIKE 'S%' THEN 'student' ELSE 'faculty' END AS member_type, SUM(amount) AS assessed, SUM(CASE WHEN status = 'paid' THEN amount ELSE 0 END) AS collected, SUM(CASE WHEN status = 'unpaid' THEN amount ELSE 0 END) AS outstanding FROM library_fines GROUP BY member_type"),
      accruing_on_overdue_loans: all<{ due_on: string }>(db, 'SELECT due_on FROM loans WHERE returned_on IS NULL AND due_on < ?', TODAY).reduce((s, l) => s + accruingFine(l.due_on), 0),
    }),
  }),
];
