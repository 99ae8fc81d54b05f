/**
 * Seeds the library (catalogue, loans, fines, reservations, study rooms), placements
 * (companies, drives, registrations, offers, resumes, internships) and campus
 * administration (grievances, announcements, events, transport, IT tickets).
 */
import { BOOKS, COMPANIES } from '../data.js';
import { addDays } from '../dates.js';
import { STUDY_SLOTS } from '../fixture.js';
import { facultyId, pad, studentId, type SeedContext } from './context.js';
import { STUDENT_COUNT, studentShape } from './people.js';

export function seedLibrary(ctx: SeedContext): void {
  BOOKS.forEach(([title, author, subject], n) => {
    ctx.insert('books', {
      book_id: `B${pad(n + 1, 3)}`, title, author, isbn: `978-81-${pad(1000 + n * 37, 4)}-${pad(n * 13 % 100, 2)}-${n % 10}`, subject,
      copies: 2 + (n % 4), location: `${subject} shelf ${1 + (n % 6)}`, added_on: n >= 40 ? addDays('2025-10-10', n - 40) : `${2018 + (n % 7)}-06-15`,
    });
  });
  const active = new Map<string, number>();
  const loan = (book: string, member: string, issued: string, due: string, returned: string | null, renewals = 0) => {
    if (!returned) active.set(book, (active.get(book) ?? 0) + 1);
    return ctx.insert('loans', { book_id: book, member_id: member, issued_on: issued, due_on: due, returned_on: returned, renewals });
  };
  loan('B001', 'S0001', '2025-10-27', '2025-11-17', null);
  loan('B007', 'S0001', '2025-10-13', '2025-11-03', null);
  loan('B006', 'F001', '2025-10-20', '2025-12-19', null);
  const late = loan('B012', 'S0001', '2025-08-01', '2025-08-15', '2025-08-27');
  ctx.insert('library_fines', { member_id: 'S0001', loan_id: late, amount: 60, reason: 'Returned 12 days late', status: 'unpaid', paid_on: null });
  const member = () => (ctx.chance(0.8) ? studentId(ctx.int(6, STUDENT_COUNT)) : facultyId(ctx.int(2, 40)));
  for (let n = 0; n < 90; n++) {
    const book = `B${pad(ctx.int(1, BOOKS.length), 3)}`;
    const copies = 2 + ((Number(book.slice(1)) - 1) % 4);
    if ((active.get(book) ?? 0) >= copies - (book === 'B030' ? 1 : 0)) continue;
    const m = member();
    const issued = addDays('2025-09-25', ctx.int(0, 44));
    loan(book, m, issued, addDays(issued, m.startsWith('F') ? 60 : 21), null, ctx.int(0, 1));
  }
  for (let n = 0; n < 150; n++) {
    const m = member();
    const issued = addDays('2025-06-01', ctx.int(0, 110));
    const due = addDays(issued, 21);
    const lateDays = ctx.chance(0.15) ? ctx.int(1, 20) : -ctx.int(0, 10);
    const id = loan(`B${pad(ctx.int(1, BOOKS.length), 3)}`, m, issued, due, addDays(due, lateDays));
    if (lateDays > 0) ctx.insert('library_fines', { member_id: m, loan_id: id, amount: 5 * lateDays, reason: `Returned ${lateDays} days late`, status: ctx.chance(0.6) ? 'paid' : 'unpaid', paid_on: null });
  }
  ctx.insert('reservations', { book_id: 'B020', member_id: 'S0001', status: 'active', created_at: '2025-11-04' });
  for (let n = 0; n < 10; n++) ctx.insert('reservations', { book_id: `B${pad(ctx.int(1, BOOKS.length), 3)}`, member_id: member(), status: ctx.pick(['active', 'fulfilled', 'cancelled']), created_at: addDays('2025-10-01', ctx.int(0, 38)) });
  const rooms: Array<[string, string, number, number, string]> = [
    ['SR1', 'Discussion Room 1', 6, 1, 'whiteboard'], ['SR2', 'Discussion Room 2', 6, 1, 'whiteboard, screen'],
    ['SR3', 'Group Study Room', 10, 2, 'projector, whiteboard'], ['SR4', 'Quiet Pod A', 2, 2, 'desk lamps'],
    ['SR5', 'Quiet Pod B', 2, 2, 'desk lamps'], ['SR6', 'Seminar Room', 20, 3, 'projector, video conferencing'],
  ];
  for (const [room_id, name, capacity, floor, facilities] of rooms) ctx.insert('study_rooms', { room_id, name, capacity, floor, facilities });
  ctx.insert('room_bookings', { room_id: 'SR1', member_id: 'S0006', date: '2025-11-10', slot: '09:00-11:00', purpose: 'Project discussion', status: 'confirmed', created_at: '2025-11-07' });
  const taken = new Set<string>(['SR2|2025-11-12|14:00-16:00', 'SR1|2025-11-10|09:00-11:00']);
  for (let n = 0; n < 24; n++) {
    const key = `${ctx.pick(rooms)[0]}|${addDays('2025-11-10', ctx.int(0, 4))}|${ctx.pick(STUDY_SLOTS)}`;
    if (taken.has(key)) continue;
    taken.add(key);
    const [room_id, date, slot] = key.split('|');
    ctx.insert('room_bookings', { room_id, member_id: member(), date, slot, purpose: ctx.pick(['Project discussion', 'Exam preparation', 'Mock interview practice']), status: 'confirmed', created_at: '2025-11-07' });
  }
  const suggestions: Array<[string, string]> = [['Deep Learning', 'Goodfellow, Bengio, Courville'], ['Site Reliability Engineering', 'Beyer et al.'], ['Reinforced Concrete Design', 'Pillai, Menon'], ['Analog Integrated Circuit Design', 'Johns, Martin']];
  suggestions.forEach(([title, author], n) => ctx.insert('purchase_suggestions', { member_id: facultyId(3 + n * 9), title, author, reason: 'Course reference', status: n % 2 ? 'ordered' : 'under review', created_at: '2025-10-1' + n }));
}

export function seedPlacements(ctx: SeedContext): void {
  COMPANIES.forEach(([name, sector, hq], n) => ctx.insert('companies', { company_id: `C${pad(n + 1, 2)}`, name, sector, hq, website: `https://${name.toLowerCase().replace(/[^a-z]+/g, '')}.example.com` }));
  const drives: Array<[string, string, string, number, number, number, string, string, string, string]> = [
    ['DRV01', 'C06', 'Software Engineer', 8.5, 6.5, 1, 'CSE,ECE,EEE', '2025-09-10', '2025-09-05', 'completed'],
    ['DRV02', 'C01', 'Data Analyst', 9.0, 7.0, 0, 'CSE,ECE,MECH,CIVIL,EEE', '2025-09-18', '2025-09-12', 'completed'],
    ['DRV03', 'C02', 'Design Engineer', 11.0, 7.0, 0, 'ECE,EEE', '2025-09-25', '2025-09-20', 'completed'],
    ['DRV04', 'C03', 'Graduate Engineer Trainee', 7.0, 6.0, 2, 'MECH,EEE', '2025-10-03', '2025-09-28', 'completed'],
    ['DRV05', 'C11', 'Cloud Engineer', 12.0, 7.0, 0, 'CSE,ECE', '2025-11-28', '2025-11-20', 'open'],
    ['DRV06', 'C07', 'Backend Developer', 14.0, 7.5, 0, 'CSE,ECE,EEE', '2025-12-02', '2025-11-25', 'open'],
    ['DRV07', 'C04', 'Site Engineer', 6.5, 6.0, 2, 'CIVIL', '2025-11-26', '2025-11-19', 'open'],
    ['DRV08', 'C05', 'Graduate Engineer', 7.5, 6.5, 1, 'EEE,MECH', '2025-11-27', '2025-11-21', 'open'],
    ['DRV09', 'C08', 'Robotics Engineer', 10.0, 7.0, 0, 'MECH,ECE,CSE', '2025-12-04', '2025-11-27', 'open'],
    ['DRV10', 'C09', 'Business Analyst', 9.5, 6.5, 1, 'CSE,ECE,MECH,CIVIL,EEE', '2025-12-05', '2025-11-28', 'open'],
    ['DRV11', 'C10', 'Network Engineer', 8.0, 6.5, 1, 'ECE,CSE', '2025-11-18', '2025-11-01', 'closed'],
    ['DRV12', 'C15', 'Electrical Design Engineer', 8.8, 7.0, 0, 'EEE', '2025-11-19', '2025-11-03', 'closed'],
  ];
  for (const [drive_id, company_id, role, ctc_lpa, min_cgpa, max_backlogs, departments, drive_date, deadline, status] of drives) {
    const hq = COMPANIES[Number(company_id.slice(1)) - 1][2];
    ctx.insert('drives', { drive_id, company_id, role, ctc_lpa, min_cgpa, max_backlogs, departments, drive_date, deadline, status, location: status === 'open' ? 'On campus' : hq });
  }
  const reg = (sid: string, drive: string, status: string, slot: string | null = null) => ctx.insert('drive_registrations', { student_id: sid, drive_id: drive, status, registered_at: '2025-09-01', interview_slot: slot });
  reg('S0001', 'DRV01', 'selected');
  reg('S0001', 'DRV02', 'selected');
  reg('S0001', 'DRV05', 'registered');
  ctx.insert('offers', { student_id: 'S0001', drive_id: 'DRV01', role: 'Software Engineer', ctc_lpa: 8.5, status: 'pending', offered_on: '2025-09-15', respond_by: '2025-11-20' });
  ctx.insert('offers', { student_id: 'S0001', drive_id: 'DRV02', role: 'Data Analyst', ctc_lpa: 9.0, status: 'pending', offered_on: '2025-09-22', respond_by: '2025-11-20' });
  for (let i = 6; i <= STUDENT_COUNT; i++) {
    const s = studentShape(i);
    if (s.year !== 4) continue;
    const dept = ['CSE', 'ECE', 'MECH', 'CIVIL', 'EEE'][s.dept];
    const mine = drives.filter((d) => d[6].split(',').includes(dept));
    for (const d of mine.slice(0, 3)) {
      if (!ctx.chance(0.6)) continue;
      if (d[9] === 'completed') {
        const selected = ctx.chance(0.35);
        reg(s.id, d[0], selected ? 'selected' : 'not selected');
        if (selected) ctx.insert('offers', { student_id: s.id, drive_id: d[0], role: d[2], ctc_lpa: d[3], status: ctx.pick(['accepted', 'accepted', 'declined', 'pending']), offered_on: addDays(d[7], 5), respond_by: '2025-11-20' });
      } else if (d[9] === 'closed') {
        reg(s.id, d[0], 'shortlisted', `${d[7]} ${pad(9 + (i % 8), 2)}:${i % 2 ? '30' : '00'}`);
      } else reg(s.id, d[0], 'registered');
    }
  }
  for (let i = 1; i <= STUDENT_COUNT; i++) {
    const s = studentShape(i);
    if (s.year < 3) continue;
    ctx.insert('resumes', { student_id: s.id, version: 1 + (i % 3), headline: `Final-year ${['CSE', 'ECE', 'MECH', 'CIVIL', 'EEE'][s.dept]} student`, skills: ctx.pick(['Python, SQL, React', 'MATLAB, Verilog, PCB design', 'SolidWorks, ANSYS, CNC', 'AutoCAD, STAAD Pro, Primavera', 'PLC, SCADA, Power systems']), summary: 'Projects, internships and achievements listed in detail.', updated_at: '2025-08-20' });
  }
  const internships: Array<[string, string, string, number, number, number, string]> = [
    ['INT01', 'C01', 'Data Science Intern', 30_000, 8, 3, '2025-11-30'], ['INT02', 'C11', 'Cloud Operations Intern', 25_000, 10, 3, '2025-12-05'],
    ['INT03', 'C02', 'Chip Verification Intern', 35_000, 12, 3, '2025-11-25'], ['INT04', 'C03', 'Vehicle Dynamics Intern', 20_000, 8, 2, '2025-12-10'],
    ['INT05', 'C04', 'Structural Design Intern', 15_000, 6, 2, '2025-12-01'], ['INT06', 'C05', 'Solar Plant Intern', 18_000, 8, 2, '2025-11-28'],
    ['INT07', 'C13', 'Avionics Intern', 28_000, 12, 3, '2025-12-15'], ['INT08', 'C06', 'Frontend Developer Intern', 22_000, 8, 2, '2025-11-15'],
  ];
  for (const [internship_id, company_id, title, stipend, duration_weeks, min_year, deadline] of internships) {
    ctx.insert('internships', { internship_id, company_id, title, stipend, duration_weeks, min_year, deadline, location: COMPANIES[Number(company_id.slice(1)) - 1][2] });
  }
  for (let n = 0; n < 30; n++) {
    const i = ctx.int(6, STUDENT_COUNT);
    if (studentShape(i).year < 2) continue;
    ctx.insert('internship_applications', { internship_id: ctx.pick(internships)[0], student_id: studentId(i), statement: 'Interested in the role; resume attached.', status: ctx.pick(['applied', 'shortlisted', 'rejected', 'offered']), created_at: addDays('2025-10-01', ctx.int(0, 38)) });
  }
}

export function seedAdministration(ctx: SeedContext): void {
  ctx.insert('grievances', { submitter_id: 'S0001', category: 'hostel', subject: 'Wi-Fi outage in Aravali block', description: 'No Wi-Fi on the first floor of Aravali since 2 November.', status: 'open', created_at: '2025-11-04' });
  const subjects: Array<[string, string]> = [
    ['academic', 'Internal marks not updated'], ['fees', 'Late fee charged despite timely payment'], ['hostel', 'Water supply interrupted'],
    ['transport', 'Bus on route R3 always late'], ['examination', 'Clash in exam timetable'], ['library', 'Fine charged for a returned book'],
    ['infrastructure', 'Projector not working in classroom'], ['harassment', 'Ragging complaint'],
  ];
  for (let n = 0; n < 24; n++) {
    const [category, subject] = subjects[n % subjects.length];
    const status = ctx.pick(['open', 'in_progress', 'resolved', 'resolved', 'escalated']);
    ctx.insert('grievances', { submitter_id: n % 5 === 4 ? facultyId(ctx.int(1, 40)) : studentId(ctx.int(6, STUDENT_COUNT)), category, subject, description: `${subject}. Please look into this.`, status, resolution: status === 'resolved' ? 'Addressed by the concerned office.' : null, resolved_by: status === 'resolved' ? 'E017' : null, created_at: addDays('2025-09-01', ctx.int(0, 68)), resolved_at: status === 'resolved' ? '2025-11-01' : null });
  }
  const announcements: Array<[string, string, string, string]> = [
    ['End-semester examination timetable published', 'The end-semester timetable is available on the examinations portal.', 'students', 'E002'],
    ['Fee payment deadline extended', 'Tuition dues without late fee accepted until 15 November.', 'students', 'E003'],
    ['Campus placement drive: Arcadia Cloud', 'Registrations close on 20 November for CSE and ECE final-year students.', 'students', 'E010'],
    ['Faculty development programme on outcome-based education', 'Three-day FDP from 24 November in the Seminar Hall.', 'faculty', 'E014'],
    ['Library extended hours during exams', 'The central library stays open until midnight from 24 November.', 'all', 'E009'],
    ['Hostel night curfew reminder', 'Residents must sign in before curfew; late entries are recorded.', 'students', 'E004'],
    ['Internal marks submission deadline', 'Enter all internal assessment marks by 14 November.', 'faculty', 'E019'],
    ['Annual cultural fest Utsav 2025', 'Utsav runs 5-7 December. Volunteers can register now.', 'all', 'E015'],
    ['Network maintenance this Sunday', 'Campus Wi-Fi will be down from 06:00 to 10:00.', 'all', 'E011'],
    ['New bus route to Whitefield', 'Route R6 starts from 17 November.', 'all', 'E012'],
  ];
  announcements.forEach(([title, body, audience, by], n) => ctx.insert('announcements', { title, body, audience, posted_by: by, posted_at: addDays('2025-10-25', n) + 'T10:00:00' }));
  const events: Array<[string, string, string, string, string, number]> = [
    ['EV01', 'Utsav 2025 cultural fest', '2025-12-05', 'Open Air Theatre', 'Student Council', 2000],
    ['EV02', 'Hack the Campus 24-hour hackathon', '2025-11-22', 'Innovation Centre', 'CSE Department', 150],
    ['EV03', 'Guest lecture: Careers in semiconductors', '2025-11-14', 'Seminar Hall', 'ECE Department', 200],
    ['EV04', 'Blood donation camp', '2025-11-19', 'Medical Centre', 'NSS Unit', 300],
    ['EV05', 'Inter-hostel football tournament', '2025-11-29', 'Main Ground', 'Sports Council', 400],
    ['EV06', 'Workshop on research paper writing', '2025-11-17', 'Library Seminar Room', 'Central Library', 60],
    ['EV07', 'Alumni meet 2025', '2025-12-20', 'Convention Centre', 'Alumni Relations', 500],
    ['EV08', 'Robotics expo', '2025-11-26', 'Watt Block Atrium', 'MECH Department', 250],
  ];
  for (const [event_id, title, date, venue, organiser, capacity] of events) ctx.insert('events', { event_id, title, date, venue, organiser, capacity, description: `${title}, organised by ${organiser}.` });
  const seen = new Set<string>();
  for (let n = 0; n < 90; n++) {
    const key = `${ctx.pick(events)[0]}|${ctx.chance(0.85) ? studentId(ctx.int(6, STUDENT_COUNT)) : facultyId(ctx.int(1, 40))}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const [event_id, member_id] = key.split('|');
    ctx.insert('event_registrations', { event_id, member_id, registered_at: '2025-11-0' + ctx.int(1, 9) });
  }
  const routes: Array<[string, string, string, string, string, number]> = [
    ['R1', 'Jayanagar', 'Jayanagar 4th Block, South End Circle, Lalbagh West Gate, Campus', '07:10', '17:15', 14_000],
    ['R2', 'Yelahanka', 'Yelahanka New Town, Hebbal, Mekhri Circle, Campus', '06:55', '17:15', 16_000],
    ['R3', 'Electronic City', 'Electronic City Phase 1, Bommanahalli, Silk Board, Campus', '07:00', '17:20', 15_000],
    ['R4', 'Banashankari', 'Banashankari Temple, Kathriguppe, Basavanagudi, Campus', '07:15', '17:15', 13_000],
    ['R5', 'Marathahalli', 'Marathahalli Bridge, Kundalahalli Gate, Domlur, Campus', '06:50', '17:30', 16_000],
    ['R6', 'Whitefield', 'Whitefield ITPL, Hoodi Circle, KR Puram, Campus', '06:40', '17:30', 18_000],
  ];
  for (const [route_id, name, stops, departure, ret, fee] of routes) ctx.insert('transport_routes', { route_id, name, stops, departure, return_departure: ret, fee, seats: 50 });
  for (let i = 5; i <= STUDENT_COUNT; i += 5) {
    if (i === 5) continue;
    ctx.insert('transport_passes', { member_id: studentId(i), route_id: ctx.pick(routes)[0], status: 'active', valid_until: '2026-05-31', created_at: '2025-07-30' });
  }
  for (let f = 2; f <= 40; f += 4) ctx.insert('transport_passes', { member_id: facultyId(f), route_id: ctx.pick(routes)[0], status: 'active', valid_until: '2026-05-31', created_at: '2025-07-30' });
  ctx.insert('it_tickets', { requester_id: 'S0001', category: 'portal', description: 'Hall ticket page times out on the student portal', status: 'open', assigned_to: 'E011', created_at: '2025-11-07' });
  const issues: Array<[string, string]> = [['email', 'Cannot log in to university email'], ['wifi', 'Wi-Fi keeps disconnecting in the library'], ['portal', 'Fee receipt page shows an error'], ['lms', 'Course page missing on the learning portal'], ['hardware', 'Lab PC does not boot'], ['software', 'Need MATLAB licence activated']];
  for (let n = 0; n < 20; n++) {
    const [category, description] = ctx.pick(issues);
    ctx.insert('it_tickets', { requester_id: ctx.chance(0.7) ? studentId(ctx.int(6, STUDENT_COUNT)) : facultyId(ctx.int(1, 40)), category, description, status: ctx.pick(['open', 'in_progress', 'resolved']), assigned_to: ctx.pick(['E011', null]), created_at: addDays('2025-10-10', ctx.int(0, 30)) });
  }
}
