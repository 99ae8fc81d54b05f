/**
 * Development queries for the dev catalog, written for this project: on-topic queries
 * (literal, paraphrased with little word overlap, compound) and off-topic ones (nothing
 * in the catalog answers them). Used to calibrate the low-confidence threshold and to
 * check fusion choices; never the public data sets' queries.
 */
import type { SuiteCase } from '../suite.js';

type Row = [query: string, expected: string[]];

const LITERAL: Row[] = [
  ['show my grades for last term', ['get_grades']],
  ['what is my GPA', ['get_gpa']],
  ['register for course CS201 section B', ['register_for_course']],
  ['drop the course MATH110', ['drop_course']],
  ['my attendance summary please', ['get_attendance_summary']],
  ['apply for leave from 3 to 5 March, family wedding', ['apply_for_leave']],
  ['pay my outstanding fees by card', ['make_payment']],
  ['search the library catalog for books on graph theory', ['search_library_catalog']],
  ['renew the book I borrowed', ['renew_book']],
  ['report a maintenance issue: the fan in my hostel room is broken', ['report_maintenance_issue']],
  ['download my hall ticket', ['download_hall_ticket']],
  ['what are the bus routes to the north gate', ['get_bus_routes']],
  ['request a transcript by email', ['request_transcript']],
  ['status of my scholarship application', ['get_scholarship_status']],
  ['exam schedule for the finals', ['get_exam_schedule']],
];

const PARAPHRASE: Row[] = [
  ['how much money do I still owe the university', ['get_fee_dues']],
  ['which classes am I taking this semester', ['list_enrolled_courses']],
  ['when and where are my lectures on Tuesday', ['get_class_timetable']],
  ['am I allowed to write the end-semester papers', ['get_exam_eligibility']],
  ['I want to complain about a professor who humiliated me', ['submit_grievance']],
  ['what is for dinner tonight in the canteen', ['get_mess_menu']],
  ['I lost my wallet on the shuttle', ['report_lost_item']],
  ['I need to talk to someone, I feel overwhelmed', ['book_counselling_session']],
  ['my marks in the algorithms paper look wrong, can it be checked again', ['apply_for_revaluation']],
  ['which books do I have at home that I must give back', ['get_library_loans']],
  ['do I owe anything for returning books late', ['get_library_fines']],
  ['I want a quiet place to study with my group tomorrow at 4', ['reserve_study_room']],
  ['who is my advisor', ['get_my_profile']],
  ['I cannot stand my roommate, can I move', ['request_room_change']],
  ['is there funding I can get for tuition', ['apply_for_scholarship']],
  ['where can I leave my car on campus', ['get_parking_permit']],
  ['did I show up to enough chemistry classes', ['get_attendance_summary']],
  ['what topics does the operating systems course cover', ['get_course_details']],
  ['what did I pay last month', ['get_payment_history']],
  ['any electives about machine learning offered', ['search_course_catalog']],
];

const COMPOUND: Row[] = [
  ['check my fee dues and then pay them', ['get_fee_dues', 'make_payment']],
  ['show my exam schedule and also download the hall ticket', ['get_exam_schedule', 'download_hall_ticket']],
  ['find a book on databases, then borrow it', ['search_library_catalog', 'borrow_book']],
  ['show my attendance as well as my grades', ['get_attendance_summary', 'get_grades']],
  ['what is my room number, additionally report that the sink leaks', ['get_room_allocation', 'report_maintenance_issue']],
  ['apply for a bus pass along with a parking permit', ['apply_for_bus_pass', 'get_parking_permit']],
  ['list my courses plus my timetable', ['list_enrolled_courses', 'get_class_timetable']],
  ['file a complaint about the hostel and after that check its status', ['submit_grievance', 'get_grievance_status']],
];

const OFF_TOPIC: string[] = [
  'what is the capital of Australia', 'write a haiku about autumn leaves', 'convert 30 degrees celsius to fahrenheit',
  'who won the football world cup in 2010', 'recommend a good pizza topping', 'how do I fix a flat bicycle tyre',
  'translate good morning into Japanese', 'what is the boiling point of ethanol', 'tell me a joke about cats',
  'explain quantum entanglement simply', 'best hiking trails in Patagonia', 'how tall is Mount Everest',
  'play some relaxing jazz music', 'what time is sunset in Lisbon today', 'how do I bake sourdough bread',
  'stock price of a chip maker today', 'how many moons does Jupiter have', 'set an alarm for 6 am',
  'what is the plot of Hamlet', 'how do I change the oil in my car', 'give me a workout plan for abs',
  'what is a good name for a goldfish', 'define the word serendipity', 'who painted the Mona Lisa',
  'how long to boil an egg', 'weather forecast for the weekend', 'book a flight to Madrid',
  'how do vaccines work', 'latest smartphone reviews', 'what is the square root of 1764',
  'how to knit a scarf', 'tips for growing tomatoes on a balcony', 'who invented the telephone',
  'order a taxi to the airport', 'what is the speed of light', 'how to meditate for beginners',
  'history of the Roman empire in brief', 'what does a blockchain do', 'song lyrics for a birthday',
  'how to remove a red wine stain',
];

const toCases = (rows: Row[], category: string): SuiteCase[] =>
  rows.map(([query, expected]) => ({ query, persona: 'student', expected, category }));

/** 43 on-topic cases (15 literal, 20 paraphrased, 8 compound) and 40 off-topic ones (expected []). */
export const DEV_CASES: SuiteCase[] = [
  ...toCases(LITERAL, 'literal'),
  ...toCases(PARAPHRASE, 'paraphrase'),
  ...toCases(COMPOUND, 'compound'),
  ...OFF_TOPIC.map((query) => ({ query, persona: 'student', expected: [], category: 'off-topic' })),
];
