/**
 * Administration tools for students and staff: grievances, announcements, events,
 * transport, IT tickets and the campus directory, plus the offices' queues.
 */
import { z } from 'zod';
import { asEmployee, asMember, employeeId, facultyId, positiveId } from '../shared/args.js';
import { TODAY } from '../shared/fixture.js';
import { all, found, nowIso, one, requireEmployee, requireFaculty, requireMember } from '../shared/lookup.js';
import { addInvoice } from '../shared/rules.js';
import { defineTool, ToolError } from '../shared/tool.js';

const eventId = z.string().regex(/^EV\d{2}$/, 'event_id must look like EV03').describe('Event id, e.g. EV03 (list_events).');
const routeId = z.string().regex(/^R\d$/, 'route_id must look like R2').describe('Bus route id, R1–R6 (get_transport_routes).');
const grievanceCategory = z.enum(['academic', 'examination', 'fees', 'hostel', 'transport', 'library', 'infrastructure', 'harassment', 'other']);

export const campusTools = [
  defineTool({
    name: 'submit_grievance',
    description: 'Lodges a formal grievance with the university grievance cell (academic, examination, fees, hostel, transport, library, infrastructure, harassment, other). Returns the grievance id to track it. For IT faults use raise_it_ticket; for hostel room repairs raise_maintenance_request.',
    action: true,
    input: { ...asMember, category: grievanceCategory.describe('Area of the complaint.'), subject: z.string().min(5, 'subject must be at least 5 characters').describe('One-line summary.'), description: z.string().min(10, 'description must be at least 10 characters').describe('What happened, when, and what outcome is sought.') },
    run: (args, db) => {
      const member = requireMember(db, args);
      const id = Number(db.prepare("INSERT INTO grievances (submitter_id, category, subject, description, status, created_at) VALUES (?, ?, ?, ?, 'open', ?)").run(member, args.category, args.subject, args.description, nowIso()).lastInsertRowid);
      return { grievance_id: id, category: args.category, subject: args.subject, status: 'open' };
    },
  }),
  defineTool({
    name: 'get_grievance_status',
    description: 'Returns the grievances a member submitted (or one of them) with category, subject, status (open, in_progress, escalated, resolved) and the resolution if any.',
    input: { ...asMember, grievance_id: positiveId('grievance_id').optional().describe('Only this grievance.') },
    run: (args, db) => {
      const member = requireMember(db, args);
      const rows = all(db, 'SELECT grievance_id, category, subject, status, resolution, created_at, resolved_at FROM grievances WHERE submitter_id = @m AND (@g IS NULL OR grievance_id = @g) ORDER BY grievance_id', { m: member, g: args.grievance_id ?? null });
      if (args.grievance_id && rows.length === 0) throw new ToolError(`No grievance ${args.grievance_id} submitted by ${member}.`);
      return rows;
    },
  }),
  defineTool({
    name: 'get_announcements',
    description: 'Returns university announcements, newest first, with title, body, audience, who posted and when, optionally only those for one audience.',
    input: { audience: z.enum(['all', 'students', 'faculty']).optional().describe('Only announcements for this audience (plus those for all).'), limit: z.number().int().min(1).max(50).default(10).describe('How many, newest first (default 10).') },
    run: ({ audience, limit }, db) => all(db, "SELECT announcement_id, title, body, audience, posted_by, posted_at FROM announcements WHERE (@a IS NULL OR audience IN (@a, 'all')) ORDER BY posted_at DESC, announcement_id DESC LIMIT @n", { a: audience ?? null, n: limit }),
  }),
  defineTool({
    name: 'post_announcement',
    description: 'Publishes an announcement to all, students or faculty, posted by a faculty member or a staff member. Returns the announcement id.',
    action: true,
    input: {
      faculty_id: facultyId.optional().describe('Posting faculty member (F001–F040). Give this or employee_id.'), employee_id: employeeId.optional().describe('Posting staff member (e.g. E018). Give this or faculty_id.'),
      title: z.string().min(5, 'title must be at least 5 characters').describe('Headline.'), body: z.string().min(10, 'body must be at least 10 characters').describe('Announcement text.'), audience: z.enum(['all', 'students', 'faculty']).describe('Who should see it.'),
    },
    run: ({ faculty_id, employee_id, title, body, audience }, db) => {
      if (!!faculty_id === !!employee_id) throw new ToolError('Give exactly one of faculty_id or employee_id as the poster.');
      if (faculty_id) requireFaculty(db, faculty_id);
      else requireEmployee(db, employee_id!, ['communications', 'registrar', 'executive', 'exam_controller', 'finance_officer', 'warden', 'librarian', 'placement_officer', 'it_admin', 'transport_manager', 'grievance_officer']);
      const id = Number(db.prepare('INSERT INTO announcements (title, body, audience, posted_by, posted_at) VALUES (?, ?, ?, ?, ?)').run(title, body, audience, faculty_id ?? employee_id, nowIso()).lastInsertRowid);
      return { announcement_id: id, title, audience };
    },
  }),
  defineTool({
    name: 'list_events',
    description: 'Returns upcoming campus events (fests, workshops, guest lectures, sports) with date, venue, organiser, capacity and seats left.',
    input: { from_date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'from_date must be YYYY-MM-DD').optional().describe(`Only events on or after this date; default today (${TODAY}).`) },
    run: ({ from_date }, db) => all(db, 'SELECT e.event_id, e.title, e.date, e.venue, e.organiser, e.capacity, e.capacity - (SELECT COUNT(*) FROM event_registrations r WHERE r.event_id = e.event_id) AS seats_left FROM events e WHERE e.date >= ? ORDER BY e.date', from_date ?? TODAY),
  }),
  defineTool({
    name: 'register_for_event',
    description: 'Registers a student or faculty member for a campus event with seats left. Returns the registration.',
    action: true,
    input: { ...asMember, event_id: eventId },
    run: (args, db) => {
      const member = requireMember(db, args);
      const e = found(one<{ title: string; capacity: number; date: string }>(db, 'SELECT title, capacity, date FROM events WHERE event_id = ?', args.event_id), `Unknown event_id '${args.event_id}'.`);
      if (e.date < TODAY) throw new ToolError(`${args.event_id} took place on ${e.date}.`);
      if (one(db, 'SELECT 1 FROM event_registrations WHERE event_id = ? AND member_id = ?', args.event_id, member)) throw new ToolError(`${member} is already registered for ${args.event_id}.`);
      if (one<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM event_registrations WHERE event_id = ?', args.event_id)!.n >= e.capacity) throw new ToolError(`${args.event_id} is full.`);
      db.prepare('INSERT INTO event_registrations (event_id, member_id, registered_at) VALUES (?, ?, ?)').run(args.event_id, member, nowIso());
      return { event_id: args.event_id, title: e.title, date: e.date, member_id: member, status: 'registered' };
    },
  }),
  defineTool({
    name: 'get_event_registrations',
    description: 'Returns who registered for one event (member ids and names) and how many seats are left.',
    input: { event_id: eventId },
    run: ({ event_id }, db) => {
      const e = found(one<{ capacity: number }>(db, 'SELECT capacity FROM events WHERE event_id = ?', event_id), `Unknown event_id '${event_id}'.`);
      const rows = all(db, 'SELECT r.member_id, COALESCE(s.name, f.name) AS name, r.registered_at FROM event_registrations r LEFT JOIN students s ON s.student_id = r.member_id LEFT JOIN faculty f ON f.faculty_id = r.member_id WHERE r.event_id = ? ORDER BY r.registered_at, r.member_id', event_id);
      return { event_id, registered: rows.length, seats_left: e.capacity - rows.length, members: rows };
    },
  }),
  defineTool({
    name: 'get_transport_routes',
    description: 'Returns the university bus routes with stops, morning departure, evening return time, term fee and seats left.',
    input: {},
    run: (_a, db) => all(db, "SELECT t.route_id, t.name, t.stops, t.departure, t.return_departure, t.fee, t.seats - (SELECT COUNT(*) FROM transport_passes p WHERE p.route_id = t.route_id AND p.status = 'active') AS seats_left FROM transport_routes t ORDER BY t.route_id"),
  }),
  defineTool({
    name: 'apply_for_transport_pass',
    description: 'Issues a bus pass on a route for a student or faculty member without an active pass; students are billed the route\'s term fee (it appears in their fee dues). Returns the pass.',
    action: true,
    input: { ...asMember, route_id: routeId },
    run: (args, db) => {
      const member = requireMember(db, args);
      const r = found(one<{ name: string; fee: number; seats: number }>(db, 'SELECT name, fee, seats FROM transport_routes WHERE route_id = ?', args.route_id), `Unknown route_id '${args.route_id}': routes are R1–R6.`);
      const active = one<{ pass_id: number; route_id: string }>(db, "SELECT pass_id, route_id FROM transport_passes WHERE member_id = ? AND status = 'active'", member);
      if (active) throw new ToolError(`${member} already holds active pass ${active.pass_id} on route ${active.route_id}.`);
      if (one<{ n: number }>(db, "SELECT COUNT(*) AS n FROM transport_passes WHERE route_id = ? AND status = 'active'", args.route_id)!.n >= r.seats) throw new ToolError(`Route ${args.route_id} is full.`);
      const id = Number(db.prepare("INSERT INTO transport_passes (member_id, route_id, status, valid_until, created_at) VALUES (?, ?, 'active', '2026-05-31', ?)").run(member, args.route_id, nowIso()).lastInsertRowid);
      const invoice = member.startsWith('S') ? addInvoice(db, { student_id: member, category: 'transport', description: `Bus pass, route ${args.route_id} (${r.name})`, amount: r.fee, due_date: '2025-11-30', created_by: 'E012' }) : null;
      return { pass_id: id, route_id: args.route_id, route: r.name, valid_until: '2026-05-31', fee: r.fee, invoice_id: invoice };
    },
  }),
  defineTool({
    name: 'get_transport_pass_holders',
    description: 'Returns active bus pass holders for the transport office, optionally for one route, with member and validity.',
    input: { route_id: routeId.optional() },
    run: ({ route_id }, db) => all(db, "SELECT pass_id, member_id, route_id, valid_until, created_at FROM transport_passes WHERE status = 'active' AND (@r IS NULL OR route_id = @r) ORDER BY route_id, pass_id", { r: route_id ?? null }),
  }),
  defineTool({
    name: 'raise_it_ticket',
    description: 'Reports an IT problem (email, Wi-Fi, portal, learning platform, lab hardware, software licence) to the IT helpdesk. Returns the ticket id.',
    action: true,
    input: { ...asMember, category: z.enum(['email', 'wifi', 'portal', 'lms', 'hardware', 'software', 'password']).describe('Kind of IT problem.'), description: z.string().min(5, 'description must say what is wrong').describe('What is not working, where, since when.') },
    run: (args, db) => {
      const member = requireMember(db, args);
      const id = Number(db.prepare("INSERT INTO it_tickets (requester_id, category, description, status, created_at) VALUES (?, ?, ?, 'open', ?)").run(member, args.category, args.description, nowIso()).lastInsertRowid);
      return { ticket_id: id, category: args.category, status: 'open' };
    },
  }),
  defineTool({
    name: 'get_it_ticket_status',
    description: 'Returns a member\'s IT helpdesk tickets with category, description, status (open, in_progress, resolved) and assignee.',
    input: { ...asMember },
    run: (args, db) => {
      const member = requireMember(db, args);
      return all(db, 'SELECT ticket_id, category, description, status, assigned_to, created_at FROM it_tickets WHERE requester_id = ? ORDER BY ticket_id', member);
    },
  }),
  defineTool({
    name: 'get_it_ticket_queue',
    description: 'Returns the IT helpdesk queue across all requesters, optionally by status, oldest first.',
    input: { status: z.enum(['open', 'in_progress', 'resolved']).optional().describe('Only tickets with this status.') },
    run: ({ status }, db) => all(db, 'SELECT ticket_id, requester_id, category, description, status, assigned_to, created_at FROM it_tickets WHERE (@s IS NULL OR status = @s) ORDER BY created_at', { s: status ?? null }),
  }),
  defineTool({
    name: 'get_campus_directory',
    description: 'Returns contact details of university offices (registrar, examinations, accounts, hostel, library, placement, IT, transport, medical, security): contact person, phone, email, location and hours, optionally filtered by name.',
    input: { query: z.string().optional().describe('Part of an office name, e.g. "exam".') },
    run: ({ query }, db) => all(db, 'SELECT * FROM directory WHERE (@q IS NULL OR office LIKE @q) ORDER BY office', { q: query ? `%${query}%` : null }),
  }),
  defineTool({
    name: 'list_grievances',
    description: 'Returns the grievance cell\'s queue across submitters, optionally by status or category, oldest first.',
    input: { status: z.enum(['open', 'in_progress', 'escalated', 'resolved']).optional().describe('Only this status.'), category: grievanceCategory.optional().describe('Only this category.') },
    run: ({ status, category }, db) => all(db, 'SELECT grievance_id, submitter_id, category, subject, status, resolution, resolved_by, created_at FROM grievances WHERE (@s IS NULL OR status = @s) AND (@c IS NULL OR category = @c) ORDER BY created_at', { s: status ?? null, c: category ?? null }),
  }),
  defineTool({
    name: 'resolve_grievance',
    description: 'Grievance cell: closes an open, in-progress or escalated grievance with a written resolution that the submitter sees. Returns the resolved grievance.',
    action: true,
    input: { ...asEmployee, grievance_id: positiveId('grievance_id').describe('Grievance id.'), resolution: z.string().min(5, 'resolution must describe what was done').describe('What was done about it.') },
    run: ({ employee_id, grievance_id, resolution }, db) => {
      requireEmployee(db, employee_id, ['grievance_officer']);
      const g = found(one<{ status: string }>(db, 'SELECT status FROM grievances WHERE grievance_id = ?', grievance_id), `Unknown grievance_id ${grievance_id}: no such grievance.`);
      if (g.status === 'resolved') throw new ToolError(`Grievance ${grievance_id} is already resolved.`);
      db.prepare("UPDATE grievances SET status = 'resolved', resolution = ?, resolved_by = ?, resolved_at = ? WHERE grievance_id = ?").run(resolution, employee_id, nowIso(), grievance_id);
      return { grievance_id, status: 'resolved', resolution };
    },
  }),
];
