/**
 * Hostel tools a resident uses: their room, room change, leave, mess menu and plan,
 * visitors and maintenance requests. Day scholars are refused with a clear message.
 */
import { z } from 'zod';
import { asStudent, isoDate, positiveId } from '../shared/args.js';
import { addDays } from '../shared/dates.js';
import { MESS_PLANS, TODAY } from '../shared/fixture.js';
import { all, found, nowIso, one, requireOwn, requireStudent } from '../shared/lookup.js';
import { defineTool, ToolError } from '../shared/tool.js';
import type { Db } from '../shared/db.js';

const block = z.enum(['ARV', 'NLG', 'SHV', 'VND']).describe('Hostel block: ARV (Aravali), NLG (Nilgiri), SHV (Shivalik), VND (Vindhya).');
const PLAN_START = '2025-12-01';

/** The resident's room, or a refusal naming the student as a day scholar. */
export function requireResident(db: Db, studentId: string): { room_id: string; block_id: string; since: string } {
  requireStudent(db, studentId);
  return found(one(db, 'SELECT a.room_id, r.block_id, a.since FROM hostel_allocations a JOIN hostel_rooms r ON r.room_id = a.room_id WHERE a.student_id = ?', studentId), `${studentId} is a day scholar with no hostel room.`);
}

export const studentTools = [
  defineTool({
    name: 'get_hostel_room',
    description: 'Returns a resident student\'s hostel allocation: block, room, floor, roommates, since when, the block\'s curfew and the warden\'s name.',
    input: { ...asStudent },
    run: ({ student_id }, db) => {
      const a = requireResident(db, student_id);
      const b = one<{ name: string; curfew: string; warden: string; warden_id: string }>(db, 'SELECT b.name, b.curfew, b.warden_id, e.name AS warden FROM hostel_blocks b JOIN employees e ON e.employee_id = b.warden_id WHERE b.block_id = ?', a.block_id)!;
      const roommates = all(db, 'SELECT s.student_id, s.name, s.dept_id AS department FROM hostel_allocations h JOIN students s ON s.student_id = h.student_id WHERE h.room_id = ? AND h.student_id <> ?', a.room_id, student_id);
      return { student_id, ...a, block_name: b.name, floor: Number(a.room_id.split('-')[1][0]), roommates, curfew: b.curfew, warden: b.warden, warden_id: b.warden_id };
    },
  }),
  defineTool({
    name: 'request_room_change',
    description: 'Files a resident\'s request to move to another room or block, with the reason; the warden decides. Returns the pending request.',
    action: true,
    input: { ...asStudent, preferred_block: block.optional(), reason: z.string().min(5, 'reason is required').describe('Why the move is needed.') },
    run: ({ student_id, preferred_block, reason }, db) => {
      const a = requireResident(db, student_id);
      const open = one<{ request_id: number }>(db, "SELECT request_id FROM room_change_requests WHERE student_id = ? AND status = 'pending'", student_id);
      if (open) throw new ToolError(`Room change request ${open.request_id} is already pending.`);
      const id = Number(db.prepare("INSERT INTO room_change_requests (student_id, current_room, preferred_block, reason, status, created_at) VALUES (?, ?, ?, ?, 'pending', ?)").run(student_id, a.room_id, preferred_block ?? null, reason, nowIso()).lastInsertRowid);
      return { request_id: id, current_room: a.room_id, preferred_block: preferred_block ?? null, status: 'pending' };
    },
  }),
  defineTool({
    name: 'apply_for_hostel_leave',
    description: 'Applies for leave to be away from the hostel overnight (going home, travel) between two dates, up to 30 days; the warden approves. Not for class absence. Returns the leave id.',
    action: true,
    input: { ...asStudent, from_date: isoDate('from_date').describe('First day away, YYYY-MM-DD, today or later.'), to_date: isoDate('to_date').describe('Day of return, YYYY-MM-DD.'), destination: z.string().min(2, 'destination is required').describe('Where the student will stay.'), reason: z.string().min(3, 'reason is required').describe('Purpose of the leave.') },
    run: ({ student_id, from_date, to_date, destination, reason }, db) => {
      requireResident(db, student_id);
      if (from_date < TODAY) throw new ToolError(`from_date ${from_date} is in the past (today is ${TODAY}).`);
      if (to_date < from_date) throw new ToolError(`to_date ${to_date} is before from_date ${from_date}.`);
      if (to_date > addDays(from_date, 30)) throw new ToolError('Hostel leave is limited to 30 days; apply to the Dean of Student Affairs for longer.');
      const overlap = one<{ leave_id: number }>(db, "SELECT leave_id FROM hostel_leaves WHERE student_id = ? AND status IN ('pending', 'approved') AND from_date <= ? AND to_date >= ?", student_id, to_date, from_date);
      if (overlap) throw new ToolError(`Leave ${overlap.leave_id} already covers part of ${from_date} to ${to_date}.`);
      const id = Number(db.prepare("INSERT INTO hostel_leaves (student_id, from_date, to_date, destination, reason, status, created_at) VALUES (?, ?, ?, ?, ?, 'pending', ?)").run(student_id, from_date, to_date, destination, reason, nowIso()).lastInsertRowid);
      return { leave_id: id, from_date, to_date, destination, status: 'pending' };
    },
  }),
  defineTool({
    name: 'get_hostel_leave_status',
    description: 'Returns a resident\'s hostel leave applications with dates, destination, status (pending, approved, rejected, cancelled) and the warden\'s remarks.',
    input: { ...asStudent },
    run: ({ student_id }, db) => {
      requireResident(db, student_id);
      return all(db, 'SELECT leave_id, from_date, to_date, destination, reason, status, decided_by, remarks FROM hostel_leaves WHERE student_id = ? ORDER BY leave_id', student_id);
    },
  }),
  defineTool({
    name: 'cancel_hostel_leave',
    description: 'Cancels a resident\'s pending or approved hostel leave that has not started yet. Returns the cancelled leave.',
    action: true,
    destructive: true,
    input: { ...asStudent, leave_id: positiveId('leave_id').describe('Leave id (get_hostel_leave_status).') },
    run: ({ student_id, leave_id }, db) => {
      requireResident(db, student_id);
      const l = requireOwn<{ student_id: string; status: string; from_date: string }>(db, { table: 'hostel_leaves', key: 'leave_id', id: leave_id, ownerColumn: 'student_id', owner: student_id, what: 'Leave' });
      if (!['pending', 'approved'].includes(l.status)) throw new ToolError(`Leave ${leave_id} is ${l.status} and cannot be cancelled.`);
      if (l.from_date <= TODAY) throw new ToolError(`Leave ${leave_id} has already started (${l.from_date}).`);
      db.prepare("UPDATE hostel_leaves SET status = 'cancelled' WHERE leave_id = ?").run(leave_id);
      return { leave_id, status: 'cancelled' };
    },
  }),
  defineTool({
    name: 'get_mess_menu',
    description: 'Returns the hostel mess menu: items served at breakfast, lunch, snacks and dinner, for one day or the whole week.',
    input: { day: z.enum(['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']).optional().describe('Weekday; the whole week if omitted.'), meal: z.enum(['breakfast', 'lunch', 'snacks', 'dinner']).optional().describe('Only this meal.') },
    run: ({ day, meal }, db) => all(db, `SELECT day, meal, items FROM mess_menu WHERE (@day IS NULL OR day = @day) AND (@meal IS NULL OR meal = @meal)
      ORDER BY CASE day WHEN 'Mon' THEN 1 WHEN 'Tue' THEN 2 WHEN 'Wed' THEN 3 WHEN 'Thu' THEN 4 WHEN 'Fri' THEN 5 WHEN 'Sat' THEN 6 ELSE 7 END,
      CASE meal WHEN 'breakfast' THEN 1 WHEN 'lunch' THEN 2 WHEN 'snacks' THEN 3 ELSE 4 END`, { day: day ?? null, meal: meal ?? null }),
  }),
  defineTool({
    name: 'change_mess_plan',
    description: `Switches a resident's mess plan (veg, non-veg, special) from ${PLAN_START}; returns the old and new plan and the new term charge.`,
    action: true,
    input: { ...asStudent, plan: z.enum(['veg', 'non-veg', 'special']).describe('New mess plan.') },
    run: ({ student_id, plan }, db) => {
      requireResident(db, student_id);
      const current = one<{ plan: string }>(db, 'SELECT plan FROM mess_subscriptions WHERE student_id = ?', student_id);
      if (current?.plan === plan) throw new ToolError(`${student_id} is already on the ${plan} plan.`);
      db.prepare('INSERT INTO mess_subscriptions (student_id, plan, since) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET plan = excluded.plan, since = excluded.since').run(student_id, plan, PLAN_START);
      return { student_id, old_plan: current?.plan ?? null, new_plan: plan, effective_from: PLAN_START, charge_per_term: MESS_PLANS[plan] };
    },
  }),
  defineTool({
    name: 'register_visitor',
    description: 'Pre-registers a visitor (parent, guardian, friend) coming to see a resident on a date within the next 30 days, so security lets them in. Returns the visitor pass id.',
    action: true,
    input: { ...asStudent, visitor_name: z.string().min(2, 'visitor_name is required').describe('Visitor\'s full name.'), relation: z.enum(['father', 'mother', 'sibling', 'guardian', 'friend', 'other']).describe('Relation to the student.'), visit_date: isoDate('visit_date').describe('Date of the visit, YYYY-MM-DD.'), phone: z.string().regex(/^\d{10}$/, 'phone must be 10 digits').describe('Visitor\'s mobile number, 10 digits.') },
    run: ({ student_id, visitor_name, relation, visit_date, phone }, db) => {
      requireResident(db, student_id);
      if (visit_date < TODAY || visit_date > addDays(TODAY, 30)) throw new ToolError(`visit_date must be between ${TODAY} and ${addDays(TODAY, 30)}.`);
      const id = Number(db.prepare("INSERT INTO visitors (student_id, visitor_name, relation, visit_date, phone, status, created_at) VALUES (?, ?, ?, ?, ?, 'expected', ?)").run(student_id, visitor_name, relation, visit_date, phone, nowIso()).lastInsertRowid);
      return { visitor_id: id, visitor_name, visit_date, status: 'expected' };
    },
  }),
  defineTool({
    name: 'raise_maintenance_request',
    description: 'Reports a problem in a resident\'s hostel room (electrical, plumbing, furniture, internet, cleaning) to the hostel maintenance staff. Returns the request id.',
    action: true,
    input: { ...asStudent, category: z.enum(['electrical', 'plumbing', 'furniture', 'internet', 'cleaning']).describe('Kind of problem.'), description: z.string().min(5, 'description must say what is wrong').describe('What is broken and where.') },
    run: ({ student_id, category, description }, db) => {
      const a = requireResident(db, student_id);
      const id = Number(db.prepare("INSERT INTO maintenance_requests (student_id, room_id, category, description, status, created_at) VALUES (?, ?, ?, ?, 'open', ?)").run(student_id, a.room_id, category, description, nowIso()).lastInsertRowid);
      return { request_id: id, room_id: a.room_id, category, status: 'open' };
    },
  }),
  defineTool({
    name: 'get_maintenance_request_status',
    description: 'Returns a resident\'s hostel maintenance requests with category, description, status (open, in_progress, resolved) and dates.',
    input: { ...asStudent },
    run: ({ student_id }, db) => {
      requireResident(db, student_id);
      return all(db, 'SELECT request_id, room_id, category, description, status, created_at, resolved_at FROM maintenance_requests WHERE student_id = ? ORDER BY request_id', student_id);
    },
  }),
];
