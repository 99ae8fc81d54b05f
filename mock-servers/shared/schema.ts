/**
 * The fixture database's tables. One schema for all eight servers: that sharing is the
 * point, so a payment written by finance is what examinations reads for eligibility.
 * Bump SCHEMA_VERSION whenever this DDL or the seed changes; an older file is rebuilt.
 */

export const SCHEMA_VERSION = '4';

export const SCHEMA = `
CREATE TABLE departments (dept_id TEXT PRIMARY KEY, name TEXT NOT NULL, building TEXT NOT NULL, head_faculty_id TEXT);
CREATE TABLE students (
  student_id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, phone TEXT NOT NULL,
  dept_id TEXT NOT NULL, program TEXT NOT NULL, year INTEGER NOT NULL, semester INTEGER NOT NULL,
  section TEXT NOT NULL, admission_year INTEGER NOT NULL, advisor_id TEXT NOT NULL,
  hostel_resident INTEGER NOT NULL, family_income INTEGER NOT NULL, guardian_name TEXT NOT NULL,
  guardian_phone TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'active');
CREATE TABLE faculty (
  faculty_id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, phone TEXT NOT NULL,
  dept_id TEXT NOT NULL, designation TEXT NOT NULL, office TEXT NOT NULL, specialization TEXT NOT NULL,
  joined_year INTEGER NOT NULL);
CREATE TABLE employees (employee_id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, title TEXT NOT NULL, office TEXT NOT NULL);
CREATE TABLE courses (
  course_id TEXT PRIMARY KEY, title TEXT NOT NULL, dept_id TEXT NOT NULL, credits INTEGER NOT NULL,
  semester INTEGER NOT NULL, kind TEXT NOT NULL, faculty_id TEXT NOT NULL, capacity INTEGER NOT NULL,
  description TEXT NOT NULL);
CREATE TABLE enrolments (
  student_id TEXT NOT NULL, course_id TEXT NOT NULL, term TEXT NOT NULL, status TEXT NOT NULL,
  enrolled_on TEXT NOT NULL, PRIMARY KEY (student_id, course_id, term));
CREATE TABLE grades (
  student_id TEXT NOT NULL, course_id TEXT NOT NULL, term TEXT NOT NULL, grade TEXT NOT NULL,
  grade_points REAL NOT NULL, status TEXT NOT NULL, submitted_by TEXT, PRIMARY KEY (student_id, course_id, term));
CREATE TABLE internal_marks (
  student_id TEXT NOT NULL, course_id TEXT NOT NULL, term TEXT NOT NULL, component TEXT NOT NULL,
  marks REAL NOT NULL, max_marks REAL NOT NULL, entered_by TEXT NOT NULL, updated_at TEXT NOT NULL,
  PRIMARY KEY (student_id, course_id, term, component));
CREATE TABLE marks_audit (
  audit_id INTEGER PRIMARY KEY, student_id TEXT NOT NULL, course_id TEXT NOT NULL, component TEXT NOT NULL,
  old_marks REAL NOT NULL, new_marks REAL NOT NULL, reason TEXT NOT NULL, changed_by TEXT NOT NULL, changed_at TEXT NOT NULL);
CREATE TABLE timetable (course_id TEXT NOT NULL, day TEXT NOT NULL, start_time TEXT NOT NULL, end_time TEXT NOT NULL, room TEXT NOT NULL);
CREATE TABLE syllabus (course_id TEXT NOT NULL, unit INTEGER NOT NULL, title TEXT NOT NULL, topics TEXT NOT NULL, hours INTEGER NOT NULL, PRIMARY KEY (course_id, unit));
CREATE TABLE calendar (term TEXT NOT NULL, date TEXT NOT NULL, event TEXT NOT NULL, kind TEXT NOT NULL);
CREATE TABLE class_sessions (
  session_id INTEGER PRIMARY KEY, course_id TEXT NOT NULL, date TEXT NOT NULL, marked_by TEXT NOT NULL,
  marked_at TEXT NOT NULL, UNIQUE (course_id, date));
CREATE TABLE attendance (session_id INTEGER NOT NULL, student_id TEXT NOT NULL, status TEXT NOT NULL, PRIMARY KEY (session_id, student_id));
CREATE INDEX attendance_student ON attendance (student_id);
CREATE TABLE attendance_audit (
  audit_id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL, student_id TEXT NOT NULL, old_status TEXT NOT NULL,
  new_status TEXT NOT NULL, reason TEXT NOT NULL, changed_by TEXT NOT NULL, changed_at TEXT NOT NULL);
CREATE TABLE condonation_requests (
  request_id INTEGER PRIMARY KEY, student_id TEXT NOT NULL, course_id TEXT NOT NULL, reason TEXT NOT NULL,
  status TEXT NOT NULL, reviewed_by TEXT, remarks TEXT, created_at TEXT NOT NULL);
CREATE TABLE exams (
  exam_id TEXT PRIMARY KEY, course_id TEXT NOT NULL, term TEXT NOT NULL, kind TEXT NOT NULL,
  date TEXT NOT NULL, session TEXT NOT NULL, venue TEXT NOT NULL);
CREATE TABLE exam_registrations (
  registration_id INTEGER PRIMARY KEY, student_id TEXT NOT NULL, exam_id TEXT NOT NULL, kind TEXT NOT NULL,
  fee INTEGER NOT NULL, status TEXT NOT NULL, invoice_id INTEGER, created_at TEXT NOT NULL, UNIQUE (student_id, exam_id));
CREATE TABLE exam_marks (
  student_id TEXT NOT NULL, course_id TEXT NOT NULL, term TEXT NOT NULL, marks REAL NOT NULL,
  entered_by TEXT NOT NULL, entered_at TEXT NOT NULL, PRIMARY KEY (student_id, course_id, term));
CREATE TABLE hall_ticket_overrides (
  student_id TEXT NOT NULL, term TEXT NOT NULL, issued_by TEXT NOT NULL, reason TEXT NOT NULL,
  issued_at TEXT NOT NULL, PRIMARY KEY (student_id, term));
CREATE TABLE revaluation_requests (
  request_id INTEGER PRIMARY KEY, student_id TEXT NOT NULL, course_id TEXT NOT NULL, term TEXT NOT NULL,
  reason TEXT NOT NULL, fee INTEGER NOT NULL, status TEXT NOT NULL, invoice_id INTEGER, created_at TEXT NOT NULL);
CREATE TABLE invigilation_duties (duty_id INTEGER PRIMARY KEY, faculty_id TEXT NOT NULL, exam_id TEXT NOT NULL, room TEXT NOT NULL, role TEXT NOT NULL);
CREATE TABLE question_papers (paper_id INTEGER PRIMARY KEY, course_id TEXT NOT NULL, term TEXT NOT NULL, kind TEXT NOT NULL, url TEXT NOT NULL);
CREATE TABLE invoices (
  invoice_id INTEGER PRIMARY KEY, student_id TEXT NOT NULL, term TEXT NOT NULL, category TEXT NOT NULL,
  description TEXT NOT NULL, amount INTEGER NOT NULL, paid INTEGER NOT NULL, due_date TEXT NOT NULL,
  late_fee_waived INTEGER NOT NULL DEFAULT 0, created_by TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE INDEX invoices_student ON invoices (student_id);
CREATE TABLE payments (
  payment_id INTEGER PRIMARY KEY, invoice_id INTEGER NOT NULL, student_id TEXT NOT NULL, amount INTEGER NOT NULL,
  method TEXT NOT NULL, receipt_no TEXT NOT NULL UNIQUE, paid_at TEXT NOT NULL);
CREATE TABLE installment_plans (
  plan_id INTEGER PRIMARY KEY, invoice_id INTEGER NOT NULL, student_id TEXT NOT NULL, installments INTEGER NOT NULL,
  status TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE scholarships (
  scholarship_id TEXT PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL, amount INTEGER NOT NULL,
  min_cgpa REAL NOT NULL, max_family_income INTEGER, dept_id TEXT, min_year INTEGER NOT NULL, deadline TEXT NOT NULL);
CREATE TABLE scholarship_applications (
  application_id INTEGER PRIMARY KEY, scholarship_id TEXT NOT NULL, student_id TEXT NOT NULL, statement TEXT NOT NULL,
  status TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE refunds (
  refund_id INTEGER PRIMARY KEY, student_id TEXT NOT NULL, payment_id INTEGER NOT NULL, amount INTEGER NOT NULL,
  reason TEXT NOT NULL, status TEXT NOT NULL, decided_by TEXT, created_at TEXT NOT NULL);
CREATE TABLE salary_slips (
  faculty_id TEXT NOT NULL, month TEXT NOT NULL, basic INTEGER NOT NULL, allowances INTEGER NOT NULL,
  deductions INTEGER NOT NULL, net INTEGER NOT NULL, PRIMARY KEY (faculty_id, month));
CREATE TABLE reimbursements (
  claim_id INTEGER PRIMARY KEY, faculty_id TEXT NOT NULL, category TEXT NOT NULL, amount INTEGER NOT NULL,
  description TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE budgets (dept_id TEXT NOT NULL, fiscal_year TEXT NOT NULL, allocated INTEGER NOT NULL, spent INTEGER NOT NULL, PRIMARY KEY (dept_id, fiscal_year));
CREATE TABLE hostel_blocks (block_id TEXT PRIMARY KEY, name TEXT NOT NULL, warden_id TEXT NOT NULL, curfew TEXT NOT NULL);
CREATE TABLE hostel_rooms (room_id TEXT PRIMARY KEY, block_id TEXT NOT NULL, floor INTEGER NOT NULL, capacity INTEGER NOT NULL, rent INTEGER NOT NULL);
CREATE TABLE hostel_allocations (student_id TEXT PRIMARY KEY, room_id TEXT NOT NULL, since TEXT NOT NULL);
CREATE TABLE hostel_staff (staff_id TEXT PRIMARY KEY, name TEXT NOT NULL, role TEXT NOT NULL, block_id TEXT, phone TEXT NOT NULL);
CREATE TABLE room_change_requests (
  request_id INTEGER PRIMARY KEY, student_id TEXT NOT NULL, current_room TEXT NOT NULL, preferred_block TEXT,
  reason TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE hostel_leaves (
  leave_id INTEGER PRIMARY KEY, student_id TEXT NOT NULL, from_date TEXT NOT NULL, to_date TEXT NOT NULL,
  destination TEXT NOT NULL, reason TEXT NOT NULL, status TEXT NOT NULL, decided_by TEXT, remarks TEXT, created_at TEXT NOT NULL);
CREATE TABLE mess_menu (day TEXT NOT NULL, meal TEXT NOT NULL, items TEXT NOT NULL, PRIMARY KEY (day, meal));
CREATE TABLE mess_subscriptions (student_id TEXT PRIMARY KEY, plan TEXT NOT NULL, since TEXT NOT NULL);
CREATE TABLE mess_feedback (feedback_id INTEGER PRIMARY KEY, student_id TEXT NOT NULL, date TEXT NOT NULL, meal TEXT NOT NULL, rating INTEGER NOT NULL, comment TEXT NOT NULL);
CREATE TABLE visitors (
  visitor_id INTEGER PRIMARY KEY, student_id TEXT NOT NULL, visitor_name TEXT NOT NULL, relation TEXT NOT NULL,
  visit_date TEXT NOT NULL, phone TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE maintenance_requests (
  request_id INTEGER PRIMARY KEY, student_id TEXT NOT NULL, room_id TEXT NOT NULL, category TEXT NOT NULL,
  description TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL, resolved_at TEXT);
CREATE TABLE curfew_violations (violation_id INTEGER PRIMARY KEY, student_id TEXT NOT NULL, date TEXT NOT NULL, minutes_late INTEGER NOT NULL, remarks TEXT NOT NULL);
CREATE TABLE books (
  book_id TEXT PRIMARY KEY, title TEXT NOT NULL, author TEXT NOT NULL, isbn TEXT NOT NULL, subject TEXT NOT NULL,
  copies INTEGER NOT NULL, location TEXT NOT NULL, added_on TEXT NOT NULL);
CREATE TABLE loans (
  loan_id INTEGER PRIMARY KEY, book_id TEXT NOT NULL, member_id TEXT NOT NULL, issued_on TEXT NOT NULL,
  due_on TEXT NOT NULL, returned_on TEXT, renewals INTEGER NOT NULL DEFAULT 0);
CREATE TABLE reservations (reservation_id INTEGER PRIMARY KEY, book_id TEXT NOT NULL, member_id TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE library_fines (
  fine_id INTEGER PRIMARY KEY, member_id TEXT NOT NULL, loan_id INTEGER, amount INTEGER NOT NULL,
  reason TEXT NOT NULL, status TEXT NOT NULL, paid_on TEXT);
CREATE TABLE study_rooms (room_id TEXT PRIMARY KEY, name TEXT NOT NULL, capacity INTEGER NOT NULL, floor INTEGER NOT NULL, facilities TEXT NOT NULL);
CREATE TABLE room_bookings (
  booking_id INTEGER PRIMARY KEY, room_id TEXT NOT NULL, member_id TEXT NOT NULL, date TEXT NOT NULL,
  slot TEXT NOT NULL, purpose TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE purchase_suggestions (
  suggestion_id INTEGER PRIMARY KEY, member_id TEXT NOT NULL, title TEXT NOT NULL, author TEXT NOT NULL,
  reason TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE companies (company_id TEXT PRIMARY KEY, name TEXT NOT NULL, sector TEXT NOT NULL, hq TEXT NOT NULL, website TEXT NOT NULL);
CREATE TABLE drives (
  drive_id TEXT PRIMARY KEY, company_id TEXT NOT NULL, role TEXT NOT NULL, ctc_lpa REAL NOT NULL,
  min_cgpa REAL NOT NULL, max_backlogs INTEGER NOT NULL, departments TEXT NOT NULL, drive_date TEXT NOT NULL,
  deadline TEXT NOT NULL, status TEXT NOT NULL, location TEXT NOT NULL);
CREATE TABLE drive_registrations (
  student_id TEXT NOT NULL, drive_id TEXT NOT NULL, status TEXT NOT NULL, registered_at TEXT NOT NULL,
  interview_slot TEXT, PRIMARY KEY (student_id, drive_id));
CREATE TABLE resumes (student_id TEXT PRIMARY KEY, version INTEGER NOT NULL, headline TEXT NOT NULL, skills TEXT NOT NULL, summary TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE offers (
  offer_id INTEGER PRIMARY KEY, student_id TEXT NOT NULL, drive_id TEXT NOT NULL, role TEXT NOT NULL,
  ctc_lpa REAL NOT NULL, status TEXT NOT NULL, offered_on TEXT NOT NULL, respond_by TEXT NOT NULL);
CREATE TABLE internships (
  internship_id TEXT PRIMARY KEY, company_id TEXT NOT NULL, title TEXT NOT NULL, stipend INTEGER NOT NULL,
  duration_weeks INTEGER NOT NULL, min_year INTEGER NOT NULL, deadline TEXT NOT NULL, location TEXT NOT NULL);
CREATE TABLE internship_applications (
  application_id INTEGER PRIMARY KEY, internship_id TEXT NOT NULL, student_id TEXT NOT NULL, statement TEXT NOT NULL,
  status TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE grievances (
  grievance_id INTEGER PRIMARY KEY, submitter_id TEXT NOT NULL, category TEXT NOT NULL, subject TEXT NOT NULL,
  description TEXT NOT NULL, status TEXT NOT NULL, resolution TEXT, resolved_by TEXT, created_at TEXT NOT NULL, resolved_at TEXT);
CREATE TABLE announcements (
  announcement_id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL, audience TEXT NOT NULL,
  posted_by TEXT NOT NULL, posted_at TEXT NOT NULL);
CREATE TABLE events (
  event_id TEXT PRIMARY KEY, title TEXT NOT NULL, date TEXT NOT NULL, venue TEXT NOT NULL, organiser TEXT NOT NULL,
  capacity INTEGER NOT NULL, description TEXT NOT NULL);
CREATE TABLE event_registrations (event_id TEXT NOT NULL, member_id TEXT NOT NULL, registered_at TEXT NOT NULL, PRIMARY KEY (event_id, member_id));
CREATE TABLE transport_routes (
  route_id TEXT PRIMARY KEY, name TEXT NOT NULL, stops TEXT NOT NULL, departure TEXT NOT NULL,
  return_departure TEXT NOT NULL, fee INTEGER NOT NULL, seats INTEGER NOT NULL);
CREATE TABLE transport_passes (
  pass_id INTEGER PRIMARY KEY, member_id TEXT NOT NULL, route_id TEXT NOT NULL, status TEXT NOT NULL,
  valid_until TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE it_tickets (
  ticket_id INTEGER PRIMARY KEY, requester_id TEXT NOT NULL, category TEXT NOT NULL, description TEXT NOT NULL,
  status TEXT NOT NULL, assigned_to TEXT, created_at TEXT NOT NULL);
CREATE TABLE users (user_id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE roles (role TEXT PRIMARY KEY, description TEXT NOT NULL, permissions TEXT NOT NULL);
CREATE TABLE user_roles (user_id TEXT NOT NULL, role TEXT NOT NULL, granted_by TEXT NOT NULL, granted_at TEXT NOT NULL, PRIMARY KEY (user_id, role));
CREATE TABLE directory (office TEXT PRIMARY KEY, contact_person TEXT NOT NULL, phone TEXT NOT NULL, email TEXT NOT NULL, location TEXT NOT NULL, hours TEXT NOT NULL);
`;
