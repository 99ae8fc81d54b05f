/**
 * The fixture's clock and the facts tests and demos may rely on. The platform's "today"
 * is fixed so that due dates, overdue loans and eligibility never drift with the wall
 * clock; every seeded row is derived from these constants and a seeded PRNG.
 */

/** The platform date every rule uses (a Monday in the odd term). */
export const TODAY = '2025-11-10';
export const CURRENT_TERM = '2025-ODD';
/** Elective registration for the coming term is open until REGISTRATION_CLOSES. */
export const NEXT_TERM = '2026-EVEN';
export const REGISTRATION_CLOSES = '2025-11-28';
export const MAX_ELECTIVES_PER_TERM = 2;
/** Attendance is recorded for classes from TEACHING_START to TEACHING_END (the seed). */
export const TEACHING_START = '2025-08-04';
export const TEACHING_END = '2025-11-07';
/** Classes continue until this date; end-semester examinations start on 2025-12-01. */
export const LAST_TEACHING_DAY = '2025-11-28';
/** Below this attendance percentage in a course a student is barred from its exam. */
export const ATTENDANCE_MIN = 75;
/** Between this and ATTENDANCE_MIN an approved condonation restores eligibility. */
export const CONDONATION_MIN = 65;
/** Revaluation of the latest published term's results closes after this date. */
export const REVALUATION_DEADLINE = '2025-11-30';
export const REVALUATION_FEE = 500;
export const SUPPLEMENTARY_FEE = 1200;
export const LIBRARY_FINE_PER_DAY = 5;
/** Bookable two-hour slots of library study rooms. */
export const STUDY_SLOTS: [string, ...string[]] = ['09:00-11:00', '11:00-13:00', '14:00-16:00', '16:00-18:00'];
export const LATE_FEE_PER_DAY = 100;
export const LATE_FEE_CAP = 5000;
/** Fees per term (INR). */
export const TUITION = 98_500;
export const EXAM_FEE = 2_400;
export const HOSTEL_RENT = 62_000;
export const MESS_PLANS: Record<string, number> = { veg: 28_000, 'non-veg': 32_000, special: 36_000 };

/** Staff accounts: id, name, title, roles. `admin` may do every staff action. */
export const EMPLOYEES: Array<[id: string, name: string, title: string, roles: string[]]> = [
  ['E001', 'Dr. Ramesh Kulkarni', 'Registrar', ['registrar']],
  ['E002', 'Dr. Sunita Rao', 'Controller of Examinations', ['exam_controller']],
  ['E003', 'Mr. Vikram Shah', 'Finance Officer', ['finance_officer']],
  ['E004', 'Dr. Anil Menon', 'Chief Warden', ['warden']],
  ['E005', 'Mr. Joseph Thomas', 'Warden, Aravali', ['warden']],
  ['E006', 'Ms. Rekha Pillai', 'Warden, Nilgiri', ['warden']],
  ['E007', 'Mr. Harish Gowda', 'Warden, Shivalik', ['warden']],
  ['E008', 'Ms. Farida Begum', 'Warden, Vindhya', ['warden']],
  ['E009', 'Dr. Meenakshi Iyer', 'Chief Librarian', ['librarian']],
  ['E010', 'Mr. Arvind Bhat', 'Training and Placement Officer', ['placement_officer']],
  ['E011', 'Mr. Sameer Qureshi', 'IT Services Manager', ['it_admin']],
  ['E012', 'Mr. Prakash Yadav', 'Transport Manager', ['transport_manager']],
  ['E013', 'Prof. Kavita Deshmukh', 'Vice-Chancellor', ['executive']],
  ['E014', 'Prof. Rajiv Narayanan', 'Dean of Academics', ['executive']],
  ['E015', 'Prof. Leela George', 'Dean of Student Affairs', ['executive', 'grievance_officer']],
  ['E016', 'Ms. Nisha Agarwal', 'Platform Administrator', ['admin']],
  ['E017', 'Mr. Deepak Sinha', 'Grievance Cell Officer', ['grievance_officer']],
  ['E018', 'Ms. Anjali Kapoor', 'Public Relations Officer', ['communications']],
  ['E019', 'Mr. Suresh Babu', 'Academic Section Officer', ['registrar']],
  ['E020', 'Ms. Pooja Hegde', 'Accounts Assistant', ['finance_officer']],
];

/**
 * Rows a test can count on. Ids of seeded requests are stable because fixture rows are
 * inserted before the generated ones.
 */
export const FIXTURE = {
  /** CSE, year 4 (semester 7), hostel resident in ARV-101, no dues, eligible for every exam. */
  eligibleStudent: 'S0001',
  /** ECE, year 4: tuition invoice 5 has 48,500 outstanding, so barred from exams until paid. */
  feeBlockedStudent: 'S0002',
  feeBlockedInvoice: 5,
  feeBlockedBalance: 48500,
  /** MECH, year 4: 28 of 41 classes (68.3 %) in CE701, so barred from that exam; one F in ME301. */
  attendanceBlockedStudent: 'S0003',
  attendanceBlockedCourse: 'CE701',
  backlogCourse: 'ME301',
  /** CIVIL, year 4: hostel invoice unpaid, which does not bar exams. */
  hostelDuesStudent: 'S0004',
  /** EEE, year 4, day scholar (not a hostel resident). */
  dayScholar: 'S0005',
  /** MECH, year 3: 29 of 42 classes (69.0 %) in ME501, pending condonation request 1. */
  condonationStudent: 'S0008',
  condonationCourse: 'ME501',
  /** Teaches CS701 (S0001's core course) this term; advisor of S0001. */
  faculty: 'F001',
  facultyCourse: 'CS701',
  admin: 'E016',
  executive: 'E013',
} as const;
