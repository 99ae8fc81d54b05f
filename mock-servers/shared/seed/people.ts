/**
 * Seeds people: departments, 40 faculty, 200 students, staff, portal users and roles,
 * and the campus directory. Student i's department and year follow from i, so the
 * fixture students S0001–S0005 are final-year students of the five departments.
 */
import { DEPARTMENTS, FIRST_NAMES, LAST_NAMES } from '../data.js';
import { EMPLOYEES } from '../fixture.js';
import { facultyId, pad, studentId, type SeedContext } from './context.js';

export const STUDENT_COUNT = 200;
export const FACULTY_PER_DEPT = 8;

export interface StudentShape {
  id: string;
  dept: number;
  year: number;
  semester: number;
  admissionYear: number;
  advisor: string;
  resident: boolean;
}

/** Student i (1-based): department i mod 5, years 4,3,2,1 in blocks of five. */
export function studentShape(i: number): StudentShape {
  const dept = (i - 1) % DEPARTMENTS.length;
  const year = 4 - (Math.floor((i - 1) / 5) % 4);
  return {
    id: studentId(i),
    dept,
    year,
    semester: 2 * year - 1,
    admissionYear: 2025 - (year - 1),
    advisor: facultyId(dept * FACULTY_PER_DEPT + 1 + (Math.floor((i - 1) / 5) % FACULTY_PER_DEPT)),
    resident: i % 5 !== 0,
  };
}

const DESIGNATIONS = ['Professor', 'Associate Professor', 'Assistant Professor', 'Assistant Professor'];

export const ROLES: Array<[role: string, description: string, permissions: string]> = [
  ['student', 'Enrolled student', 'self-service academics, fees, hostel, library, placements'],
  ['faculty', 'Teaching staff', 'attendance, internal marks, grades for own courses'],
  ['hod', 'Head of department', 'department reports, faculty workload'],
  ['registrar', 'Registrar office', 'student records, transcripts'],
  ['exam_controller', 'Examinations office', 'exam schedules, hall tickets, results'],
  ['finance_officer', 'Accounts office', 'invoices, refunds, fee waivers'],
  ['warden', 'Hostel warden', 'hostel leave, rooms, visitors'],
  ['librarian', 'Library staff', 'issue, return, catalogue'],
  ['placement_officer', 'Training and placement cell', 'drives, offers'],
  ['it_admin', 'IT services', 'tickets, accounts'],
  ['transport_manager', 'Transport office', 'routes, passes'],
  ['grievance_officer', 'Grievance cell', 'grievance resolution'],
  ['communications', 'Public relations', 'announcements'],
  ['executive', 'University leadership', 'dashboards and analytics'],
  ['admin', 'Platform administrator', 'every staff action, user and role administration'],
];

export function seedPeople(ctx: SeedContext): void {
  const name = () => `${ctx.pick(FIRST_NAMES)} ${ctx.pick(LAST_NAMES)}`;
  const phone = () => '9' + pad(ctx.int(0, 999_999_999), 9);
  DEPARTMENTS.forEach((d, di) => {
    ctx.insert('departments', { dept_id: d.id, name: d.name, building: d.building, head_faculty_id: facultyId(di * FACULTY_PER_DEPT + 1) });
  });
  for (let f = 1; f <= DEPARTMENTS.length * FACULTY_PER_DEPT; f++) {
    const di = Math.floor((f - 1) / FACULTY_PER_DEPT);
    const dept = DEPARTMENTS[di];
    const n = `Dr. ${name()}`;
    const id = facultyId(f);
    ctx.insert('faculty', {
      faculty_id: id, name: n, email: `${id.toLowerCase()}@univ.edu`, phone: phone(), dept_id: dept.id,
      designation: DESIGNATIONS[(f - 1) % DESIGNATIONS.length], office: `${dept.building} ${100 + f}`,
      specialization: dept.courses[(f * 5) % dept.courses.length], joined_year: 2000 + ((f * 7) % 24),
    });
    ctx.insert('users', { user_id: id, name: n, email: `${id.toLowerCase()}@univ.edu`, kind: 'faculty', status: 'active', created_at: '2024-06-01' });
    ctx.insert('user_roles', { user_id: id, role: 'faculty', granted_by: 'E016', granted_at: '2024-06-01' });
    if ((f - 1) % FACULTY_PER_DEPT === 0) ctx.insert('user_roles', { user_id: id, role: 'hod', granted_by: 'E016', granted_at: '2024-06-01' });
  }
  for (let i = 1; i <= STUDENT_COUNT; i++) {
    const s = studentShape(i);
    const dept = DEPARTMENTS[s.dept];
    const n = name();
    ctx.insert('students', {
      student_id: s.id, name: n, email: `${s.id.toLowerCase()}@students.univ.edu`, phone: phone(), dept_id: dept.id,
      program: `B.Tech ${dept.name}`, year: s.year, semester: s.semester, section: i % 2 ? 'A' : 'B',
      admission_year: s.admissionYear, advisor_id: s.advisor, hostel_resident: s.resident ? 1 : 0,
      family_income: i === 1 ? 350_000 : ctx.int(2, 30) * 50_000, guardian_name: `${ctx.pick(FIRST_NAMES)} ${n.split(' ')[1]}`,
      guardian_phone: phone(),
    });
    ctx.insert('users', { user_id: s.id, name: n, email: `${s.id.toLowerCase()}@students.univ.edu`, kind: 'student', status: 'active', created_at: `${s.admissionYear}-07-15` });
    ctx.insert('user_roles', { user_id: s.id, role: 'student', granted_by: 'E016', granted_at: `${s.admissionYear}-07-15` });
  }
  for (const [id, n, title, roles] of EMPLOYEES) {
    ctx.insert('employees', { employee_id: id, name: n, email: `${id.toLowerCase()}@univ.edu`, title, office: 'Administrative Block' });
    ctx.insert('users', { user_id: id, name: n, email: `${id.toLowerCase()}@univ.edu`, kind: 'staff', status: 'active', created_at: '2024-06-01' });
    for (const role of roles) ctx.insert('user_roles', { user_id: id, role, granted_by: 'E016', granted_at: '2024-06-01' });
  }
  for (const [role, description, permissions] of ROLES) ctx.insert('roles', { role, description, permissions });
  const offices: Array<[string, string, string]> = [
    ['Registrar Office', 'E001', 'Administrative Block, Ground Floor'],
    ['Examinations Office', 'E002', 'Administrative Block, First Floor'],
    ['Accounts and Fees Section', 'E003', 'Administrative Block, Ground Floor'],
    ['Hostel Office', 'E004', 'Aravali Block'],
    ['Central Library', 'E009', 'Library Building'],
    ['Training and Placement Cell', 'E010', 'Innovation Centre'],
    ['IT Helpdesk', 'E011', 'Computer Centre'],
    ['Transport Office', 'E012', 'Main Gate'],
    ['Dean of Student Affairs', 'E015', 'Administrative Block, Second Floor'],
    ['Grievance Cell', 'E017', 'Administrative Block, Second Floor'],
    ['Medical Centre', 'E015', 'Near Nilgiri Block'],
    ['Security Office', 'E004', 'Main Gate'],
  ];
  for (const [office, emp, location] of offices) {
    const person = EMPLOYEES.find((e) => e[0] === emp)!;
    ctx.insert('directory', {
      office, contact_person: `${person[1]} (${person[2]})`, phone: `080-2345-${pad(ctx.int(1000, 9999), 4)}`,
      email: `${office.toLowerCase().replace(/[^a-z]+/g, '.')}@univ.edu`, location, hours: office === 'Medical Centre' ? '24x7' : '09:00-17:30, Mon-Sat',
    });
  }
}
