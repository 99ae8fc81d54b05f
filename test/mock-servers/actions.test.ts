/**
 * Every action tool, called once in order on one fresh fixture, changes state that a
 * read-only tool then observes (before/after). Also the cross-server path the testbed
 * exists for: a payment through finance flips what examinations says about eligibility.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorText, payload, University } from './university.js';

const S1 = { student_id: 'S0001' };
const F1 = { faculty_id: 'F001' };
const ADMIN = { employee_id: 'E016' };

interface ActionCase {
  action: string;
  args: Record<string, unknown>;
  observe: [tool: string, args: Record<string, unknown>];
  /** Compares the observer's payload before and after the action (before may be an error text). */
  changed: (before: any, after: any, result: any) => void;
}

const byId = <T extends Record<string, unknown>>(rows: T[], key: string, id: unknown) => rows.find((r) => r[key] === id);

/** Runs in order: later rows rely on earlier ones (e.g. update_attendance after mark_attendance). */
const ACTIONS: ActionCase[] = [
  // academics
  { action: 'enroll_in_course', args: { ...S1, course_id: 'EC851' }, observe: ['get_enrolled_courses', { ...S1, term: '2026-EVEN' }],
    changed: (b, a) => { expect(b.courses.map((c: any) => c.course_id)).toEqual(['CS851']); expect(byId(a.courses, 'course_id', 'EC851')?.status).toBe('enrolled'); } },
  { action: 'drop_course', args: { ...S1, course_id: 'CS851' }, observe: ['get_enrolled_courses', { ...S1, term: '2026-EVEN' }],
    changed: (b, a) => { expect(byId(b.courses, 'course_id', 'CS851')?.status).toBe('enrolled'); expect(byId(a.courses, 'course_id', 'CS851')?.status).toBe('dropped'); } },
  { action: 'enter_internal_marks', args: { faculty_id: 'F009', course_id: 'EC701', ...S1, component: 'quiz2', marks: 4.5 }, observe: ['get_internal_assessment_marks', { ...S1, course_id: 'EC701' }],
    changed: (b, a) => { expect(byId(b.marks, 'component', 'quiz2')).toBeUndefined(); expect(byId(a.marks, 'component', 'quiz2')?.marks).toBe(4.5); } },
  { action: 'update_internal_marks', args: { ...F1, course_id: 'CS701', ...S1, component: 'quiz2', marks: 5, reason: 'Re-totalled after the student pointed out an unmarked answer' }, observe: ['get_internal_assessment_marks', { ...S1, course_id: 'CS701' }],
    changed: (b, a) => { expect(byId(b.marks, 'component', 'quiz2')?.marks).toBe(4); expect(byId(a.marks, 'component', 'quiz2')?.marks).toBe(5); } },
  { action: 'submit_final_grades', args: { ...F1, course_id: 'CS701', grades: [{ ...S1, grade: 'A+' }] }, observe: ['get_course_grade_distribution', { course_id: 'CS701', term: '2025-ODD' }],
    changed: (b, a) => { expect(b.students).toBe(0); expect(a.students).toBe(1); expect(byId(a.distribution, 'grade', 'A+')).toMatchObject({ published: 0, submitted: 1 }); } },
  // attendance
  { action: 'apply_for_attendance_condonation', args: { student_id: 'S0003', course_id: 'CE701', reason: 'Hospitalised with typhoid for two weeks in September' }, observe: ['get_condonation_status', { student_id: 'S0003' }],
    changed: (b, a) => { expect(b).toEqual([]); expect(a[0]).toMatchObject({ course_id: 'CE701', status: 'pending' }); } },
  { action: 'mark_attendance', args: { ...F1, course_id: 'CS701', date: '2025-11-10', absent_student_ids: ['S0001'] }, observe: ['get_course_attendance', { ...S1, course_id: 'CS701' }],
    changed: (b, a) => { expect(a.classes_held).toBe(b.classes_held + 1); expect(a.classes_attended).toBe(b.classes_attended); expect(a.sessions.at(-1)).toEqual({ date: '2025-11-10', status: 'absent' }); } },
  { action: 'update_attendance', args: { ...F1, ...S1, course_id: 'CS701', date: '2025-11-10', status: 'present', reason: 'Arrived ten minutes late, marked absent by mistake' }, observe: ['get_course_attendance', { ...S1, course_id: 'CS701' }],
    changed: (b, a) => { expect(a.classes_attended).toBe(b.classes_attended + 1); expect(a.sessions.at(-1).status).toBe('present'); } },
  { action: 'review_condonation_request', args: { faculty_id: 'F018', request_id: 1, decision: 'approve', remarks: 'Medical certificate verified' }, observe: ['get_condonation_status', { student_id: 'S0008' }],
    changed: (b, a) => { expect(b[0].status).toBe('pending'); expect(a[0]).toMatchObject({ status: 'approved', reviewed_by: 'F018' }); } },
  // examinations
  { action: 'register_for_supplementary_exam', args: { student_id: 'S0003', course_id: 'ME301' }, observe: ['get_exam_registrations', { student_id: 'S0003' }],
    changed: (b, a) => { expect(a.length).toBe(b.length + 1); expect(byId(a, 'exam_id', 'ME301-SUP')).toMatchObject({ kind: 'supplementary', fee: 1200 }); } },
  { action: 'apply_for_revaluation', args: { ...S1, course_id: 'EC601', reason: 'Expected a higher grade in part B' }, observe: ['get_revaluation_status', S1],
    changed: (b, a) => { expect(a.length).toBe(b.length + 1); expect(a.at(-1)).toMatchObject({ course_id: 'EC601', status: 'pending', term: '2025-EVEN' }); } },
  { action: 'cancel_revaluation_request', args: { ...S1, request_id: 1 }, observe: ['get_revaluation_status', S1],
    changed: (b, a) => { expect(b[0].status).toBe('pending'); expect(a[0].status).toBe('cancelled'); } },
  { action: 'submit_exam_marks', args: { ...F1, course_id: 'CS701', marks: [{ ...S1, marks: 81 }] }, observe: ['get_exam_marks_entry_status', { course_id: 'CS701' }],
    changed: (b, a) => { expect(b.end_semester_entered).toBe(0); expect(a.end_semester_entered).toBe(1); expect(a.missing_end_semester).not.toContain('S0001'); } },
  { action: 'issue_hall_ticket', args: { ...ADMIN, student_id: 'S0003', reason: 'Condonation granted by the Dean on medical grounds' }, observe: ['get_hall_ticket', { student_id: 'S0003' }],
    changed: (b, a) => { expect(b.issued).toBe(false); expect(a).toMatchObject({ issued: true, by_override: true, ticket_number: 'HT-2025-ODD-S0003' }); } },
  { action: 'reschedule_exam', args: { ...ADMIN, exam_id: 'CS701-END', date: '2025-12-16', session: 'AN', reason: 'Clash with the university convocation' }, observe: ['get_exam_timetable', { department: 'CSE' }],
    changed: (b, a) => { expect(byId(b, 'exam_id', 'CS701-END')).toMatchObject({ date: '2025-12-01', session: 'FN' }); expect(byId(a, 'exam_id', 'CS701-END')).toMatchObject({ date: '2025-12-16', session: 'AN' }); } },
  { action: 'publish_exam_results', args: { ...ADMIN, course_id: 'ME701' }, observe: ['get_exam_results', { ...S1, term: '2025-ODD' }],
    changed: (b, a) => { expect(b).toContain('No published results'); expect(a.courses.map((c: any) => c.course_id)).toEqual(['ME701']); } },
  // finance
  { action: 'make_payment', args: { student_id: 'S0004', invoice_id: 15, amount: 20000, method: 'card' }, observe: ['get_fee_dues', { student_id: 'S0004' }],
    changed: (b, a, r) => { expect(b.total_balance).toBe(62000); expect(a.total_balance).toBe(42000); expect(r.receipt_no).toMatch(/^RCPT-2025-\d{6}$/); } },
  { action: 'request_installment_plan', args: { student_id: 'S0004', invoice_id: 15, installments: 3 }, observe: ['get_fee_dues', { student_id: 'S0004' }],
    changed: (b, a) => { expect(byId(b.invoices, 'invoice_id', 15)?.installment_plan).toBeNull(); expect(byId(a.invoices, 'invoice_id', 15)?.installment_plan).toMatchObject({ installments: 3, status: 'pending' }); } },
  { action: 'apply_for_scholarship', args: { ...S1, scholarship_id: 'SCH02', statement: 'Family income below four lakh; CGPA 8.99.' }, observe: ['get_scholarship_status', S1],
    changed: (b, a) => { expect(a.length).toBe(b.length + 1); expect(a.at(-1)).toMatchObject({ scholarship_id: 'SCH02', status: 'pending' }); } },
  { action: 'withdraw_scholarship_application', args: { ...S1, application_id: 1 }, observe: ['get_scholarship_status', S1],
    changed: (b, a) => { expect(byId(b, 'application_id', 1)?.status).toBe('pending'); expect(byId(a, 'application_id', 1)?.status).toBe('withdrawn'); } },
  { action: 'request_refund', args: { ...S1, payment_id: 1, amount: 1000, reason: 'Paid the library deposit twice' }, observe: ['get_refund_status', S1],
    changed: (b, a) => { expect(b).toEqual([]); expect(a[0]).toMatchObject({ payment_id: 1, amount: 1000, status: 'pending' }); } },
  { action: 'submit_reimbursement_claim', args: { ...F1, category: 'books', amount: 2500, description: 'Reference texts for Distributed Systems' }, observe: ['get_reimbursement_status', F1],
    changed: (b, a) => { expect(a.length).toBe(b.length + 1); expect(a.at(-1)).toMatchObject({ category: 'books', status: 'submitted' }); } },
  { action: 'create_fee_invoice', args: { ...ADMIN, ...S1, category: 'other', amount: 750, due_date: '2025-12-15', description: 'ID card replacement' }, observe: ['get_fee_dues', S1],
    changed: (b, a) => { expect(a.total_balance).toBe(b.total_balance + 750); expect(a.invoices.at(-1)).toMatchObject({ category: 'other', balance: 750, description: 'ID card replacement' }); } },
  { action: 'approve_refund', args: { ...ADMIN, refund_id: 1, decision: 'approve' }, observe: ['get_refund_status', { student_id: 'S0006' }],
    changed: (b, a) => { expect(byId(b, 'refund_id', 1)?.status).toBe('pending'); expect(byId(a, 'refund_id', 1)).toMatchObject({ status: 'approved', decided_by: 'E016' }); } },
  // hostel
  { action: 'request_room_change', args: { ...S1, preferred_block: 'NLG', reason: 'Closer to the library for project work' }, observe: ['get_room_change_requests', { status: 'pending' }],
    changed: (b, a) => { expect(a.length).toBe(b.length + 1); expect(a.at(-1)).toMatchObject({ student_id: 'S0001', current_room: 'ARV-101' }); } },
  { action: 'apply_for_hostel_leave', args: { ...S1, from_date: '2025-11-28', to_date: '2025-11-30', destination: 'Pune', reason: 'Inter-college hackathon' }, observe: ['get_hostel_leave_status', S1],
    changed: (b, a) => { expect(a.length).toBe(b.length + 1); expect(a.at(-1)).toMatchObject({ destination: 'Pune', status: 'pending' }); } },
  { action: 'cancel_hostel_leave', args: { ...S1, leave_id: 1 }, observe: ['get_hostel_leave_status', S1],
    changed: (b, a) => { expect(byId(b, 'leave_id', 1)?.status).toBe('pending'); expect(byId(a, 'leave_id', 1)?.status).toBe('cancelled'); } },
  { action: 'change_mess_plan', args: { ...S1, plan: 'veg' }, observe: ['get_mess_subscriptions_report', {}],
    changed: (b, a) => { expect(byId(a, 'plan', 'veg')!.residents).toBe(byId(b, 'plan', 'veg')!.residents as number + 1); expect(byId(a, 'plan', 'non-veg')!.residents).toBe(byId(b, 'plan', 'non-veg')!.residents as number - 1); } },
  { action: 'register_visitor', args: { ...S1, visitor_name: 'Ravi Singh', relation: 'father', visit_date: '2025-11-15', phone: '9876543210' }, observe: ['get_visitor_log', { date: '2025-11-15' }],
    changed: (b, a) => { expect(a.length).toBe(b.length + 1); expect(byId(a, 'visitor_name', 'Ravi Singh')).toMatchObject({ student_id: 'S0001', status: 'expected' }); } },
  { action: 'raise_maintenance_request', args: { ...S1, category: 'electrical', description: 'Fan regulator is broken' }, observe: ['get_maintenance_request_status', S1],
    changed: (b, a) => { expect(a.length).toBe(b.length + 1); expect(a.at(-1)).toMatchObject({ category: 'electrical', status: 'open', room_id: 'ARV-101' }); } },
  { action: 'approve_hostel_leave', args: { ...ADMIN, leave_id: 2, decision: 'approve', remarks: 'Parents confirmed by phone' }, observe: ['get_hostel_leave_status', { student_id: 'S0002' }],
    changed: (b, a) => { expect(byId(b, 'leave_id', 2)?.status).toBe('pending'); expect(byId(a, 'leave_id', 2)).toMatchObject({ status: 'approved', decided_by: 'E016' }); } },
  // library
  { action: 'renew_book_loan', args: { ...S1, loan_id: 1 }, observe: ['get_library_loans', S1],
    changed: (b, a) => { expect(byId(b, 'loan_id', 1)?.due_on).toBe('2025-11-17'); expect(byId(a, 'loan_id', 1)).toMatchObject({ due_on: '2025-12-01', renewals_left: 1 }); } },
  { action: 'reserve_book', args: { ...S1, book_id: 'B005' }, observe: ['get_book_reservations', S1],
    changed: (b, a) => { expect(a.length).toBe(b.length + 1); expect(a.at(-1)).toMatchObject({ book_id: 'B005', status: 'active' }); } },
  { action: 'cancel_book_reservation', args: { ...S1, reservation_id: 1 }, observe: ['get_book_reservations', S1],
    changed: (b, a) => { expect(byId(b, 'reservation_id', 1)?.status).toBe('active'); expect(byId(a, 'reservation_id', 1)?.status).toBe('cancelled'); } },
  { action: 'pay_library_fine', args: { ...S1, fine_id: 1, method: 'upi' }, observe: ['get_library_fines', S1],
    changed: (b, a) => { expect(b.total_unpaid).toBe(60); expect(a.total_unpaid).toBe(0); } },
  { action: 'book_study_room', args: { ...S1, room_id: 'SR2', date: '2025-11-12', slot: '14:00-16:00', purpose: 'Project review' }, observe: ['list_study_rooms', { date: '2025-11-12' }],
    changed: (b, a) => { expect(byId(b, 'room_id', 'SR2')!.free_slots).toContain('14:00-16:00'); expect(byId(a, 'room_id', 'SR2')!.free_slots).not.toContain('14:00-16:00'); } },
  { action: 'suggest_book_purchase', args: { ...F1, title: 'Database Internals', author: 'Alex Petrov', reason: 'Reference for Distributed Systems' }, observe: ['get_purchase_suggestions', {}],
    changed: (b, a) => { expect(a.length).toBe(b.length + 1); expect(a.at(-1)).toMatchObject({ member_id: 'F001', title: 'Database Internals' }); } },
  { action: 'issue_book', args: { ...ADMIN, book_id: 'B030', student_id: 'S0002' }, observe: ['get_library_loans', { student_id: 'S0002' }],
    changed: (b, a) => { expect(a.length).toBe(b.length + 1); expect(byId(a, 'book_id', 'B030')).toMatchObject({ issued_on: '2025-11-10', due_on: '2025-12-01' }); } },
  { action: 'return_book', args: { ...ADMIN, loan_id: 2 }, observe: ['get_library_fines', S1],
    changed: (b, a, r) => { expect(r).toMatchObject({ fine: 35 }); expect(a.fines.length).toBe(b.fines.length + 1); expect(a.accruing_on_overdue_loans).toEqual([]); } },
  // placements
  { action: 'register_for_placement_drive', args: { ...S1, drive_id: 'DRV06' }, observe: ['get_placement_registrations', S1],
    changed: (b, a) => { expect(byId(b, 'drive_id', 'DRV06')).toBeUndefined(); expect(byId(a, 'drive_id', 'DRV06')?.status).toBe('registered'); } },
  { action: 'withdraw_from_placement_drive', args: { ...S1, drive_id: 'DRV05' }, observe: ['get_placement_registrations', S1],
    changed: (b, a) => { expect(byId(b, 'drive_id', 'DRV05')?.status).toBe('registered'); expect(byId(a, 'drive_id', 'DRV05')?.status).toBe('withdrawn'); } },
  { action: 'upload_resume', args: { ...S1, headline: 'Final-year CSE, distributed systems', skills: ['Go', 'Kubernetes', 'SQL'], summary: 'Built a Raft-based key-value store as the final-year project.' }, observe: ['get_resume', S1],
    changed: (b, a) => { expect(a.version).toBe(b.version + 1); expect(a.skills).toBe('Go, Kubernetes, SQL'); } },
  { action: 'accept_offer', args: { ...S1, offer_id: 1 }, observe: ['get_placement_offers', S1],
    changed: (b, a) => { expect(byId(b, 'offer_id', 1)?.status).toBe('pending'); expect(byId(a, 'offer_id', 1)?.status).toBe('accepted'); } },
  { action: 'decline_offer', args: { ...S1, offer_id: 2 }, observe: ['get_placement_offers', S1],
    changed: (b, a) => { expect(byId(b, 'offer_id', 2)?.status).toBe('pending'); expect(byId(a, 'offer_id', 2)?.status).toBe('declined'); } },
  { action: 'apply_for_internship', args: { ...S1, internship_id: 'INT02', statement: 'Keen on cloud operations; AWS certified.' }, observe: ['get_internship_applications', S1],
    changed: (b, a) => { expect(b).toEqual([]); expect(a[0]).toMatchObject({ internship_id: 'INT02', status: 'applied' }); } },
  { action: 'record_placement_offer', args: { ...ADMIN, ...S1, drive_id: 'DRV06' }, observe: ['get_placement_offers', S1],
    changed: (b, a) => { expect(a.length).toBe(b.length + 1); expect(a.at(-1)).toMatchObject({ drive_id: 'DRV06', ctc_lpa: 14, status: 'pending' }); } },
  // administration
  { action: 'submit_grievance', args: { ...S1, category: 'academic', subject: 'Internal marks not visible', description: 'Quiz 2 marks for EC701 are not shown on the portal.' }, observe: ['get_grievance_status', S1],
    changed: (b, a) => { expect(a.length).toBe(b.length + 1); expect(a.at(-1)).toMatchObject({ category: 'academic', status: 'open' }); } },
  { action: 'post_announcement', args: { ...F1, title: 'CS701 extra class', body: 'Extra class on Saturday 15 November, 10:00, Turing Block 206.', audience: 'students' }, observe: ['get_announcements', { limit: 50 }],
    changed: (b, a) => { expect(a.length).toBe(b.length + 1); expect(a[0]).toMatchObject({ title: 'CS701 extra class', posted_by: 'F001' }); } },
  { action: 'register_for_event', args: { ...S1, event_id: 'EV03' }, observe: ['get_event_registrations', { event_id: 'EV03' }],
    changed: (b, a) => { expect(a.registered).toBe(b.registered + 1); expect(a.members.map((m: any) => m.member_id)).toContain('S0001'); } },
  { action: 'apply_for_transport_pass', args: { student_id: 'S0005', route_id: 'R2' }, observe: ['get_transport_pass_holders', { route_id: 'R2' }],
    changed: (b, a) => { expect(a.length).toBe(b.length + 1); expect(a.map((p: any) => p.member_id)).toContain('S0005'); } },
  { action: 'raise_it_ticket', args: { ...S1, category: 'wifi', description: 'Wi-Fi drops every few minutes in Aravali' }, observe: ['get_it_ticket_status', S1],
    changed: (b, a) => { expect(a.length).toBe(b.length + 1); expect(a.at(-1)).toMatchObject({ category: 'wifi', status: 'open' }); } },
  { action: 'resolve_grievance', args: { ...ADMIN, grievance_id: 1, resolution: 'Access point on the first floor replaced.' }, observe: ['get_grievance_status', { ...S1, grievance_id: 1 }],
    changed: (b, a) => { expect(b[0].status).toBe('open'); expect(a[0]).toMatchObject({ status: 'resolved', resolution: 'Access point on the first floor replaced.' }); } },
  { action: 'assign_role', args: { ...ADMIN, user_id: 'E020', role: 'librarian' }, observe: ['get_user_roles', { user_id: 'E020' }],
    changed: (b, a) => { expect(b.roles.map((r: any) => r.role)).toEqual(['finance_officer']); expect(a.roles.map((r: any) => r.role)).toEqual(['finance_officer', 'librarian']); } },
  { action: 'create_user_account', args: { ...ADMIN, user_id: 'E021', name: 'Kiran Shetty', email: 'e021@univ.edu', role: 'librarian' }, observe: ['list_users', { kind: 'staff' }],
    changed: (b, a) => { expect(a.length).toBe(b.length + 1); expect(byId(a, 'user_id', 'E021')).toMatchObject({ status: 'active', roles: 'librarian' }); } },
  { action: 'deactivate_user_account', args: { ...ADMIN, user_id: 'S0200', reason: 'Left the programme' }, observe: ['get_user_roles', { user_id: 'S0200' }],
    changed: (b, a) => { expect(b.status).toBe('active'); expect(a.status).toBe('deactivated'); } },
];

let uni: University;
beforeAll(async () => {
  uni = await new University().start();
});
afterAll(async () => uni?.stop());

async function observe(tool: string, args: Record<string, unknown>): Promise<unknown> {
  const result = await uni.call(tool, args);
  return result.isError ? errorText(result) : payload(result);
}

describe('action tools', () => {
  it('cross-server: paying the tuition balance through finance makes examinations report S0002 eligible', async () => {
    const before = await uni.ok('get_exam_eligibility', { student_id: 'S0002' });
    expect(before).toMatchObject({ eligible: false, fees_outstanding: 48500, reasons: ['fee dues of 48500 outstanding on invoice(s) 5'] });
    expect((await uni.ok('get_hall_ticket', { student_id: 'S0002' })).issued).toBe(false);
    const paid = await uni.ok('make_payment', { student_id: 'S0002', invoice_id: 5, amount: 48500, method: 'netbanking' });
    expect(paid).toMatchObject({ remaining_balance: 0, exam_fee_block_cleared: true });
    expect(await uni.ok('get_exam_eligibility', { student_id: 'S0002' })).toMatchObject({ eligible: true, fees_outstanding: 0, reasons: [] });
    expect((await uni.ok('get_hall_ticket', { student_id: 'S0002' })).issued).toBe(true);
  });

  it('S0008 is barred from the ME501 exam while the condonation request is pending', async () => {
    const e = await uni.ok('get_exam_eligibility', { student_id: 'S0008' });
    expect(e.eligible).toBe(false);
    expect(e.courses.find((c: any) => c.course_id === 'ME501')).toMatchObject({ percentage: 69, condonation: 'pending', eligible: false });
  });

  it('the table covers exactly the action tools', () => {
    const actions = uni.tools.filter((t) => t.annotations?.readOnlyHint === false).map((t) => t.name).sort();
    expect(ACTIONS.map((a) => a.action).sort()).toEqual(actions);
    for (const a of ACTIONS) expect(uni.tools.find((t) => t.name === a.observe[0])?.annotations?.readOnlyHint, a.observe[0]).toBe(true);
  });

  it('each changes fixture state that a read-only tool observes', async () => {
    for (const c of ACTIONS) {
      const before = await observe(...c.observe);
      const result = await uni.call(c.action, c.args);
      expect(result.isError, `${c.action}: ${errorText(result)}`).toBeFalsy();
      const after = await observe(...c.observe);
      try {
        c.changed(before, after, payload(result));
      } catch (err) {
        throw new Error(`${c.action} observed through ${c.observe[0]}: ${(err as Error).message}`);
      }
    }
  });

  it('cross-server: after the instructor approves the condonation in attendance, examinations lets S0008 sit ME501', async () => {
    const e = await uni.ok('get_exam_eligibility', { student_id: 'S0008' });
    expect(e.courses.find((c: any) => c.course_id === 'ME501')).toMatchObject({ condonation: 'approved', eligible: true });
  });

  it('an action repeated where the rule forbids it is refused and changes nothing', async () => {
    const again = await uni.call('cancel_hostel_leave', { ...S1, leave_id: 1 });
    expect(errorText(again)).toBe('Leave 1 is cancelled and cannot be cancelled.');
    const register = await uni.call('register_for_placement_drive', { ...S1, drive_id: 'DRV09' });
    expect(errorText(register)).toContain('one-offer policy: offer 1 already accepted');
    const deactivated = await uni.call('assign_role', { ...ADMIN, user_id: 'S0200', role: 'student' });
    expect(errorText(deactivated)).toBe('S0200 is deactivated; reactivate the account first.');
  });
});
