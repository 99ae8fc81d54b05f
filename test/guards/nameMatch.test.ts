import { describe, expect, test } from 'vitest';
import type { ToolRecord } from '../../src/catalog/types.js';
import { MAX_COMPARISONS, NameIndex } from '../../src/guards/nameIndex.js';
import { classifyPair, editDistance, nameTokens, tokenTypo } from '../../src/guards/nameMatch.js';
import { ISSUE_29_PAIRS, ISSUE_PAIRS } from './fixtures.js';

const rec = (name: string): ToolRecord => ({ server: 's', upstreamName: name, name, description: '', inputSchema: { type: 'object' }, isAction: false });

describe('nameTokens and editDistance', () => {
  test('names split on separators and camelCase, lower-cased', () => {
    expect(nameTokens('get_fee-dues.v2')).toEqual(['get', 'fee', 'dues', 'v2']);
    expect(nameTokens('getHTTPResponseCode')).toEqual(['get', 'http', 'response', 'code']);
    expect(nameTokens('github__search')).toEqual(['github', 'search']);
  });

  test('optimal string alignment distance counts a transposition as one edit', () => {
    expect(editDistance('recieve', 'receive')).toBe(1);
    expect(editDistance('attendence', 'attendance')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('kitten', 'sitting', 1)).toBe(2);
  });
});

describe('classifyPair', () => {
  test.each([
    // The issue's pairs: each adds/removes a token or a reversing affix, or swaps the verb or the noun.
    ...ISSUE_PAIRS,
    ...ISSUE_29_PAIRS,
    // More of the same kinds.
    ['enroll_in_course', 'unenroll_in_course'],
    ['unenrol_in_course', 'enroll_in_course'],
    ['disable_user_account', 'enable_user_account'],
    ['delete_booking', 'create_booking'],
    ['set_status', 'get_status'],
    ['cancel_room_booking', 'room_booking'],
    ['get_attendance', 'get_attendance_summary'],
    ['invalidate_session', 'validate_session'],
    ['turn_on_alarm', 'turn_off_alarm'],
    ['api_v1_search', 'api_v2_search'],
    ['decrypt_file', 'encrypt_file'],
    // Issue 29's kinds beyond its two pairs: a prefix of a longer name (0.823), an object noun replaced, camelCase.
    ['get_attendance', 'get_attendance_trend'],
    ['getStudentGrades', 'get_student_profile'],
    // Another real word a letter or two away is another thing, not a slip.
    ['search_nodes', 'search_notes'],
    ['ChartTool', 'CharityTool'],
    ['get_date', 'get_data'],
    ['read_file', 'head_file'],
    ['list_trades', 'list_grades'],
    ['enroll_on_course', 'enroll_in_course'],
    // A changed letter in a token of three letters or fewer is another token.
    ['gas_prices_az', 'gas_prices_al'],
    ['get_user_id', 'get_user_ip'],
    // A letter put before a whole token makes another, often the opposite (attack8): a negative acknowledgement, the other mode.
    ['ack_message', 'nack_message'],
    ['run_sync', 'run_async'],
    // The other party of one relation.
    ['grantee_list', 'grantor_list'],
    ['get_lessee', 'get_lessor'],
    ['get_employee', 'get_employer'],
    // Two products, services or formats a letter apart are two things.
    ['query_mysql', 'query_mssql'],
    ['search_redis', 'search_reddit'],
    ['export_yaml', 'export_yml'],
    ['convert_to_json', 'convert_to_jsonl'],
  ])('%s → %s is different (never silently corrected)', (requested, candidate) => {
    expect(classifyPair(requested, candidate)).toBe('different');
  });

  test.each([
    ['get_attendence_summary', 'get_attendance_summary'], // a letter changed
    ['get_atendance_summary', 'get_attendance_summary'], // dropped
    ['get_atttendance_summary', 'get_attendance_summary'], // doubled
    ['get_attednance_summary', 'get_attendance_summary'], // swapped
    ['recieve_payment', 'receive_payment'],
    ['rgister_visitor', 'register_visitor'], // a dropped letter that is not an affix
    ['getAttendanceSummary', 'get_attendance_summary'], // camelCase of the same words
    ['getattendance_summary', 'get_attendance_summary'], // a separator dropped
    ['get_studnet_profile', 'get_student_profile'], // swapped, in another token
    ['get-attendance-summary', 'get_attendance_summary'], // other separators
    ['GetAttendanceSummary', 'get_attendance_summary'], // PascalCase
    ['get_fee_due', 'get_fee_dues'], // the singular of the same word
    ['gte_fee_dues', 'get_fee_dues'], // a swap in a three-letter token
    ['ggrade_report', 'grade_report'], // a first letter doubled
    ['get_adaptor', 'get_adapter'], // a spelling variant: no -ee in it
    ['query_mysqll', 'query_mysql'], // a slip in a product's name is still a slip
    ['backup_postgress', 'backup_postgres'],
  ])('%s → %s is a typo', (requested, candidate) => {
    expect(classifyPair(requested, candidate)).toBe('typo');
  });

  test('equal but for case is the same name', () => {
    expect(classifyPair('Get_Fee_Dues', 'get_fee_dues')).toBe('same');
  });

  test('two different verbs are never a typo of each other, however close', () => {
    expect(tokenTypo('get', 'set')).toBe(false);
    expect(tokenTypo('post', 'put')).toBe(false);
    expect(tokenTypo('gte', 'get')).toBe(true);
  });

  test('whether two tokens are both words decides between a slip and another word', () => {
    // The same pair of tokens, judged by three word lists.
    expect(tokenTypo('nodes', 'notes', () => false)).toBe(true);
    expect(tokenTypo('nodes', 'notes', (w) => w === 'notes')).toBe(true);
    expect(tokenTypo('nodes', 'notes', () => true)).toBe(false);
    // A plural is the same word, whatever the list says.
    expect(tokenTypo('grade', 'grades', () => true)).toBe(true);
    // The default list is the English dictionary.
    expect(tokenTypo('nodes', 'notes')).toBe(false);
    expect(tokenTypo('attendence', 'attendance')).toBe(true);
  });
});

describe('NameIndex at 100,000 tools', () => {
  const words = ['course', 'student', 'exam', 'fee', 'room', 'book', 'grade', 'visitor', 'event', 'payment', 'ticket', 'report'];
  const verbs = ['get', 'list', 'create', 'update', 'delete', 'cancel'];
  const names: string[] = [];
  for (let i = 0; names.length < 100_000; i++) {
    names.push(`${verbs[i % verbs.length]}_${words[(i >> 3) % words.length]}_${words[(i >> 7) % words.length]}_item${i}`);
  }
  const index = new NameIndex(names.map(rec));

  test('exact and case-insensitive lookups are Map hits', () => {
    expect(index.get('get_course_course_item0')?.name).toBe('get_course_course_item0');
    expect(index.caseInsensitive('GET_COURSE_COURSE_ITEM0').map((t) => t.name)).toEqual(['get_course_course_item0']);
  });

  test('a misspelled name runs a bounded number of SequenceMatcher comparisons and still finds its tool', () => {
    const target = names[54_321]!;
    const typo = target.replace('_', '__').replace(/e/, 'ee');
    const { candidates, comparisons } = index.fuzzy(typo, () => true, 0.6);
    expect(comparisons).toBeLessThanOrEqual(MAX_COMPARISONS);
    expect(comparisons).toBeGreaterThan(0);
    expect(candidates[0]!.tool.name).toBe(target);
  });

  test('a name sharing nothing with the catalog costs no comparison; a common one at most MAX_COMPARISONS', () => {
    expect(index.fuzzy('zzqqxxjj', () => true, 0.6).comparisons).toBe(0);
    expect(index.fuzzy('get_course_course_item', () => true, 0.6).comparisons).toBe(MAX_COMPARISONS);
  });

  test('a persona that allows nothing costs no comparison', () => {
    expect(index.fuzzy('get_course_course_item7', () => false, 0.6)).toEqual({ candidates: [], comparisons: 0 });
  });

  test('prepare() builds the trigram index ahead, in chunks, to the same lookups as one built on demand', async () => {
    const prepared = new NameIndex(names.map(rec));
    let turns = 0;
    const counter = setInterval(() => turns++, 0);
    await prepared.prepare();
    clearInterval(counter);
    // The event loop ran between chunks (100,000 names, 10,000 per chunk).
    expect(turns).toBeGreaterThan(0);
    for (const typo of ['get_coursee_course_item0', 'lst_exam_fee_item4242', 'cancel_ticket_report_item99999x']) {
      expect(prepared.fuzzy(typo, () => true, 0.6)).toEqual(index.fuzzy(typo, () => true, 0.6));
    }
    expect(prepared.fuzzy('get_coursee_course_item0', () => true, 0.6).candidates[0]!.tool.name).toBe('get_course_course_item0');
  });

  test('a lookup during prepare() builds the index at once and prepare() keeps that one', async () => {
    const racing = new NameIndex(names.map(rec));
    const preparing = racing.prepare();
    const during = racing.fuzzy('get_coursee_course_item0', () => true, 0.6);
    await preparing;
    expect(during.candidates[0]!.tool.name).toBe('get_course_course_item0');
    expect(racing.fuzzy('get_coursee_course_item0', () => true, 0.6)).toEqual(during);
  });
});
