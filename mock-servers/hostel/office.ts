/**
 * Hostel tools for wardens and leadership: vacancies, leave approval, visitor log, room
 * change queue, residents, occupancy, mess and maintenance reports, curfew, staff.
 */
import { z } from 'zod';
import { asEmployee, positiveId, studentId } from '../shared/args.js';
import { daysBetween } from '../shared/dates.js';
import { MESS_PLANS, TODAY } from '../shared/fixture.js';
import { all, found, one, requireEmployee, requireStudent } from '../shared/lookup.js';
import { defineTool, ToolError } from '../shared/tool.js';
import { requireResident } from './student.js';

const block = z.enum(['ARV', 'NLG', 'SHV', 'VND']).describe('Hostel block: ARV (Aravali), NLG (Nilgiri), SHV (Shivalik), VND (Vindhya).');

export const officeTools = [
  defineTool({
    name: 'list_available_rooms',
    description: 'Returns hostel rooms with free beds: room, block, floor, capacity, occupied beds and rent, optionally for one block.',
    input: { block: block.optional() },
    run: ({ block: b }, db) => all(db, `SELECT r.room_id, r.block_id, r.floor, r.capacity, COUNT(a.student_id) AS occupied, r.capacity - COUNT(a.student_id) AS free_beds, r.rent
      FROM hostel_rooms r LEFT JOIN hostel_allocations a ON a.room_id = r.room_id WHERE (@b IS NULL OR r.block_id = @b) GROUP BY r.room_id HAVING free_beds > 0 ORDER BY r.room_id`, { b: b ?? null }),
  }),
  defineTool({
    name: 'approve_hostel_leave',
    description: 'Warden: approves or rejects a resident\'s pending hostel leave application, with optional remarks. Returns the decided leave.',
    action: true,
    input: { ...asEmployee, leave_id: positiveId('leave_id').describe('Leave application id.'), decision: z.enum(['approve', 'reject']).describe('The decision.'), remarks: z.string().optional().describe('Note to the student.') },
    run: ({ employee_id, leave_id, decision, remarks }, db) => {
      requireEmployee(db, employee_id, ['warden']);
      const l = found(one<{ status: string; student_id: string }>(db, 'SELECT status, student_id FROM hostel_leaves WHERE leave_id = ?', leave_id), `Unknown leave_id ${leave_id}: no such hostel leave.`);
      if (l.status !== 'pending') throw new ToolError(`Leave ${leave_id} is already ${l.status}.`);
      const status = decision === 'approve' ? 'approved' : 'rejected';
      db.prepare('UPDATE hostel_leaves SET status = ?, decided_by = ?, remarks = ? WHERE leave_id = ?').run(status, employee_id, remarks ?? null, leave_id);
      return { leave_id, student_id: l.student_id, status };
    },
  }),
  defineTool({
    name: 'get_pending_hostel_leaves',
    description: 'Returns hostel leave applications awaiting a warden\'s decision, with student, room, dates and destination, optionally for one block.',
    input: { block: block.optional() },
    run: ({ block: b }, db) => all(db, `SELECT l.leave_id, l.student_id, s.name, a.room_id, l.from_date, l.to_date, l.destination, l.reason FROM hostel_leaves l
      JOIN students s ON s.student_id = l.student_id JOIN hostel_allocations a ON a.student_id = l.student_id JOIN hostel_rooms r ON r.room_id = a.room_id
      WHERE l.status = 'pending' AND (@b IS NULL OR r.block_id = @b) ORDER BY l.from_date`, { b: b ?? null }),
  }),
  defineTool({
    name: 'get_visitor_log',
    description: 'Returns the hostel visitor register across residents: visitor, relation, student visited, room, date and status, optionally for one date or block.',
    input: { date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'date must be YYYY-MM-DD').optional().describe('Only visits on this date.'), block: block.optional() },
    run: ({ date, block: b }, db) => all(db, `SELECT v.visitor_id, v.visitor_name, v.relation, v.student_id, a.room_id, v.visit_date, v.status FROM visitors v
      JOIN hostel_allocations a ON a.student_id = v.student_id JOIN hostel_rooms r ON r.room_id = a.room_id
      WHERE (@date IS NULL OR v.visit_date = @date) AND (@b IS NULL OR r.block_id = @b) ORDER BY v.visit_date DESC, v.visitor_id`, { date: date ?? null, b: b ?? null }),
  }),
  defineTool({
    name: 'get_room_change_requests',
    description: 'Returns residents\' room change requests for the warden, optionally by status, with current room, preferred block and reason.',
    input: { status: z.enum(['pending', 'approved', 'rejected']).optional().describe('Only requests with this status.') },
    run: ({ status }, db) => all(db, 'SELECT request_id, student_id, current_room, preferred_block, reason, status, created_at FROM room_change_requests WHERE (@s IS NULL OR status = @s) ORDER BY request_id', { s: status ?? null }),
  }),
  defineTool({
    name: 'get_block_residents',
    description: 'Returns every resident of one hostel block with room, department, year and phone.',
    input: { block },
    run: ({ block: b }, db) => all(db, `SELECT a.room_id, s.student_id, s.name, s.dept_id AS department, s.year, s.phone FROM hostel_allocations a JOIN hostel_rooms r ON r.room_id = a.room_id
      JOIN students s ON s.student_id = a.student_id WHERE r.block_id = ? ORDER BY a.room_id, s.student_id`, b),
  }),
  defineTool({
    name: 'get_hostel_occupancy_report',
    description: 'Returns hostel occupancy per block for leadership: rooms, beds, occupied beds, vacant beds and occupancy percentage, with totals.',
    input: {},
    run: (_a, db) => {
      const rows = all<{ beds: number; occupied: number }>(db, `SELECT b.block_id, b.name, COUNT(DISTINCT r.room_id) AS rooms, SUM(r.capacity) AS beds,
        (SELECT COUNT(*) FROM hostel_allocations a JOIN hostel_rooms r2 ON r2.room_id = a.room_id WHERE r2.block_id = b.block_id) AS occupied
        FROM hostel_blocks b JOIN hostel_rooms r ON r.block_id = b.block_id GROUP BY b.block_id ORDER BY b.block_id`)
        .map((r) => ({ ...r, vacant: r.beds - r.occupied, occupancy_percent: Math.round((1000 * r.occupied) / r.beds) / 10 }));
      const beds = rows.reduce((s, r) => s + r.beds, 0);
      const occupied = rows.reduce((s, r) => s + r.occupied, 0);
      return { blocks: rows, total_beds: beds, total_occupied: occupied, occupancy_percent: Math.round((1000 * occupied) / beds) / 10 };
    },
  }),
  defineTool({
    name: 'get_mess_feedback_summary',
    description: 'Returns mess feedback analytics: average rating and number of ratings per meal, the share of low ratings (1–2), and the most frequent comments.',
    input: {},
    run: (_a, db) => ({
      by_meal: all(db, 'SELECT meal, COUNT(*) AS ratings, ROUND(AVG(rating), 2) AS average_rating, ROUND(100.0 * SUM(rating <= 2) / COUNT(*), 1) AS low_rating_percent FROM mess_feedback GROUP BY meal ORDER BY average_rating'),
      top_comments: all(db, 'SELECT comment, COUNT(*) AS mentions FROM mess_feedback GROUP BY comment ORDER BY mentions DESC LIMIT 5'),
    }),
  }),
  defineTool({
    name: 'get_maintenance_backlog_report',
    description: 'Returns open hostel maintenance work by block and category: open and in-progress counts, average age in days and the oldest open request.',
    input: {},
    run: (_a, db) => {
      const open = all<{ block_id: string; category: string; created_at: string; request_id: number }>(db, "SELECT r.block_id, m.category, m.created_at, m.request_id FROM maintenance_requests m JOIN hostel_rooms r ON r.room_id = m.room_id WHERE m.status IN ('open', 'in_progress')");
      const groups = new Map<string, typeof open>();
      for (const o of open) groups.set(`${o.block_id}|${o.category}`, [...(groups.get(`${o.block_id}|${o.category}`) ?? []), o]);
      return [...groups].map(([key, rows]) => {
        const ages = rows.map((r) => daysBetween(r.created_at.slice(0, 10), TODAY));
        return { block: key.split('|')[0], category: key.split('|')[1], open: rows.length, average_age_days: Math.round(ages.reduce((a, b) => a + b, 0) / rows.length), oldest_request_id: rows[ages.indexOf(Math.max(...ages))].request_id };
      }).sort((a, b) => b.open - a.open);
    },
  }),
  defineTool({
    name: 'get_hostel_blocks',
    description: 'Returns the hostel blocks with warden name and phone, curfew time and number of rooms.',
    input: {},
    run: (_a, db) => all(db, `SELECT b.block_id, b.name, b.curfew, e.name AS warden, b.warden_id, (SELECT COUNT(*) FROM hostel_rooms r WHERE r.block_id = b.block_id) AS rooms,
      (SELECT phone FROM hostel_staff h WHERE h.block_id = b.block_id AND h.role = 'caretaker') AS caretaker_phone FROM hostel_blocks b JOIN employees e ON e.employee_id = b.warden_id ORDER BY b.block_id`),
  }),
  defineTool({
    name: 'get_mess_subscriptions_report',
    description: 'Returns how many residents are on each mess plan and the term charge each plan brings in.',
    input: {},
    run: (_a, db) => all<{ plan: string; residents: number }>(db, 'SELECT plan, COUNT(*) AS residents FROM mess_subscriptions GROUP BY plan ORDER BY plan')
      .map((p) => ({ ...p, charge_per_resident: MESS_PLANS[p.plan], term_charges: p.residents * MESS_PLANS[p.plan] })),
  }),
  defineTool({
    name: 'get_hostel_student_details',
    description: 'Warden\'s view of one resident: room, guardian contact, leave history count, curfew violations, open maintenance requests and unpaid hostel and mess dues.',
    input: { student_id: studentId.describe('Resident to look up.') },
    run: ({ student_id }, db) => {
      const a = requireResident(db, student_id);
      const s = requireStudent(db, student_id);
      return {
        student_id, name: s.name, phone: s.phone, guardian_name: s.guardian_name, guardian_phone: s.guardian_phone, ...a,
        leaves: one<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM hostel_leaves WHERE student_id = ?', student_id)!.n,
        curfew_violations: one<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM curfew_violations WHERE student_id = ?', student_id)!.n,
        open_maintenance_requests: one<{ n: number }>(db, "SELECT COUNT(*) AS n FROM maintenance_requests WHERE student_id = ? AND status <> 'resolved'", student_id)!.n,
        hostel_and_mess_dues: one<{ s: number }>(db, "SELECT COALESCE(SUM(amount - paid), 0) AS s FROM invoices WHERE student_id = ? AND category IN ('hostel', 'mess')", student_id)!.s,
      };
    },
  }),
  defineTool({
    name: 'get_curfew_violations',
    description: 'Returns recorded curfew violations (late entry after the block\'s curfew) with student, date, minutes late and remarks, optionally for one student or block.',
    input: { student_id: studentId.optional().describe('Only this student.'), block: block.optional() },
    run: ({ student_id, block: b }, db) => all(db, `SELECT c.violation_id, c.student_id, s.name, a.room_id, c.date, c.minutes_late, c.remarks FROM curfew_violations c JOIN students s ON s.student_id = c.student_id
      JOIN hostel_allocations a ON a.student_id = c.student_id JOIN hostel_rooms r ON r.room_id = a.room_id
      WHERE (@sid IS NULL OR c.student_id = @sid) AND (@b IS NULL OR r.block_id = @b) ORDER BY c.date DESC`, { sid: student_id ?? null, b: b ?? null }),
  }),
  defineTool({
    name: 'get_hostel_staff_directory',
    description: 'Returns hostel staff contacts (caretakers, security, electricians, mess manager) and wardens, optionally for one block.',
    input: { block: block.optional() },
    run: ({ block: b }, db) => ({
      wardens: all(db, 'SELECT b.block_id, e.name, e.title, e.email FROM hostel_blocks b JOIN employees e ON e.employee_id = b.warden_id WHERE (@b IS NULL OR b.block_id = @b)', { b: b ?? null }),
      staff: all(db, 'SELECT staff_id, name, role, block_id, phone FROM hostel_staff WHERE (@b IS NULL OR block_id = @b OR block_id IS NULL) ORDER BY staff_id', { b: b ?? null }),
    }),
  }),
];
