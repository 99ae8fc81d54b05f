/**
 * Placement tools a final-year student uses: drives, eligibility, registration and
 * withdrawal, resume, offers, and internships.
 */
import { z } from 'zod';
import { asStudent, positiveId } from '../shared/args.js';
import { TODAY } from '../shared/fixture.js';
import { all, found, nowIso, one, requireOwn, requireStudent } from '../shared/lookup.js';
import { defineTool, ToolError } from '../shared/tool.js';
import { driveEligibility, driveId, requireDrive } from './common.js';

const internshipId = z.string().regex(/^INT\d{2}$/, 'internship_id must look like INT02').describe('Internship id, e.g. INT02 (list_internships).');

export const studentTools = [
  defineTool({
    name: 'list_placement_drives',
    description: 'Returns campus placement drives with company, role, CTC (lakh per annum), eligibility criteria (departments, minimum CGPA, backlogs allowed), drive date, registration deadline and status.',
    input: { status: z.enum(['open', 'closed', 'completed']).optional().describe('Only drives with this status.') },
    run: ({ status }, db) => all(db, `SELECT d.drive_id, c.name AS company, d.role, d.ctc_lpa, d.departments, d.min_cgpa, d.max_backlogs, d.drive_date, d.deadline, d.status
      FROM drives d JOIN companies c ON c.company_id = d.company_id WHERE (@s IS NULL OR d.status = @s) ORDER BY d.drive_date`, { s: status ?? null }),
  }),
  defineTool({
    name: 'get_drive_details',
    description: 'Returns one placement drive in full: company profile, role, CTC, criteria, selection rounds, venue, dates and number of registered students.',
    input: { drive_id: driveId },
    run: ({ drive_id }, db) => {
      const d = requireDrive(db, drive_id);
      const company = one(db, 'SELECT * FROM companies WHERE company_id = ?', d.company_id);
      return { ...d, company, rounds: ['online aptitude test', 'technical interview', 'HR interview'], registered: one<{ n: number }>(db, "SELECT COUNT(*) AS n FROM drive_registrations WHERE drive_id = ? AND status <> 'withdrawn'", drive_id)!.n };
    },
  }),
  defineTool({
    name: 'check_placement_eligibility',
    description: 'Checks whether a student may register for a placement drive: final year, department, minimum CGPA, backlog limit, open registration and the one-offer policy; lists every unmet criterion.',
    input: { ...asStudent, drive_id: driveId },
    run: ({ student_id, drive_id }, db) => driveEligibility(db, student_id, requireDrive(db, drive_id)),
  }),
  defineTool({
    name: 'register_for_placement_drive',
    description: 'Registers an eligible student for an open placement drive. Returns the registration.',
    action: true,
    input: { ...asStudent, drive_id: driveId },
    run: ({ student_id, drive_id }, db) => {
      const d = requireDrive(db, drive_id);
      const e = driveEligibility(db, student_id, d);
      if (!e.eligible) throw new ToolError(`${student_id} cannot register for ${drive_id}: ${e.unmet.join('; ')}.`);
      const existing = one<{ status: string }>(db, 'SELECT status FROM drive_registrations WHERE student_id = ? AND drive_id = ?', student_id, drive_id);
      if (existing && existing.status !== 'withdrawn') throw new ToolError(`${student_id} is already registered for ${drive_id} (${existing.status}).`);
      db.prepare("INSERT INTO drive_registrations (student_id, drive_id, status, registered_at) VALUES (?, ?, 'registered', ?) ON CONFLICT DO UPDATE SET status = 'registered', registered_at = excluded.registered_at").run(student_id, drive_id, nowIso());
      return { student_id, drive_id, role: d.role, drive_date: d.drive_date, status: 'registered' };
    },
  }),
  defineTool({
    name: 'withdraw_from_placement_drive',
    description: 'Withdraws a student\'s registration from a placement drive that has not closed yet. Returns the withdrawn registration.',
    action: true,
    destructive: true,
    input: { ...asStudent, drive_id: driveId },
    run: ({ student_id, drive_id }, db) => {
      requireStudent(db, student_id);
      const d = requireDrive(db, drive_id);
      const r = found(one<{ status: string }>(db, 'SELECT status FROM drive_registrations WHERE student_id = ? AND drive_id = ?', student_id, drive_id), `${student_id} is not registered for ${drive_id}.`);
      if (r.status !== 'registered') throw new ToolError(`Registration for ${drive_id} is ${r.status}; only open registrations can be withdrawn.`);
      if (d.status !== 'open') throw new ToolError(`${drive_id} is ${d.status}; withdrawal is no longer possible.`);
      db.prepare("UPDATE drive_registrations SET status = 'withdrawn' WHERE student_id = ? AND drive_id = ?").run(student_id, drive_id);
      return { student_id, drive_id, status: 'withdrawn' };
    },
  }),
  defineTool({
    name: 'get_placement_registrations',
    description: 'Returns the placement drives a student registered for, with company, role, status (registered, shortlisted, selected, not selected, withdrawn) and interview slot if shortlisted.',
    input: { ...asStudent },
    run: ({ student_id }, db) => {
      requireStudent(db, student_id);
      return all(db, 'SELECT r.drive_id, c.name AS company, d.role, d.drive_date, r.status, r.interview_slot FROM drive_registrations r JOIN drives d ON d.drive_id = r.drive_id JOIN companies c ON c.company_id = d.company_id WHERE r.student_id = ? ORDER BY d.drive_date', student_id);
    },
  }),
  defineTool({
    name: 'upload_resume',
    description: 'Saves a new version of a student\'s placement resume (headline, skills, summary) that recruiters see. Returns the new version number.',
    action: true,
    input: { ...asStudent, headline: z.string().min(3, 'headline is required').describe('One-line profile, e.g. "Final-year CSE, backend developer".'), skills: z.array(z.string().min(1)).min(1, 'list at least one skill').describe('Skills, e.g. ["Python", "SQL"].'), summary: z.string().min(10, 'summary must be at least 10 characters').describe('Projects, internships and achievements.') },
    run: ({ student_id, headline, skills, summary }, db) => {
      requireStudent(db, student_id);
      const version = (one<{ version: number }>(db, 'SELECT version FROM resumes WHERE student_id = ?', student_id)?.version ?? 0) + 1;
      db.prepare('INSERT INTO resumes (student_id, version, headline, skills, summary, updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET version = excluded.version, headline = excluded.headline, skills = excluded.skills, summary = excluded.summary, updated_at = excluded.updated_at')
        .run(student_id, version, headline, skills.join(', '), summary, nowIso());
      return { student_id, version, headline, skills };
    },
  }),
  defineTool({
    name: 'get_placement_offers',
    description: 'Returns a student\'s job offers from placement drives with company, role, CTC, offer date, respond-by date and status (pending, accepted, declined).',
    input: { ...asStudent },
    run: ({ student_id }, db) => {
      requireStudent(db, student_id);
      return all(db, 'SELECT o.offer_id, o.drive_id, c.name AS company, o.role, o.ctc_lpa, o.offered_on, o.respond_by, o.status FROM offers o JOIN drives d ON d.drive_id = o.drive_id JOIN companies c ON c.company_id = d.company_id WHERE o.student_id = ? ORDER BY o.offer_id', student_id);
    },
  }),
  defineTool({
    name: 'accept_offer',
    description: 'Accepts a pending job offer before its respond-by date. Under the one-offer policy the student then stops registering for further drives. Returns the accepted offer.',
    action: true,
    input: { ...asStudent, offer_id: positiveId('offer_id').describe('Offer id (get_placement_offers).') },
    run: ({ student_id, offer_id }, db) => {
      requireStudent(db, student_id);
      const o = requireOwn<{ student_id: string; status: string; respond_by: string; role: string }>(db, { table: 'offers', key: 'offer_id', id: offer_id, ownerColumn: 'student_id', owner: student_id, what: 'Offer' });
      if (o.status !== 'pending') throw new ToolError(`Offer ${offer_id} is already ${o.status}.`);
      if (o.respond_by < TODAY) throw new ToolError(`Offer ${offer_id} expired on ${o.respond_by}.`);
      const other = one<{ offer_id: number }>(db, "SELECT offer_id FROM offers WHERE student_id = ? AND status = 'accepted'", student_id);
      if (other) throw new ToolError(`${student_id} already accepted offer ${other.offer_id}; decline it first.`);
      db.prepare("UPDATE offers SET status = 'accepted' WHERE offer_id = ?").run(offer_id);
      return { offer_id, role: o.role, status: 'accepted' };
    },
  }),
  defineTool({
    name: 'decline_offer',
    description: 'Declines a pending job offer; the company is informed and the offer cannot be reinstated. Returns the declined offer.',
    action: true,
    destructive: true,
    input: { ...asStudent, offer_id: positiveId('offer_id').describe('Offer id (get_placement_offers).') },
    run: ({ student_id, offer_id }, db) => {
      requireStudent(db, student_id);
      const o = requireOwn<{ student_id: string; status: string }>(db, { table: 'offers', key: 'offer_id', id: offer_id, ownerColumn: 'student_id', owner: student_id, what: 'Offer' });
      if (o.status !== 'pending') throw new ToolError(`Offer ${offer_id} is ${o.status}; only pending offers can be declined.`);
      db.prepare("UPDATE offers SET status = 'declined' WHERE offer_id = ?").run(offer_id);
      return { offer_id, status: 'declined' };
    },
  }),
  defineTool({
    name: 'list_internships',
    description: 'Returns open internship openings with company, title, stipend per month, duration, minimum year of study, location and application deadline.',
    input: {},
    run: (_a, db) => all(db, 'SELECT i.internship_id, c.name AS company, i.title, i.stipend, i.duration_weeks, i.min_year, i.location, i.deadline FROM internships i JOIN companies c ON c.company_id = i.company_id WHERE i.deadline >= ? ORDER BY i.deadline', TODAY),
  }),
  defineTool({
    name: 'apply_for_internship',
    description: 'Applies for an internship opening for a student who meets its minimum year, before the deadline. Returns the application id.',
    action: true,
    input: { ...asStudent, internship_id: internshipId, statement: z.string().min(10, 'statement must be at least 10 characters').describe('Short statement of interest.') },
    run: ({ student_id, internship_id, statement }, db) => {
      const s = requireStudent(db, student_id);
      const i = found(one<{ min_year: number; deadline: string; title: string }>(db, 'SELECT min_year, deadline, title FROM internships WHERE internship_id = ?', internship_id), `Unknown internship_id '${internship_id}'.`);
      if (s.year < i.min_year) throw new ToolError(`${internship_id} is open from year ${i.min_year}; ${student_id} is in year ${s.year}.`);
      if (i.deadline < TODAY) throw new ToolError(`Applications for ${internship_id} closed on ${i.deadline}.`);
      if (one(db, 'SELECT 1 FROM internship_applications WHERE internship_id = ? AND student_id = ?', internship_id, student_id)) throw new ToolError(`${student_id} already applied for ${internship_id}.`);
      const id = Number(db.prepare("INSERT INTO internship_applications (internship_id, student_id, statement, status, created_at) VALUES (?, ?, ?, 'applied', ?)").run(internship_id, student_id, statement, nowIso()).lastInsertRowid);
      return { application_id: id, internship_id, title: i.title, status: 'applied' };
    },
  }),
];
