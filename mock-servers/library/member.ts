/**
 * Library tools for members (students and faculty): catalogue search, loans, renewals,
 * reservations, fines, study rooms, history and purchase suggestions. Each takes
 * student_id or faculty_id: the gateway injects whichever the signed-in user has.
 */
import { z } from 'zod';
import { asMember, isoDate, positiveId } from '../shared/args.js';
import { addDays } from '../shared/dates.js';
import { STUDY_SLOTS, TODAY } from '../shared/fixture.js';
import { all, found, nowIso, one, requireMember, requireOwn } from '../shared/lookup.js';
import { defineTool, ToolError } from '../shared/tool.js';
import { accruingFine, availableCopies, bookId, kindOf, MAX_RENEWALS, RENEW_DAYS, requireBook } from './common.js';

const roomId = z.string().regex(/^SR\d$/, 'room_id must look like SR1').describe('Study room id, SR1–SR6 (list_study_rooms).');

export const memberTools = [
  defineTool({
    name: 'search_library_catalogue',
    description: 'Searches the library catalogue by words in the title, author or subject; returns matching books (all words matched first, then partial matches) with id, author, subject, shelf location, copies and copies available now.',
    input: { query: z.string().min(2, 'query needs at least 2 characters').describe('Words from the title, author or subject, e.g. "operating systems" or "Tanenbaum".'), subject: z.string().optional().describe('Only this subject, e.g. Electronics.') },
    run: ({ query, subject }, db) => {
      // Crude stemming (systems -> system) so plural queries still find singular titles.
      const words = query.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 1).map((w) => (w.length > 3 ? w.replace(/s$/, '') : w));
      return all<{ book_id: string; title: string; author: string; subject: string }>(db, 'SELECT book_id, title, author, subject, location, copies FROM books WHERE (@s IS NULL OR subject = @s) ORDER BY book_id', { s: subject ?? null })
        .map((b) => ({ b, hits: words.filter((w) => `${b.title} ${b.author} ${b.subject}`.toLowerCase().includes(w)).length }))
        .filter((x) => x.hits > 0)
        .sort((x, y) => y.hits - x.hits)
        .slice(0, 20)
        .map(({ b }) => ({ ...b, available: availableCopies(db, b.book_id) }));
    },
  }),
  defineTool({
    name: 'get_book_details',
    description: 'Returns one book\'s full record (title, author, ISBN, subject, shelf) with copies available now, the earliest due date if all are out, and how many members are waiting for it.',
    input: { book_id: bookId },
    run: ({ book_id }, db) => {
      const b = requireBook(db, book_id);
      return {
        ...b, available: availableCopies(db, book_id),
        next_due: one<{ d: string | null }>(db, 'SELECT MIN(due_on) AS d FROM loans WHERE book_id = ? AND returned_on IS NULL', book_id)!.d,
        waiting_reservations: one<{ n: number }>(db, "SELECT COUNT(*) AS n FROM reservations WHERE book_id = ? AND status = 'active'", book_id)!.n,
      };
    },
  }),
  defineTool({
    name: 'get_library_loans',
    description: 'Returns the books a member has borrowed and NOT yet returned: loan id, title, issue and due dates, days overdue, fine accruing and renewals left. Past loans are in get_loan_history.',
    input: { ...asMember },
    run: (args, db) => {
      const member = requireMember(db, args);
      return all<{ due_on: string; renewals: number }>(db, 'SELECT l.loan_id, l.book_id, b.title, l.issued_on, l.due_on, l.renewals FROM loans l JOIN books b ON b.book_id = l.book_id WHERE l.member_id = ? AND l.returned_on IS NULL ORDER BY l.due_on', member)
        .map((l) => ({ ...l, overdue: l.due_on < TODAY, fine_accruing: accruingFine(l.due_on), renewals_left: MAX_RENEWALS - l.renewals }));
    },
  }),
  defineTool({
    name: 'renew_book_loan',
    description: `Extends the due date of a book a member has on loan (students 14 days, faculty 30), at most ${MAX_RENEWALS} times, not once overdue and not while another member has reserved the book. Returns the new due date.`,
    action: true,
    input: { ...asMember, loan_id: positiveId('loan_id').describe('Loan id (get_library_loans).') },
    run: (args, db) => {
      const member = requireMember(db, args);
      const l = requireOwn<{ member_id: string; book_id: string; due_on: string; returned_on: string | null; renewals: number }>(db, { table: 'loans', key: 'loan_id', id: args.loan_id, ownerColumn: 'member_id', owner: member, what: 'Loan' });
      if (l.returned_on) throw new ToolError(`Loan ${args.loan_id} was returned on ${l.returned_on}.`);
      if (l.due_on < TODAY) throw new ToolError(`Loan ${args.loan_id} is overdue since ${l.due_on}; return the book and pay the fine instead.`);
      if (l.renewals >= MAX_RENEWALS) throw new ToolError(`Loan ${args.loan_id} was already renewed ${l.renewals} times (the maximum).`);
      if (one(db, "SELECT 1 FROM reservations WHERE book_id = ? AND status = 'active' AND member_id <> ?", l.book_id, member)) throw new ToolError(`Another member has reserved ${l.book_id}; it cannot be renewed.`);
      const due = addDays(l.due_on, RENEW_DAYS[kindOf(member)]);
      db.prepare('UPDATE loans SET due_on = ?, renewals = renewals + 1 WHERE loan_id = ?').run(due, args.loan_id);
      return { loan_id: args.loan_id, book_id: l.book_id, old_due: l.due_on, new_due: due, renewals_left: MAX_RENEWALS - l.renewals - 1 };
    },
  }),
  defineTool({
    name: 'reserve_book',
    description: 'Places a hold on a book for a member; they are notified when a copy is free. Returns the reservation id and queue position.',
    action: true,
    input: { ...asMember, book_id: bookId },
    run: (args, db) => {
      const member = requireMember(db, args);
      const b = requireBook(db, args.book_id);
      if (one(db, 'SELECT 1 FROM loans WHERE book_id = ? AND member_id = ? AND returned_on IS NULL', args.book_id, member)) throw new ToolError(`${member} already has ${args.book_id} on loan.`);
      const mine = one<{ reservation_id: number }>(db, "SELECT reservation_id FROM reservations WHERE book_id = ? AND member_id = ? AND status = 'active'", args.book_id, member);
      if (mine) throw new ToolError(`${member} already holds reservation ${mine.reservation_id} for ${args.book_id}.`);
      const id = Number(db.prepare("INSERT INTO reservations (book_id, member_id, status, created_at) VALUES (?, ?, 'active', ?)").run(args.book_id, member, nowIso()).lastInsertRowid);
      const position = one<{ n: number }>(db, "SELECT COUNT(*) AS n FROM reservations WHERE book_id = ? AND status = 'active'", args.book_id)!.n;
      return { reservation_id: id, book_id: b.book_id, title: b.title, queue_position: position, available_now: availableCopies(db, b.book_id) };
    },
  }),
  defineTool({
    name: 'cancel_book_reservation',
    description: 'Cancels a member\'s active book reservation (hold). Returns the cancelled reservation.',
    action: true,
    destructive: true,
    input: { ...asMember, reservation_id: positiveId('reservation_id').describe('Reservation id (get_book_reservations).') },
    run: (args, db) => {
      const member = requireMember(db, args);
      const r = requireOwn<{ member_id: string; status: string; book_id: string }>(db, { table: 'reservations', key: 'reservation_id', id: args.reservation_id, ownerColumn: 'member_id', owner: member, what: 'Reservation' });
      if (r.status !== 'active') throw new ToolError(`Reservation ${args.reservation_id} is already ${r.status}.`);
      db.prepare("UPDATE reservations SET status = 'cancelled' WHERE reservation_id = ?").run(args.reservation_id);
      return { reservation_id: args.reservation_id, book_id: r.book_id, status: 'cancelled' };
    },
  }),
  defineTool({
    name: 'get_book_reservations',
    description: 'Returns a member\'s book reservations (holds) with title, status (active, fulfilled, cancelled) and queue position of active ones.',
    input: { ...asMember },
    run: (args, db) => {
      const member = requireMember(db, args);
      return all(db, `SELECT r.reservation_id, r.book_id, b.title, r.status, r.created_at,
        CASE r.status WHEN 'active' THEN (SELECT COUNT(*) FROM reservations q WHERE q.book_id = r.book_id AND q.status = 'active' AND q.reservation_id <= r.reservation_id) END AS queue_position
        FROM reservations r JOIN books b ON b.book_id = r.book_id WHERE r.member_id = ? ORDER BY r.reservation_id`, member);
    },
  }),
  defineTool({
    name: 'get_library_fines',
    description: 'Returns a member\'s library fines (assessed for late returns or damage) with amount and paid/unpaid status, plus fines still accruing on overdue books, and the total unpaid.',
    input: { ...asMember },
    run: (args, db) => {
      const member = requireMember(db, args);
      const fines = all<{ amount: number; status: string }>(db, 'SELECT fine_id, loan_id, amount, reason, status, paid_on FROM library_fines WHERE member_id = ? ORDER BY fine_id', member);
      const accruing = all<{ due_on: string }>(db, 'SELECT loan_id, book_id, due_on FROM loans WHERE member_id = ? AND returned_on IS NULL AND due_on < ?', member, TODAY).map((l) => ({ ...l, fine_so_far: accruingFine(l.due_on) }));
      return { member_id: member, fines, accruing_on_overdue_loans: accruing, total_unpaid: fines.filter((f) => f.status === 'unpaid').reduce((s, f) => s + f.amount, 0) };
    },
  }),
  defineTool({
    name: 'pay_library_fine',
    description: 'Pays one unpaid library fine at the library counter or online (separate from tuition and hostel fee invoices). Returns the paid fine.',
    action: true,
    input: { ...asMember, fine_id: positiveId('fine_id').describe('Fine id (get_library_fines).'), method: z.enum(['upi', 'card', 'cash']).describe('Payment method.') },
    run: (args, db) => {
      const member = requireMember(db, args);
      const f = requireOwn<{ member_id: string; status: string; amount: number }>(db, { table: 'library_fines', key: 'fine_id', id: args.fine_id, ownerColumn: 'member_id', owner: member, what: 'Fine' });
      if (f.status !== 'unpaid') throw new ToolError(`Fine ${args.fine_id} is already ${f.status}.`);
      db.prepare("UPDATE library_fines SET status = 'paid', paid_on = ? WHERE fine_id = ?").run(TODAY, args.fine_id);
      return { fine_id: args.fine_id, amount: f.amount, method: args.method, status: 'paid', paid_on: TODAY };
    },
  }),
  defineTool({
    name: 'book_study_room',
    description: `Books a library study or discussion room for a member for one 2-hour slot (${STUDY_SLOTS.join(', ')}) within the next 7 days, one booking per member per day. Returns the booking id.`,
    action: true,
    input: { ...asMember, room_id: roomId, date: isoDate('date').describe('Day of the booking, YYYY-MM-DD.'), slot: z.enum(STUDY_SLOTS).describe('Two-hour slot.'), purpose: z.string().min(3, 'purpose is required').describe('What the room is for.') },
    run: (args, db) => {
      const member = requireMember(db, args);
      found(one(db, 'SELECT 1 FROM study_rooms WHERE room_id = ?', args.room_id), `Unknown room_id '${args.room_id}': rooms are SR1–SR6.`);
      if (args.date < TODAY || args.date > addDays(TODAY, 7)) throw new ToolError(`date must be between ${TODAY} and ${addDays(TODAY, 7)}.`);
      if (one(db, "SELECT 1 FROM room_bookings WHERE room_id = ? AND date = ? AND slot = ? AND status = 'confirmed'", args.room_id, args.date, args.slot)) throw new ToolError(`${args.room_id} is already booked on ${args.date} ${args.slot}; list_study_rooms shows free slots.`);
      if (one(db, "SELECT 1 FROM room_bookings WHERE member_id = ? AND date = ? AND status = 'confirmed'", member, args.date)) throw new ToolError(`${member} already has a study room booking on ${args.date}.`);
      const id = Number(db.prepare("INSERT INTO room_bookings (room_id, member_id, date, slot, purpose, status, created_at) VALUES (?, ?, ?, ?, ?, 'confirmed', ?)").run(args.room_id, member, args.date, args.slot, args.purpose, nowIso()).lastInsertRowid);
      return { booking_id: id, room_id: args.room_id, date: args.date, slot: args.slot, status: 'confirmed' };
    },
  }),
  defineTool({
    name: 'list_study_rooms',
    description: 'Returns the library study rooms (capacity, floor, facilities) with the slots still free on a date.',
    input: { date: isoDate('date').optional().describe(`Date, YYYY-MM-DD; defaults to today (${TODAY}).`) },
    run: ({ date }, db) => {
      const d = date ?? TODAY;
      return all<{ room_id: string }>(db, 'SELECT * FROM study_rooms ORDER BY room_id').map((r) => {
        const taken = all<{ slot: string }>(db, "SELECT slot FROM room_bookings WHERE room_id = ? AND date = ? AND status = 'confirmed'", r.room_id, d).map((b) => b.slot);
        return { ...r, date: d, free_slots: STUDY_SLOTS.filter((s) => !taken.includes(s)) };
      });
    },
  }),
  defineTool({
    name: 'suggest_book_purchase',
    description: 'Recommends a title for the library to buy, with the reason (course reference, research). Returns the suggestion id.',
    action: true,
    input: { ...asMember, title: z.string().min(2, 'title is required').describe('Book title.'), author: z.string().min(2, 'author is required').describe('Author(s).'), reason: z.string().min(3, 'reason is required').describe('Why the library should buy it.') },
    run: (args, db) => {
      const member = requireMember(db, args);
      const id = Number(db.prepare("INSERT INTO purchase_suggestions (member_id, title, author, reason, status, created_at) VALUES (?, ?, ?, ?, 'under review', ?)").run(member, args.title, args.author, args.reason, nowIso()).lastInsertRowid);
      return { suggestion_id: id, title: args.title, status: 'under review' };
    },
  }),
  defineTool({
    name: 'get_loan_history',
    description: 'Returns a member\'s PAST loans (books already returned) with issue, due and return dates and days late. Current loans are in get_library_loans.',
    input: { ...asMember },
    run: (args, db) => {
      const member = requireMember(db, args);
      return all(db, `SELECT l.loan_id, l.book_id, b.title, l.issued_on, l.due_on, l.returned_on, MAX(0, CAST(julianday(l.returned_on) - julianday(l.due_on) AS INTEGER)) AS days_late
        FROM loans l JOIN books b ON b.book_id = l.book_id WHERE l.member_id = ? AND l.returned_on IS NOT NULL ORDER BY l.returned_on DESC`, member);
    },
  }),
  defineTool({
    name: 'get_new_arrivals',
    description: 'Returns books added to the library in the last 60 days, newest first, optionally for one subject.',
    input: { subject: z.string().optional().describe('Only this subject.') },
    run: ({ subject }, db) => all(db, 'SELECT book_id, title, author, subject, added_on, copies FROM books WHERE added_on >= @since AND (@s IS NULL OR subject = @s) ORDER BY added_on DESC', { since: addDays(TODAY, -60), s: subject ?? null }),
  }),
];
