/**
 * The development catalog: 40 university-platform tools written for this project (not
 * from any public data set), modelled on the reference system's eight servers. With
 * dev/cases.ts it is what the curator's constants may be tuned and calibrated on; the
 * public data sets stay held out.
 */
import type { ToolRecord } from '../../catalog/types.js';

type Row = [server: string, name: string, description: string, params: string[]];

const ROWS: Row[] = [
  ['academics', 'get_my_profile', 'Profile of the signed-in student: name, programme, year, advisor.', ['student_id']],
  ['academics', 'list_enrolled_courses', 'Courses the student is enrolled in this term with credits and instructors.', ['student_id', 'term']],
  ['academics', 'get_course_details', 'Syllabus, credits, prerequisites and instructor of a course.', ['course_code']],
  ['academics', 'search_course_catalog', 'Search the course catalog by keyword, department or level.', ['keyword', 'department']],
  ['academics', 'register_for_course', 'Enrol the student in a course section for the coming term.', ['student_id', 'course_code', 'section']],
  ['academics', 'drop_course', 'Withdraw the student from a course they are enrolled in.', ['student_id', 'course_code']],
  ['academics', 'get_class_timetable', 'Weekly class schedule with rooms and times.', ['student_id', 'week']],
  ['academics', 'get_grades', 'Marks and letter grades for each course, per term.', ['student_id', 'term']],
  ['academics', 'get_gpa', 'Cumulative and term grade point average.', ['student_id']],
  ['academics', 'request_transcript', 'Order an official transcript to be sent by post or email.', ['student_id', 'delivery']],
  ['attendance', 'get_attendance_summary', 'Attendance percentage per course and the minimum required.', ['student_id']],
  ['attendance', 'get_attendance_records', 'Day-by-day present/absent records for one course.', ['student_id', 'course_code']],
  ['attendance', 'apply_for_leave', 'Apply for leave of absence for given dates with a reason.', ['student_id', 'from_date', 'to_date', 'reason']],
  ['attendance', 'mark_attendance', 'Faculty marks students present or absent for a class session.', ['faculty_id', 'course_code', 'session_date']],
  ['finance', 'get_fee_dues', 'Outstanding tuition and other fees the student still has to pay, with due dates.', ['student_id']],
  ['finance', 'make_payment', 'Pay an outstanding fee by card or bank transfer.', ['student_id', 'amount', 'method']],
  ['finance', 'get_payment_history', 'Receipts of past payments.', ['student_id']],
  ['finance', 'apply_for_scholarship', 'Submit a scholarship or financial aid application.', ['student_id', 'scheme']],
  ['finance', 'get_scholarship_status', 'Status of submitted scholarship applications.', ['student_id']],
  ['library', 'search_library_catalog', 'Find books, journals and e-books in the library by title, author or subject.', ['query']],
  ['library', 'borrow_book', 'Check out a library book to the student.', ['student_id', 'book_id']],
  ['library', 'renew_book', 'Extend the loan period of a borrowed book.', ['student_id', 'loan_id']],
  ['library', 'get_library_loans', 'Books currently on loan and their return dates.', ['student_id']],
  ['library', 'get_library_fines', 'Overdue fines owed to the library.', ['student_id']],
  ['library', 'reserve_study_room', 'Book a group study room in the library for a time slot.', ['student_id', 'room', 'slot']],
  ['hostel', 'get_room_allocation', 'Hostel block and room assigned to the student.', ['student_id']],
  ['hostel', 'request_room_change', 'Ask to move to another hostel room.', ['student_id', 'preferred_block', 'reason']],
  ['hostel', 'report_maintenance_issue', 'Report a broken fixture, leak or electrical fault in the hostel.', ['student_id', 'location', 'description']],
  ['hostel', 'get_mess_menu', 'This week\'s dining hall menu.', ['week']],
  ['exams', 'get_exam_schedule', 'Dates, times and halls of the student\'s upcoming examinations.', ['student_id', 'term']],
  ['exams', 'get_exam_eligibility', 'Whether the student may sit the exams, given attendance and dues.', ['student_id', 'term']],
  ['exams', 'download_hall_ticket', 'Admit card PDF required to enter the examination hall.', ['student_id', 'term']],
  ['exams', 'apply_for_revaluation', 'Request re-marking of an answer script.', ['student_id', 'course_code']],
  ['grievance', 'submit_grievance', 'File a formal complaint with the grievance cell.', ['student_id', 'category', 'details']],
  ['grievance', 'get_grievance_status', 'Progress of a complaint the student filed.', ['student_id', 'ticket_id']],
  ['grievance', 'book_counselling_session', 'Schedule a confidential appointment with a campus counsellor.', ['student_id', 'slot']],
  ['transport', 'get_bus_routes', 'Campus shuttle routes, stops and timings.', ['route']],
  ['transport', 'apply_for_bus_pass', 'Apply for a semester bus pass.', ['student_id', 'route']],
  ['transport', 'get_parking_permit', 'Status or purchase of a vehicle parking permit.', ['student_id', 'vehicle_number']],
  ['transport', 'report_lost_item', 'Report an item lost on campus or on a shuttle.', ['student_id', 'item', 'location']],
];

/** The 40 dev tools as ToolRecords (parameters as string properties; actions are the writes). */
export const DEV_TOOLS: ToolRecord[] = ROWS.map(([server, name, description, params]) => ({
  server,
  upstreamName: name,
  name,
  description,
  inputSchema: { type: 'object', properties: Object.fromEntries(params.map((p) => [p, { type: 'string' }])) },
  isAction: /^(register|drop|apply|mark|make|borrow|renew|reserve|request|report|submit|book)_/.test(name),
}));

/** domain_synonyms.json for the dev catalog. */
export const DEV_SYNONYMS: Record<string, string> = {
  submit_grievance: 'raise complaint file issue lodge protest formal complaint',
  get_fee_dues: 'outstanding balance money owed pending fees',
  download_hall_ticket: 'admit card exam entry pass',
  get_mess_menu: 'food canteen dining lunch dinner',
};

/** dependencies.yaml for the dev catalog. */
export const DEV_DEPENDENCIES: Record<string, string[]> = {
  get_exam_eligibility: ['get_attendance_summary', 'get_fee_dues'],
  make_payment: ['get_fee_dues'],
};
