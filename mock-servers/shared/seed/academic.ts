/**
 * Seeds the academic record: 60 courses with timetable and syllabus, the calendar,
 * enrolments, past grades, internal marks, class sessions and attendance, and the
 * examinations that follow from them. Fixture students get fixed attendance patterns
 * (see fixture.ts); everyone else draws from the PRNG.
 */
import { DEPARTMENTS, SYLLABUS_UNITS } from '../data.js';
import { CURRENT_TERM, FIXTURE, NEXT_TERM, TEACHING_END, TEACHING_START } from '../fixture.js';
import { gradeFor } from '../rules.js';
import { addDays, weekday } from '../dates.js';
import { facultyId, type SeedContext } from './context.js';
import { FACULTY_PER_DEPT, STUDENT_COUNT, studentShape } from './people.js';

/** Course k of a department: 0–7 core of semesters 1–8, 8–11 electives of semesters 5–8. */
export function courseId(dept: number, k: number): string {
  const sem = k < 8 ? k + 1 : k - 3;
  return `${DEPARTMENTS[dept].prefix}${sem}${k < 8 ? '01' : '51'}`;
}
const coreK = (sem: number) => sem - 1;
const electiveK = (sem: number) => sem + 3;
/** Faculty slot (1–8 within the department) teaching course k; odd-term courses first. */
const TEACHER_SLOT = [4, 7, 3, 8, 2, 1, 1, 2, 6, 3, 5, 4];
const DAY_PATTERNS = [['Mon', 'Wed', 'Fri'], ['Tue', 'Thu', 'Fri'], ['Mon', 'Tue', 'Thu'], ['Wed', 'Thu', 'Fri'], ['Mon', 'Wed', 'Thu']];
const START_TIMES = ['09:00', '10:00', '11:15', '12:15', '14:00', '15:00'];

/**
 * The term of a student's semester. Labels carry the calendar year the term starts in
 * (odd terms in August, even terms in January), so labels sort chronologically.
 */
export function termOfSemester(admissionYear: number, sem: number): string {
  return sem % 2 ? `${admissionYear + (sem - 1) / 2}-ODD` : `${admissionYear + sem / 2}-EVEN`;
}

/** The courses a student of department d takes in semester sem. */
function coursesOf(dept: number, sem: number): string[] {
  const ids = [0, 1, 2].map((o) => courseId((dept + o) % DEPARTMENTS.length, coreK(sem)));
  if (sem >= 5) ids.push(courseId(dept, electiveK(sem)));
  return ids;
}

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

export function seedAcademics(ctx: SeedContext): void {
  const teacher = new Map<string, string>();
  DEPARTMENTS.forEach((d, di) => {
    d.courses.forEach((title, k) => {
      const id = courseId(di, k);
      const sem = k < 8 ? k + 1 : k - 3;
      const fid = facultyId(di * FACULTY_PER_DEPT + TEACHER_SLOT[k]);
      teacher.set(id, fid);
      ctx.insert('courses', {
        course_id: id, title, dept_id: d.id, credits: k < 8 ? 4 : 3, semester: sem, kind: k < 8 ? 'core' : 'elective',
        faculty_id: fid, capacity: k < 8 ? 90 : 40,
        description: `${title}: a ${k < 8 ? 'core' : 'elective'} course of ${d.name}, semester ${sem}.`,
      });
      const days = DAY_PATTERNS[(di + k) % DAY_PATTERNS.length];
      const start = START_TIMES[k % START_TIMES.length];
      const [h, m] = start.split(':').map(Number);
      const end = `${String(h + (m + 55 >= 60 ? 1 : 0)).padStart(2, '0')}:${String((m + 55) % 60).padStart(2, '0')}`;
      for (const day of days) ctx.insert('timetable', { course_id: id, day, start_time: start, end_time: end, room: `${d.building} ${200 + k}` });
      SYLLABUS_UNITS.forEach((unit, u) => {
        ctx.insert('syllabus', { course_id: id, unit: u + 1, title: `${unit} of ${title}`, topics: `${title}: ${unit.toLowerCase()}, worked examples, problem sets, case study ${u + 1}`, hours: 8 + (u % 3) * 2 });
      });
    });
  });

  const calendar: Array<[string, string, string]> = [
    ['2025-08-04', 'Classes begin', 'teaching'], ['2025-08-18', 'Last day to add or drop electives', 'deadline'],
    ['2025-09-22', 'Mid-semester examinations begin', 'exam'], ['2025-10-20', 'Deepavali holiday', 'holiday'],
    ['2025-11-28', 'Last teaching day', 'teaching'], ['2025-11-14', 'Internal marks submission deadline', 'deadline'],
    ['2025-11-30', 'Revaluation applications close', 'deadline'], ['2025-12-01', 'End-semester examinations begin', 'exam'],
    ['2025-12-15', 'Supplementary examinations begin', 'exam'], ['2026-01-05', 'Results announced', 'result'],
    ['2026-01-12', 'Even term classes begin', 'teaching'],
  ];
  for (const [date, event, kind] of calendar) ctx.insert('calendar', { term: CURRENT_TERM, date, event, kind });

  // Class sessions of the current (odd) term.
  const teachingDays: string[] = [];
  const holidays = new Set(calendar.filter((c) => c[2] === 'holiday').map((c) => c[0]));
  for (let d = TEACHING_START; d <= TEACHING_END; d = addDays(d, 1)) if (!holidays.has(d)) teachingDays.push(d);
  const sessions = new Map<string, number[]>();
  const currentCourses: string[] = [];
  DEPARTMENTS.forEach((_, di) => {
    for (const k of [6, 4, 2, 0, 10, 8]) {
      const id = courseId(di, k);
      currentCourses.push(id);
      const days = DAY_PATTERNS[(di + k) % DAY_PATTERNS.length];
      sessions.set(id, teachingDays.filter((d) => days.includes(weekday(d)))
        .map((date) => ctx.insert('class_sessions', { course_id: id, date, marked_by: teacher.get(id)!, marked_at: `${date}T17:00:00` })));
    }
  });

  const ability = new Map<string, number>();
  const enrolled = new Map<string, string[]>();
  const lowAttendance: Array<[string, string]> = [];
  for (let i = 1; i <= STUDENT_COUNT; i++) {
    const s = studentShape(i);
    const a = i === 1 ? 0.86 : i === 3 ? 0.62 : clamp(0.45 + ctx.random() * 0.5, 0, 1);
    ability.set(s.id, a);
    for (let sem = 1; sem < s.semester; sem++) {
      const term = termOfSemester(s.admissionYear, sem);
      for (const cid of coursesOf(s.dept, sem)) {
        const forcedFail = s.id === FIXTURE.attendanceBlockedStudent && cid === FIXTURE.backlogCourse;
        const score = forcedFail ? 31 : clamp(Math.round(a * 100 + (ctx.random() - 0.5) * 24), 0, 100);
        const g = gradeFor(score);
        ctx.insert('grades', { student_id: s.id, course_id: cid, term, grade: g.grade, grade_points: g.points, status: 'published', submitted_by: teacher.get(cid)! });
      }
    }
    const current = coursesOf(s.dept, s.semester);
    enrolled.set(s.id, current);
    const base = i <= 10 ? 0.9 : ctx.chance(0.08) ? 0.62 + ctx.random() * 0.16 : 0.85 + ctx.random() * 0.14;
    for (const cid of current) {
      ctx.insert('enrolments', { student_id: s.id, course_id: cid, term: CURRENT_TERM, status: 'enrolled', enrolled_on: '2025-08-01' });
      ctx.insert('exam_registrations', { student_id: s.id, exam_id: `${cid}-END`, kind: 'regular', fee: 0, status: 'registered', created_at: '2025-10-15' });
      const components: Array<[string, number]> = [['quiz1', 5], ['assignment', 10], ['midterm', 20]];
      for (const [component, max] of components) {
        const marks = Math.round(max * clamp(a + (ctx.random() - 0.4) * 0.3, 0.2, 1) * 2) / 2;
        ctx.insert('internal_marks', { student_id: s.id, course_id: cid, term: CURRENT_TERM, component, marks, max_marks: max, entered_by: teacher.get(cid)!, updated_at: '2025-10-10' });
      }
      const ids = sessions.get(cid)!;
      let present = 0;
      ids.forEach((sid, idx) => {
        const fixedLow = (s.id === FIXTURE.attendanceBlockedStudent && cid === FIXTURE.attendanceBlockedCourse)
          || (s.id === FIXTURE.condonationStudent && cid === FIXTURE.condonationCourse);
        const attended = fixedLow ? ![0, 3, 6, 9].includes(idx % 13) : i <= 10 ? idx % 10 !== 9 : ctx.chance(base);
        if (attended) present++;
        ctx.insert('attendance', { session_id: sid, student_id: s.id, status: attended ? 'present' : 'absent' });
      });
      const pct = (100 * present) / ids.length;
      if (i > 10 && pct >= 65 && pct < 75) lowAttendance.push([s.id, cid]);
    }
    if (s.id === 'S0001' || i % 3 === 0) {
      ctx.insert('internal_marks', { student_id: s.id, course_id: current[0], term: CURRENT_TERM, component: 'quiz2', marks: 4, max_marks: 5, entered_by: teacher.get(current[0])!, updated_at: '2025-10-28' });
    }
  }
  // S0001's quiz2 in CS701 exists (so update_internal_marks has a row to change); EC701's does not.
  // Elective pre-registration for the coming term: S0001 holds CS851; some others hold their own.
  for (let i = 1; i <= STUDENT_COUNT; i++) {
    const s = studentShape(i);
    if (s.semester + 1 < 5 || (i !== 1 && !ctx.chance(0.3))) continue;
    ctx.insert('enrolments', { student_id: s.id, course_id: courseId(s.dept, electiveK(s.semester + 1)), term: NEXT_TERM, status: 'enrolled', enrolled_on: '2025-11-05' });
  }

  // Two corrections instructors made in October, so the audit trail has history.
  for (const [sid, course, date] of [['S0021', 'CS701', '2025-10-14'], ['S0006', 'CS501', '2025-10-09']]) {
    const session = ctx.db.prepare('SELECT session_id FROM class_sessions WHERE course_id = ? AND date <= ? ORDER BY date DESC LIMIT 1').get(course, date) as { session_id: number };
    ctx.db.prepare("UPDATE attendance SET status = 'present' WHERE session_id = ? AND student_id = ?").run(session.session_id, sid);
    ctx.insert('attendance_audit', { session_id: session.session_id, student_id: sid, old_status: 'absent', new_status: 'present', reason: 'On duty: represented the department at a technical symposium', changed_by: teacher.get(course)!, changed_at: `${date}T16:00:00` });
  }
  ctx.insert('condonation_requests', {
    student_id: FIXTURE.condonationStudent, course_id: FIXTURE.condonationCourse, reason: 'Hospitalised with dengue, 12-20 September; discharge summary attached',
    status: 'pending', created_at: '2025-11-03',
  });
  lowAttendance.slice(0, 6).forEach(([sid, cid], n) => {
    ctx.insert('condonation_requests', {
      student_id: sid, course_id: cid, reason: n % 2 ? 'Represented the university at the inter-university athletics meet' : 'Family medical emergency',
      status: n % 3 === 0 ? 'pending' : n % 3 === 1 ? 'approved' : 'rejected', reviewed_by: n % 3 === 0 ? null : teacher.get(cid)!, created_at: '2025-11-04',
    });
  });

  // End-semester examinations of the current term, and invigilation duties.
  const examDays = ['2025-12-01', '2025-12-02', '2025-12-03', '2025-12-04', '2025-12-05', '2025-12-08', '2025-12-09', '2025-12-10', '2025-12-11', '2025-12-12'];
  currentCourses.forEach((cid, n) => {
    const dept = DEPARTMENTS.find((d) => cid.startsWith(d.prefix))!;
    const examId = `${cid}-END`;
    ctx.insert('exams', { exam_id: examId, course_id: cid, term: CURRENT_TERM, kind: 'end_semester', date: examDays[n % examDays.length], session: n % 2 ? 'AN' : 'FN', venue: `${dept.building} Examination Hall ${1 + (n % 3)}` });
    ctx.insert('invigilation_duties', { faculty_id: facultyId(((n * 3) % 40) + 1), exam_id: examId, room: `${dept.building} Examination Hall ${1 + (n % 3)}`, role: 'chief invigilator' });
    ctx.insert('invigilation_duties', { faculty_id: facultyId(((n * 3 + 1) % 40) + 1), exam_id: examId, room: `${dept.building} Examination Hall ${1 + (n % 3)}`, role: 'assistant invigilator' });
  });
  const failed = ctx.db.prepare("SELECT DISTINCT course_id FROM grades WHERE grade = 'F' ORDER BY course_id").all() as Array<{ course_id: string }>;
  failed.forEach(({ course_id }, n) => {
    ctx.insert('exams', { exam_id: `${course_id}-SUP`, course_id, term: CURRENT_TERM, kind: 'supplementary', date: addDays('2025-12-15', n % 5), session: n % 2 ? 'AN' : 'FN', venue: 'Central Examination Hall' });
  });
  const fails = ctx.db.prepare("SELECT student_id, course_id FROM grades WHERE grade = 'F' AND student_id > 'S0010' ORDER BY student_id, course_id LIMIT 12").all() as Array<{ student_id: string; course_id: string }>;
  for (const f of fails) {
    ctx.insert('exam_registrations', { student_id: f.student_id, exam_id: `${f.course_id}-SUP`, kind: 'supplementary', fee: 1200, status: 'registered', created_at: '2025-11-05' });
  }
  ctx.insert('revaluation_requests', { student_id: 'S0001', course_id: 'CS601', term: termOfSemester(2022, 6), reason: 'Expected a higher grade; answer to question 4 may not have been evaluated', fee: 500, status: 'pending', created_at: '2025-11-03' });
  const recent = ctx.db.prepare("SELECT student_id, course_id, term FROM grades WHERE term = '2025-EVEN' AND grade IN ('C', 'P', 'F') AND student_id > 'S0010' ORDER BY student_id LIMIT 10").all() as Array<{ student_id: string; course_id: string; term: string }>;
  recent.forEach((r, n) => ctx.insert('revaluation_requests', { ...r, reason: 'Requesting re-evaluation of the answer script', fee: 500, status: ['pending', 'completed - grade unchanged', 'completed - grade revised'][n % 3], created_at: '2025-11-0' + (1 + (n % 8)) }));
  // ME701's end-semester marks are in, awaiting publication.
  for (const [sid, courses] of enrolled) {
    if (!courses.includes('ME701')) continue;
    const marks = clamp(Math.round(ability.get(sid)! * 100 + (ctx.random() - 0.5) * 20), 0, 100);
    ctx.insert('exam_marks', { student_id: sid, course_id: 'ME701', term: CURRENT_TERM, marks, entered_by: teacher.get('ME701')!, entered_at: '2025-11-07' });
  }
  DEPARTMENTS.forEach((_, di) => {
    for (let k = 0; k < 12; k++) {
      const id = courseId(di, k);
      const sem = k < 8 ? k + 1 : k - 3;
      for (const year of [2023, 2024]) {
        ctx.insert('question_papers', { course_id: id, term: `${sem % 2 ? year : year + 1}-${sem % 2 ? 'ODD' : 'EVEN'}`, kind: 'end_semester', url: `https://library.univ.edu/question-papers/${id}-${year}.pdf` });
      }
    }
  });
}
