/**
 * Seeds money and housing: invoices and payments (fixture debts for S0002 and S0004),
 * installment plans, scholarships, refunds, salaries, budgets; hostel blocks, rooms and
 * allocations, leave, mess, visitors, maintenance and curfew records.
 */
import { DEPARTMENTS, FIRST_NAMES, HOSTEL_BLOCKS, LAST_NAMES, MESS_MENU } from '../data.js';
import { CURRENT_TERM, EXAM_FEE, FIXTURE, HOSTEL_RENT, MESS_PLANS, TUITION } from '../fixture.js';
import { addDays } from '../dates.js';
import { facultyId, pad, studentId, type SeedContext } from './context.js';
import { STUDENT_COUNT, studentShape } from './people.js';

const METHODS = ['upi', 'card', 'netbanking'];

export function seedFinance(ctx: SeedContext): void {
  const payment = (invoiceId: number, sid: string, amount: number, date: string) => {
    const id = ctx.insert('payments', { invoice_id: invoiceId, student_id: sid, amount, method: ctx.pick(METHODS), receipt_no: `PENDING-${invoiceId}-${amount}`, paid_at: `${date}T11:20:00` });
    ctx.db.prepare('UPDATE payments SET receipt_no = ? WHERE payment_id = ?').run(`RCPT-2025-${pad(id, 6)}`, id);
    return id;
  };
  const debtors: number[] = [];
  for (let i = 1; i <= STUDENT_COUNT; i++) {
    const s = studentShape(i);
    const plan = Object.keys(MESS_PLANS)[i % 3];
    const lines: Array<[string, string, number, string]> = [
      ['tuition', `Tuition fee, ${CURRENT_TERM}`, TUITION, '2025-08-31'],
      ['exam', `End-semester examination fee, ${CURRENT_TERM}`, EXAM_FEE, '2025-10-31'],
    ];
    if (s.resident) {
      lines.push(['hostel', `Hostel room rent, ${CURRENT_TERM}`, HOSTEL_RENT, '2025-08-31']);
      lines.push(['mess', `Mess charges (${plan} plan), ${CURRENT_TERM}`, MESS_PLANS[plan], '2025-08-31']);
    }
    for (const [category, description, amount, due] of lines) {
      let paid = amount;
      if (s.id === FIXTURE.feeBlockedStudent && category === 'tuition') paid = 50_000;
      else if (s.id === FIXTURE.hostelDuesStudent && category === 'hostel') paid = 0;
      else if (i > 10 && category === 'tuition' && ctx.chance(0.08)) paid = amount - ctx.int(1, 5) * 9_850;
      else if (i > 10 && category === 'exam' && ctx.chance(0.03)) paid = 0;
      const invoiceId = ctx.insert('invoices', { student_id: s.id, term: CURRENT_TERM, category, description, amount, paid, due_date: due, created_by: 'E003', created_at: '2025-07-15' });
      if (paid > 0) payment(invoiceId, s.id, paid, addDays(due, -ctx.int(3, 25)));
      if (paid < amount && category === 'tuition' && i > 10) debtors.push(invoiceId);
    }
  }
  debtors.forEach((invoiceId, n) => {
    if (n % 3 === 2) return;
    const sid = (ctx.db.prepare('SELECT student_id FROM invoices WHERE invoice_id = ?').get(invoiceId) as { student_id: string }).student_id;
    ctx.insert('installment_plans', { invoice_id: invoiceId, student_id: sid, installments: 2 + (n % 3), status: n % 3 === 0 ? 'approved' : 'pending', created_at: '2025-09-10' });
  });

  const scholarships: Array<[string, string, string, number, number, number | null, string | null, number]> = [
    ['SCH01', 'Chancellor\'s Merit Scholarship', 'merit', 50_000, 8.5, null, null, 2],
    ['SCH02', 'Need-based Tuition Grant', 'need', 40_000, 6.0, 400_000, null, 1],
    ['SCH03', 'Computing Excellence Award', 'merit', 25_000, 9.0, null, 'CSE', 3],
    ['SCH04', 'Undergraduate Research Assistantship', 'research', 30_000, 7.5, null, null, 3],
    ['SCH05', 'First-Generation Learner Grant', 'need', 35_000, 5.5, 600_000, null, 1],
    ['SCH06', 'Alumni Endowment Scholarship', 'merit-cum-need', 45_000, 7.0, 800_000, null, 2],
  ];
  for (const [id, name, kind, amount, minCgpa, maxIncome, dept, minYear] of scholarships) {
    ctx.insert('scholarships', { scholarship_id: id, name, kind, amount, min_cgpa: minCgpa, max_family_income: maxIncome, dept_id: dept, min_year: minYear, deadline: '2025-11-30' });
  }
  ctx.insert('scholarship_applications', { scholarship_id: 'SCH01', student_id: 'S0001', statement: 'Consistent O and A+ grades; CGPA above 8.5.', status: 'pending', created_at: '2025-10-20' });
  for (let n = 0; n < 24; n++) {
    const i = ctx.int(11, STUDENT_COUNT);
    ctx.insert('scholarship_applications', { scholarship_id: scholarships[n % 6][0], student_id: studentId(i), statement: 'Application with supporting documents.', status: ctx.pick(['pending', 'approved', 'rejected', 'disbursed']), created_at: '2025-09-' + pad(ctx.int(1, 28), 2) });
  }
  const s6 = ctx.db.prepare("SELECT payment_id FROM payments WHERE student_id = 'S0006' ORDER BY payment_id LIMIT 1").get() as { payment_id: number };
  ctx.insert('refunds', { student_id: 'S0006', payment_id: s6.payment_id, amount: 5_000, reason: 'Scholarship credited after tuition was paid in full', status: 'pending', created_at: '2025-10-30' });
  for (let n = 0; n < 6; n++) {
    const p = ctx.db.prepare('SELECT payment_id, student_id FROM payments WHERE payment_id = ?').get(ctx.int(40, 400)) as { payment_id: number; student_id: string };
    ctx.insert('refunds', { student_id: p.student_id, payment_id: p.payment_id, amount: 1_000 * ctx.int(1, 5), reason: 'Duplicate payment', status: ctx.pick(['approved', 'rejected', 'processed']), decided_by: 'E003', created_at: '2025-09-2' + n });
  }
  const basic: Record<string, number> = { Professor: 150_000, 'Associate Professor': 120_000, 'Assistant Professor': 90_000 };
  const designations = ctx.db.prepare('SELECT faculty_id, designation FROM faculty').all() as Array<{ faculty_id: string; designation: string }>;
  for (const f of designations) {
    for (let m = 4; m <= 10; m++) {
      const b = basic[f.designation];
      const allowances = Math.round(b * 0.3);
      const deductions = Math.round(b * 0.12) + 200;
      ctx.insert('salary_slips', { faculty_id: f.faculty_id, month: `2025-${pad(m, 2)}`, basic: b, allowances, deductions, net: b + allowances - deductions });
    }
  }
  ctx.insert('reimbursements', { faculty_id: 'F001', category: 'conference travel', amount: 18_500, description: 'Travel to IEEE conference, Hyderabad', status: 'approved', created_at: '2025-10-06' });
  for (let n = 0; n < 14; n++) {
    ctx.insert('reimbursements', { faculty_id: facultyId(ctx.int(1, 40)), category: ctx.pick(['conference travel', 'books', 'lab consumables', 'internet']), amount: 500 * ctx.int(2, 60), description: 'Claim with bills attached', status: ctx.pick(['submitted', 'approved', 'paid', 'rejected']), created_at: '2025-10-' + pad(ctx.int(1, 30), 2) });
  }
  for (const d of DEPARTMENTS) {
    const allocated = ctx.int(12, 25) * 1_000_000;
    ctx.insert('budgets', { dept_id: d.id, fiscal_year: '2025-26', allocated, spent: Math.round(allocated * (0.3 + ctx.random() * 0.4)) });
  }
}

export function seedHostel(ctx: SeedContext): void {
  HOSTEL_BLOCKS.forEach(([id, name], b) => {
    ctx.insert('hostel_blocks', { block_id: id, name, warden_id: `E00${5 + b}`, curfew: b % 2 ? '21:30' : '22:00' });
    ctx.insert('hostel_staff', { staff_id: `HS${b * 3 + 1}`, name: `${ctx.pick(FIRST_NAMES)} ${ctx.pick(LAST_NAMES)}`, role: 'caretaker', block_id: id, phone: '98450' + pad(ctx.int(0, 99999), 5) });
    ctx.insert('hostel_staff', { staff_id: `HS${b * 3 + 2}`, name: `${ctx.pick(FIRST_NAMES)} ${ctx.pick(LAST_NAMES)}`, role: 'night security', block_id: id, phone: '98450' + pad(ctx.int(0, 99999), 5) });
    ctx.insert('hostel_staff', { staff_id: `HS${b * 3 + 3}`, name: `${ctx.pick(FIRST_NAMES)} ${ctx.pick(LAST_NAMES)}`, role: 'electrician and plumber', block_id: id, phone: '98450' + pad(ctx.int(0, 99999), 5) });
    for (const floor of [1, 2, 3]) {
      for (let r = 1; r <= (floor === 3 ? 5 : 10); r++) {
        ctx.insert('hostel_rooms', { room_id: `${id}-${floor}${pad(r, 2)}`, block_id: id, floor, capacity: 2, rent: HOSTEL_RENT });
      }
    }
  });
  ctx.insert('hostel_staff', { staff_id: 'HS13', name: 'Mohan Lal', role: 'mess manager', block_id: null, phone: '9845012345' });
  const rooms = ctx.db.prepare('SELECT room_id, block_id FROM hostel_rooms ORDER BY room_id').all() as Array<{ room_id: string; block_id: string }>;
  const residents: string[] = [];
  for (let i = 1; i <= STUDENT_COUNT; i++) if (studentShape(i).resident) residents.push(studentId(i));
  residents.forEach((sid, k) => {
    const block = HOSTEL_BLOCKS[k % 4][0];
    const room = rooms.filter((r) => r.block_id === block)[Math.floor(Math.floor(k / 4) / 2)];
    ctx.insert('hostel_allocations', { student_id: sid, room_id: room.room_id, since: '2025-07-28' });
    ctx.insert('mess_subscriptions', { student_id: sid, plan: Object.keys(MESS_PLANS)[Number(sid.slice(1)) % 3], since: '2025-07-28' });
  });
  for (const [day, meals] of Object.entries(MESS_MENU)) for (const [meal, items] of Object.entries(meals)) ctx.insert('mess_menu', { day, meal, items });

  ctx.insert('hostel_leaves', { student_id: 'S0001', from_date: '2025-11-21', to_date: '2025-11-23', destination: 'Mysuru', reason: 'Cousin\'s wedding', status: 'pending', created_at: '2025-11-08' });
  ctx.insert('hostel_leaves', { student_id: 'S0002', from_date: '2025-11-14', to_date: '2025-11-16', destination: 'Chennai', reason: 'Visiting parents', status: 'pending', created_at: '2025-11-09' });
  ctx.insert('hostel_leaves', { student_id: 'S0004', from_date: '2025-10-17', to_date: '2025-10-19', destination: 'Hubballi', reason: 'Deepavali at home', status: 'approved', decided_by: 'E008', created_at: '2025-10-10' });
  for (let n = 0; n < 26; n++) {
    const sid = ctx.pick(residents.slice(8));
    const from = addDays('2025-09-01', ctx.int(0, 80));
    const status = from > '2025-11-10' ? 'pending' : ctx.pick(['approved', 'approved', 'rejected']);
    ctx.insert('hostel_leaves', { student_id: sid, from_date: from, to_date: addDays(from, ctx.int(1, 4)), destination: ctx.pick(['Bengaluru', 'Hyderabad', 'Pune', 'Kochi', 'Home town']), reason: ctx.pick(['Family function', 'Medical appointment', 'Festival at home', 'Hackathon travel']), status, decided_by: status === 'pending' ? null : 'E004', created_at: addDays(from, -5) });
  }
  const comments = ['Food was cold', 'Good variety', 'Too oily', 'Loved the dessert', 'Rice undercooked', 'Portions too small', 'Tasty and fresh', 'Long queue at the counter'];
  for (let n = 0; n < 240; n++) {
    ctx.insert('mess_feedback', { student_id: ctx.pick(residents), date: addDays('2025-10-01', ctx.int(0, 39)), meal: ctx.pick(['breakfast', 'lunch', 'snacks', 'dinner']), rating: Math.min(5, ctx.int(1, 5) + ctx.int(0, 1)), comment: ctx.pick(comments) });
  }
  for (let n = 0; n < 40; n++) {
    const sid = ctx.pick(residents);
    const date = addDays('2025-10-01', ctx.int(0, 50));
    ctx.insert('visitors', { student_id: sid, visitor_name: `${ctx.pick(FIRST_NAMES)} ${ctx.pick(LAST_NAMES)}`, relation: ctx.pick(['father', 'mother', 'sibling', 'guardian', 'friend']), visit_date: date, phone: '99000' + pad(ctx.int(0, 99999), 5), status: date < '2025-11-10' ? 'visited' : 'expected', created_at: addDays(date, -2) });
  }
  const allocation = ctx.db.prepare('SELECT room_id FROM hostel_allocations WHERE student_id = ?');
  ctx.insert('maintenance_requests', { student_id: 'S0001', room_id: 'ARV-101', category: 'plumbing', description: 'Leaking tap in the bathroom', status: 'open', created_at: '2025-11-06' });
  for (let n = 0; n < 26; n++) {
    const sid = ctx.pick(residents);
    const status = ctx.pick(['open', 'in_progress', 'resolved', 'resolved']);
    const created = addDays('2025-09-15', ctx.int(0, 55));
    ctx.insert('maintenance_requests', { student_id: sid, room_id: (allocation.get(sid) as { room_id: string }).room_id, category: ctx.pick(['electrical', 'plumbing', 'furniture', 'internet', 'cleaning']), description: ctx.pick(['Fan not working', 'Tube light flickering', 'Broken chair', 'Wi-Fi drops at night', 'Blocked drain', 'Cupboard lock jammed']), status, created_at: created, resolved_at: status === 'resolved' ? addDays(created, ctx.int(1, 6)) : null });
  }
  for (let n = 0; n < 8; n++) {
    const sid = ctx.pick(residents.slice(8));
    ctx.insert('room_change_requests', { student_id: sid, current_room: (allocation.get(sid) as { room_id: string }).room_id, preferred_block: ctx.pick(HOSTEL_BLOCKS)[0], reason: ctx.pick(['Closer to my department', 'Roommate conflict', 'Need a quieter floor']), status: ctx.pick(['pending', 'approved', 'rejected']), created_at: addDays('2025-09-01', ctx.int(0, 60)) });
  }
  for (let n = 0; n < 20; n++) {
    ctx.insert('curfew_violations', { student_id: ctx.pick(residents.slice(8)), date: addDays('2025-09-01', ctx.int(0, 68)), minutes_late: ctx.int(10, 120), remarks: ctx.pick(['Returned after curfew without prior permission', 'Late from a hackathon, informed warden next day', 'Signed in late at the gate']) });
  }
}
