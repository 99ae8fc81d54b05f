/**
 * Every read-only university tool, called once with valid arguments on a fresh fixture,
 * returns a non-empty, non-error result; fixture facts hold (CGPA of S0001, who is
 * barred from exams and why); invalid arguments come back as MCP error results that
 * name the problem, and the servers keep serving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorText, payload, University } from './university.js';

const S1 = { student_id: 'S0001' };
const F1 = { faculty_id: 'F001' };

/** Valid arguments for each read-only tool, with an optional check of a fixture fact. */
const READS: Record<string, { args?: Record<string, unknown>; check?: (r: any) => void }> = {
  // academics
  get_student_profile: { args: S1, check: (r) => expect(r).toMatchObject({ dept_id: 'CSE', year: 4, advisor_id: 'F001', hostel_resident: true }) },
  list_courses: { args: { semester: 7, kind: 'core' }, check: (r) => expect(r.map((c: any) => c.course_id)).toEqual(['CE701', 'CS701', 'EC701', 'EE701', 'ME701']) },
  get_course_details: { args: { course_id: 'CS701' }, check: (r) => expect(r).toMatchObject({ faculty_id: 'F001', credits: 4 }) },
  get_enrolled_courses: { args: S1, check: (r) => expect(r.courses.map((c: any) => c.course_id)).toEqual(['CS701', 'CS751', 'EC701', 'ME701']) },
  get_grades: { args: { ...S1, term: '2025-EVEN' }, check: (r) => expect(r.grades).toHaveLength(4) },
  get_cgpa: { args: S1, check: (r) => expect(r).toMatchObject({ cgpa: 8.99, credits_attempted: 78, credits_earned: 78 }) },
  get_course_performance_summary: { args: { ...S1, course_id: 'CS701' }, check: (r) => expect(r.attendance).toMatchObject({ classes_held: 42, classes_attended: 38 }) },
  get_student_academic_summary: { args: { student_id: 'S0003' }, check: (r) => expect(r.backlogs).toEqual([{ course_id: 'ME301', term: '2023-ODD' }]) },
  get_internal_assessment_marks: { args: { ...S1, course_id: 'CS701' }, check: (r) => expect(r.marks.map((m: any) => m.component)).toEqual(['assignment', 'midterm', 'quiz1', 'quiz2']) },
  get_timetable: { args: S1, check: (r) => expect(r.length).toBe(12) },
  get_course_syllabus: { args: { course_id: 'CS701' }, check: (r) => expect(r.units).toHaveLength(5) },
  get_academic_calendar: { args: { kind: 'exam' } },
  get_backlogs: { args: { student_id: 'S0003' }, check: (r) => expect(r.backlogs[0]).toMatchObject({ course_id: 'ME301', supplementary_exam: 'ME301-SUP' }) },
  get_faculty_profile: { args: F1 },
  get_faculty_timetable: { args: F1 },
  list_faculty_courses: { args: F1 },
  get_course_roster: { args: { course_id: 'CS701' }, check: (r) => expect(r.students.map((s: any) => s.student_id)).toContain('S0001') },
  get_course_grade_distribution: { args: { course_id: 'CS601' } },
  get_advisees: { args: F1 },
  list_students: { args: { department: 'CSE', year: 4 }, check: (r) => expect(r).toHaveLength(10) },
  list_faculty: { args: { department: 'CSE' }, check: (r) => expect(r).toHaveLength(8) },
  search_students: { args: { query: 'S000' } },
  get_department_academic_report: { args: { department: 'CSE' }, check: (r) => expect(r.students).toBe(40) },
  get_academic_performance_analytics: { args: { group_by: 'year' } },
  get_course_enrolment_stats: { args: { department: 'CSE' } },
  // attendance
  get_attendance_summary: { args: { student_id: 'S0003' }, check: (r) => expect(r.courses.find((c: any) => c.course_id === 'CE701')).toMatchObject({ percentage: 68.3, below_minimum: true }) },
  get_course_attendance: { args: { ...S1, course_id: 'CS701' }, check: (r) => expect(r.sessions).toHaveLength(42) },
  get_classes_needed_for_attendance: { args: { student_id: 'S0003', course_id: 'CE701' }, check: (r) => expect(r[0].classes_needed).toBeGreaterThan(0) },
  get_attendance_policy: { check: (r) => expect(r.minimum_percentage_per_course).toBe(75) },
  get_condonation_status: { args: { student_id: 'S0008' }, check: (r) => expect(r[0]).toMatchObject({ request_id: 1, course_id: 'ME501', status: 'pending' }) },
  get_missed_classes: { args: S1, check: (r) => expect(r.absences).toBeGreaterThan(0) },
  get_attendance_trend: { args: S1 },
  get_class_attendance: { args: { course_id: 'CS701', date: '2025-11-07' } },
  get_course_attendance_report: { args: { course_id: 'CS701' } },
  get_attendance_shortage_list: { args: { course_id: 'CE701' }, check: (r) => expect(r.map((x: any) => x.student_id)).toContain('S0003') },
  get_pending_condonation_requests: { args: { faculty_id: 'F018' }, check: (r) => expect(r.map((x: any) => x.request_id)).toContain(1) },
  get_attendance_marking_log: { args: F1 },
  get_department_attendance_stats: { args: { department: 'MECH' } },
  get_attendance_audit_trail: { args: { course_id: 'CS701' } },
  // examinations
  get_exam_schedule: { args: S1, check: (r) => expect(r.exams).toHaveLength(4) },
  get_exam_eligibility: { args: { student_id: 'S0002' }, check: (r) => expect(r).toMatchObject({ eligible: false, fee_cleared: false, fees_outstanding: 48500 }) },
  get_hall_ticket: { args: S1, check: (r) => expect(r).toMatchObject({ issued: true, ticket_number: 'HT-2025-ODD-S0001' }) },
  get_exam_results: { args: S1, check: (r) => expect(r).toMatchObject({ term: '2025-EVEN', result: 'pass' }) },
  get_exam_registrations: { args: S1 },
  get_revaluation_status: { args: S1, check: (r) => expect(r[0]).toMatchObject({ request_id: 1, course_id: 'CS601', status: 'pending' }) },
  get_previous_question_papers: { args: { course_id: 'CS701' } },
  get_grading_scale: {},
  get_exam_timetable: { args: { department: 'CSE' } },
  get_exam_details: { args: { exam_id: 'CS701-END' } },
  get_exam_seating_plan: { args: { exam_id: 'CS701-END' } },
  get_invigilation_duties: { args: F1 },
  get_exam_marks_entry_status: { args: { course_id: 'ME701' }, check: (r) => expect(r.end_semester_entered).toBe(r.enrolled) },
  get_exam_result_statistics: { args: { department: 'CSE' } },
  get_exam_performance_dashboard: {},
  list_ineligible_students: { args: { department: 'MECH' }, check: (r) => expect(r.map((x: any) => x.student_id)).toContain('S0003') },
  get_revaluation_queue: { args: { status: 'pending' } },
  // finance
  get_fee_dues: { args: { student_id: 'S0002' }, check: (r) => expect(r).toMatchObject({ total_balance: 48500, blocks_exams: true }) },
  get_fee_structure: {},
  get_payment_history: { args: S1 },
  get_payment_receipt: { args: { ...S1, payment_id: 1 }, check: (r) => expect(r.receipt_no).toBe('RCPT-2025-000001') },
  list_scholarships: { check: (r) => expect(r).toHaveLength(6) },
  check_scholarship_eligibility: { args: { ...S1, scholarship_id: 'SCH03' }, check: (r) => expect(r[0]).toMatchObject({ eligible: false, unmet: ['CGPA 8.99 below 9'] }) },
  get_scholarship_status: { args: S1 },
  get_refund_status: { args: { student_id: 'S0006' } },
  get_salary_slip: { args: F1 },
  get_reimbursement_status: { args: F1 },
  get_student_ledger: { args: { student_id: 'S0004' } },
  get_defaulters_list: {},
  get_fee_collection_report: { args: { department: 'CSE' } },
  get_outstanding_dues_report: {},
  get_scholarship_disbursement_report: {},
  get_budget_utilization: {},
  // hostel
  get_hostel_room: { args: S1, check: (r) => expect(r).toMatchObject({ room_id: 'ARV-101', block_id: 'ARV' }) },
  get_hostel_leave_status: { args: S1 },
  get_mess_menu: { args: { day: 'Mon' }, check: (r) => expect(r).toHaveLength(4) },
  get_maintenance_request_status: { args: S1 },
  list_available_rooms: { args: { block: 'ARV' } },
  get_pending_hostel_leaves: {},
  get_visitor_log: {},
  get_room_change_requests: {},
  get_block_residents: { args: { block: 'ARV' }, check: (r) => expect(r).toHaveLength(40) },
  get_hostel_occupancy_report: { check: (r) => expect(r).toMatchObject({ total_beds: 200, total_occupied: 160 }) },
  get_mess_feedback_summary: {},
  get_maintenance_backlog_report: {},
  get_hostel_blocks: {},
  get_mess_subscriptions_report: {},
  get_hostel_student_details: { args: S1 },
  get_curfew_violations: {},
  get_hostel_staff_directory: { args: { block: 'ARV' } },
  // library
  search_library_catalogue: { args: { query: 'operating systems' }, check: (r) => expect(r[0].title).toBe('Operating System Concepts') },
  get_book_details: { args: { book_id: 'B001' } },
  get_library_loans: { args: S1, check: (r) => expect(r.map((l: any) => [l.loan_id, l.overdue])).toEqual([[2, true], [1, false]]) },
  get_book_reservations: { args: S1 },
  get_library_fines: { args: S1, check: (r) => expect(r.total_unpaid).toBe(60) },
  list_study_rooms: { args: { date: '2025-11-12' } },
  get_loan_history: { args: S1 },
  get_new_arrivals: {},
  get_overdue_loans: {},
  get_study_room_bookings: {},
  get_purchase_suggestions: {},
  get_library_member_summary: { args: S1 },
  get_library_usage_report: {},
  get_fine_collection_report: {},
  // placements
  list_placement_drives: { args: { status: 'open' } },
  get_drive_details: { args: { drive_id: 'DRV05' } },
  check_placement_eligibility: { args: { ...S1, drive_id: 'DRV06' }, check: (r) => expect(r.eligible).toBe(true) },
  get_placement_registrations: { args: S1 },
  get_placement_offers: { args: S1, check: (r) => expect(r.map((o: any) => o.status)).toEqual(['pending', 'pending']) },
  list_internships: {},
  get_resume: { args: S1 },
  get_interview_schedule: { args: { drive_id: 'DRV11' } },
  get_company_details: { args: { company_id: 'C06' } },
  get_drive_registrants: { args: { drive_id: 'DRV05' } },
  get_mentee_placement_status: { args: F1 },
  get_placement_statistics: {},
  get_placement_dashboard: {},
  get_unplaced_students: { args: { department: 'CSE' } },
  get_internship_applications: {},
  // administration
  get_grievance_status: { args: S1 },
  get_announcements: { args: { audience: 'students' } },
  list_events: {},
  get_event_registrations: { args: { event_id: 'EV01' } },
  get_transport_routes: { check: (r) => expect(r).toHaveLength(6) },
  get_transport_pass_holders: {},
  get_it_ticket_status: { args: S1 },
  get_it_ticket_queue: {},
  get_campus_directory: { args: { query: 'Exam' } },
  list_grievances: { args: { status: 'open' } },
  get_executive_dashboard: { check: (r) => expect(r).toMatchObject({ students: 200, faculty: 40 }) },
  get_enrollment_analytics: {},
  get_faculty_workload_analytics: { args: { department: 'CSE' } },
  get_grievance_analytics: {},
  get_student_outcome_analytics: {},
  list_users: { args: { role: 'warden' } },
  get_user_roles: { args: { user_id: 'E016' }, check: (r) => expect(r.roles.map((x: any) => x.role)).toEqual(['admin']) },
  get_role_permissions: {},
};

function nonEmpty(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (value && typeof value === 'object') return Object.keys(value).length > 0;
  return typeof value === 'string' && value.length > 0;
}

let uni: University;
beforeAll(async () => {
  uni = await new University().start();
});
afterAll(async () => uni?.stop());

describe('read-only tools', () => {
  it('the table covers exactly the read-only tools', () => {
    const reads = uni.tools.filter((t) => t.annotations?.readOnlyHint === true).map((t) => t.name).sort();
    expect(Object.keys(READS).sort()).toEqual(reads);
  });

  it('each returns real, non-empty rows for valid arguments', async () => {
    for (const [name, { args, check }] of Object.entries(READS)) {
      const result = await uni.call(name, args ?? {});
      expect(result.isError, `${name}: ${errorText(result)}`).toBeFalsy();
      const body = payload(result);
      expect(nonEmpty(body), `${name} returned nothing`).toBe(true);
      check?.(body);
    }
  });

  it('report why fixture students are barred from exams', async () => {
    const s3 = await uni.ok('get_exam_eligibility', { student_id: 'S0003' });
    expect(s3.eligible).toBe(false);
    expect(s3.reasons).toEqual(['CE701: attendance 68.3% is below 75%']);
    const s4 = await uni.ok('get_exam_eligibility', { student_id: 'S0004' });
    expect(s4.eligible).toBe(true);
    const dues = await uni.ok('get_fee_dues', { student_id: 'S0004' });
    expect(dues.invoices.map((i: any) => i.category)).toEqual(['hostel']);
    expect(await uni.ok('get_hall_ticket', { student_id: 'S0003' })).toEqual({ student_id: 'S0003', issued: false, withheld_because: ['CE701: attendance 68.3% is below 75%'] });
  });
});

describe('invalid arguments', () => {
  it('a missing required field is an error result naming the field, on every tool', async () => {
    for (const t of uni.tools) {
      const required = (t.inputSchema.required ?? []) as string[];
      if (required.length === 0) continue;
      const result = await uni.call(t.name, {});
      expect(result.isError, t.name).toBe(true);
      expect(errorText(result), t.name).toContain(required[0]);
    }
  });

  it('a wrong type or malformed id names the parameter and the expected form', async () => {
    const wrongType = await uni.call('get_cgpa', { student_id: 5 });
    expect(wrongType.isError).toBe(true);
    expect(errorText(wrongType)).toMatch(/student_id: Invalid input: expected string, received number$/);
    const malformed = await uni.call('get_cgpa', { student_id: 'student-1' });
    expect(errorText(malformed)).toContain('student_id must look like S0001');
    const badDate = await uni.call('get_class_attendance', { course_id: 'CS701', date: '7/11/2025' });
    expect(errorText(badDate)).toContain('date must be a date written YYYY-MM-DD');
    const badEnum = await uni.call('get_mess_menu', { day: 'Funday' });
    expect(badEnum.isError).toBe(true);
    expect(errorText(badEnum)).toContain('day');
  });

  it('an unknown id says which id is unknown', async () => {
    expect(errorText(await uni.call('get_cgpa', { student_id: 'S9999' }))).toBe("Unknown student_id 'S9999': no such student (valid ids are S0001–S0200).");
    expect(errorText(await uni.call('get_course_syllabus', { course_id: 'ZZ999' }))).toContain("Unknown course_id 'ZZ999'");
    expect(errorText(await uni.call('get_book_details', { book_id: 'B999' }))).toContain("Unknown book_id 'B999'");
    expect(errorText(await uni.call('get_drive_details', { drive_id: 'DRV99' }))).toContain("Unknown drive_id 'DRV99'");
    expect(errorText(await uni.call('get_salary_slip', { faculty_id: 'F099' }))).toContain("Unknown faculty_id 'F099'");
  });

  it('a rule violation is an error result that says what is wrong and changes nothing', async () => {
    const over = await uni.call('make_payment', { student_id: 'S0002', invoice_id: 5, amount: 99999, method: 'upi' });
    expect(over.isError).toBe(true);
    expect(errorText(over)).toBe('amount 99999 exceeds the balance of 48500 on invoice 5.');
    const other = await uni.call('make_payment', { student_id: 'S0001', invoice_id: 5, amount: 100, method: 'upi' });
    expect(errorText(other)).toBe('Invoice 5 belongs to another student.');
    expect((await uni.ok('get_fee_dues', { student_id: 'S0002' })).total_balance).toBe(48500);
    expect(errorText(await uni.call('get_library_loans', {}))).toContain('Missing member');
    expect(errorText(await uni.call('get_hostel_room', { student_id: 'S0005' }))).toBe('S0005 is a day scholar with no hostel room.');
    expect(errorText(await uni.call('publish_exam_results', { employee_id: 'E009', course_id: 'ME701' }))).toContain('is not authorised');
  });

  it("an unknown tool is refused with -32602 (the SDK's McpServer) and every server keeps serving", async () => {
    const client = uni.clients.get('academics')!;
    const unknown = await client.callTool({ name: 'get_gpa', arguments: {} }).catch((err: { code: number; message: string }) => err);
    expect(unknown).toMatchObject({ code: -32602, message: 'Tool get_gpa not found' });
    for (const c of uni.clients.values()) expect((await c.listTools()).tools.length).toBeGreaterThan(0);
  });
});
