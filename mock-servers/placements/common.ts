/** Placement rules shared by student and office tools: drive lookup and eligibility. */
import { z } from 'zod';
import type { Db } from '../shared/db.js';
import { TODAY } from '../shared/fixture.js';
import { found, one, requireStudent } from '../shared/lookup.js';
import { cgpaOf } from '../shared/rules.js';

export const driveId = z.string().regex(/^DRV\d{2}$/, 'drive_id must look like DRV05').describe('Placement drive id, e.g. DRV05 (list_placement_drives).');

export interface Drive { drive_id: string; company_id: string; role: string; ctc_lpa: number; min_cgpa: number; max_backlogs: number; departments: string; drive_date: string; deadline: string; status: string; location: string }

export function requireDrive(db: Db, id: string): Drive {
  return found(one<Drive>(db, 'SELECT * FROM drives WHERE drive_id = ?', id), `Unknown drive_id '${id}': no such placement drive.`);
}

/** Final-year, department, CGPA, backlog, deadline and one-offer checks, each unmet one named. */
export function driveEligibility(db: Db, studentId: string, drive: Drive) {
  const s = requireStudent(db, studentId);
  const c = cgpaOf(db, studentId);
  const unmet: string[] = [];
  if (s.year !== 4) unmet.push(`only final-year students (year 4); ${studentId} is in year ${s.year}`);
  if (!drive.departments.split(',').includes(s.dept_id)) unmet.push(`open to ${drive.departments} only`);
  if (c.cgpa === null || c.cgpa < drive.min_cgpa) unmet.push(`CGPA ${c.cgpa ?? 'n/a'} below ${drive.min_cgpa}`);
  if (c.backlogs > drive.max_backlogs) unmet.push(`${c.backlogs} backlog(s), more than ${drive.max_backlogs} allowed`);
  if (drive.status !== 'open' || drive.deadline < TODAY) unmet.push(`registration closed (${drive.status}, deadline ${drive.deadline})`);
  const accepted = one<{ offer_id: number }>(db, "SELECT offer_id FROM offers WHERE student_id = ? AND status = 'accepted'", studentId);
  if (accepted) unmet.push(`one-offer policy: offer ${accepted.offer_id} already accepted`);
  return { student_id: studentId, drive_id: drive.drive_id, eligible: unmet.length === 0, cgpa: c.cgpa, backlogs: c.backlogs, unmet };
}
