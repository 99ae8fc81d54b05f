/**
 * Seeded random and mutated JSON-RPC messages for the fuzz test: mostly well-formed MCP
 * requests with random or mutated content, plus broken shapes (bad params, bad ids,
 * wrong jsonrpc, unknown methods, notifications, deep nesting, long strings) and, on
 * stdio, lines that are not JSON or are batches.
 */
import { prng } from '../../mock-servers/shared/seed/context.js';

/** Real university tool names (reads and actions) to call and to mutate. */
const TOOLS = [
  'get_fee_dues', 'make_payment', 'get_exam_eligibility', 'get_attendance_summary', 'get_my_profile', 'enroll_in_course',
  'get_course_catalog', 'get_hall_ticket', 'get_library_loans', 'renew_book', 'get_hostel_allocation', 'raise_maintenance_request',
  'get_placement_drives', 'apply_for_placement', 'submit_grievance', 'get_timetable', 'unenroll_in_course',
];
const WORDS = ['fee', 'exam', 'attendance', 'hostel', 'library', 'book', 'pay', 'course', 'enroll', 'grade', 'drop', 'timetable', 'placement', 'complaint', 'room', 'due', 'ticket', 'zürich', '試験', 'امتحان', '🙂', '', ' ', '\u0000', '../../etc/passwd', '${user_id}', '__proto__', 'constructor'];

export interface Generated {
  /** What goes on the wire: a JSON value, or raw text (stdio lines, HTTP bodies). */
  payload: unknown;
  raw: boolean;
  /** The id the gateway must answer with, when the message is a request with a usable id. */
  expectId?: string | number;
  kind: string;
}

export function generator(seed: number, transport: 'stdio' | 'http') {
  const r = prng(seed);
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const str = (max = 40): string => {
    switch (int(6)) {
      case 0: return Array.from({ length: int(8) }, () => pick(WORDS)).join(' ');
      case 1: return String.fromCodePoint(...Array.from({ length: int(max) }, () => int(0x2fff)));
      case 2: return 'x'.repeat(int(20_000));
      case 3: return pick(TOOLS);
      default: return Array.from({ length: int(max) }, () => String.fromCharCode(32 + int(95))).join('');
    }
  };
  const mutateName = (name: string): string => {
    switch (int(7)) {
      case 0: return name.toUpperCase();
      case 1: { const i = int(name.length); return name.slice(0, i) + name.slice(i + 1); }
      case 2: { const i = int(name.length - 1); return name.slice(0, i) + name[i + 1] + name[i] + name.slice(i + 2); }
      case 3: return `${pick(['un', 'de', 're', 'dis'])}${name}`;
      case 4: return `${pick(['academics', 'finance', 'nope'])}__${name}`;
      case 5: return `${name}${'_x'.repeat(int(50))}`;
      default: return name;
    }
  };
  const value = (depth: number): unknown => {
    switch (depth > 3 ? int(4) : int(7)) {
      case 0: return str();
      case 1: return r() * 1e12 - 5e11;
      case 2: return r() < 0.5;
      case 3: return null;
      case 4: return Array.from({ length: int(5) }, () => value(depth + 1));
      default: return Object.fromEntries(Array.from({ length: int(5) }, () => [pick([...WORDS, 'student_id', 'amount', 'course_id', 'query', 'limit']), value(depth + 1)]));
    }
  };
  const deep = (n: number): unknown => (n === 0 ? 'bottom' : { nested: deep(n - 1) });
  let counter = 0;

  return (): Generated => {
    const id: string | number = int(2) === 0 ? `f${seed}-${counter++}` : 1_000_000 + counter++;
    const request = (method: unknown, params?: unknown) => ({ jsonrpc: '2.0', id, method, ...(params !== undefined && { params }) });
    const roll = int(100);
    if (transport === 'stdio' && roll < 3) return { payload: `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"ping"${pick(['', ',', '}}', ' "x'])}`, raw: true, kind: 'bad-json' };
    if (transport === 'stdio' && roll < 5) return { payload: [request('ping'), request('tools/list')], raw: false, kind: 'batch' };
    if (transport === 'http' && roll < 4) return { payload: `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":`, raw: true, kind: 'bad-json' };
    if (roll < 12) return { payload: { jsonrpc: '2.0', method: pick(['notifications/initialized', 'notifications/cancelled', 'notifications/roots/list_changed', 'notifications/whatever']), params: { requestId: id, reason: str() } }, raw: false, kind: 'notification' };
    if (roll < 16) return { payload: { jsonrpc: '2.0', id: pick([null, true, { a: 1 }, [1], 1.5e300]), method: 'ping' }, raw: false, kind: 'bad-id' };
    const kinds: [string, () => unknown][] = [
      ['ping', () => request('ping')],
      ['list', () => request('tools/list', int(3) === 0 ? { cursor: str() } : {})],
      ['find', () => request('tools/call', { name: 'find_tools', arguments: int(4) === 0 ? value(0) : { query: str(), ...(int(3) === 0 && { limit: value(3) }) } })],
      ['call', () => request('tools/call', { name: mutateName(pick(TOOLS)), arguments: int(5) === 0 ? value(0) : Object.fromEntries([['amount', value(3)], ['course_id', value(3)], ['student_id', value(3)]]) })],
      ['call_tool', () => request('tools/call', { name: 'call_tool', arguments: { name: int(4) === 0 ? value(2) : mutateName(pick(TOOLS)), arguments: value(1) } })],
      ['unknown-method', () => request(pick(['resources/list', 'prompts/list', 'tools/nonsense', 'sampling/createMessage', '', str(20)]), value(1))],
      ['bad-params', () => request(pick(['tools/call', 'tools/list', 'ping']), pick([null, 42, 'params', [1, 2], { name: 7 }]))],
      ['bad-method', () => ({ jsonrpc: '2.0', id, method: pick([7, null, { m: 1 }, ['ping']]) })],
      ['bad-version', () => ({ jsonrpc: pick(['1.0', 2, undefined]), id, method: 'ping' })],
      ['no-method', () => ({ jsonrpc: '2.0', id, params: value(1) })],
      ['deep', () => request('tools/call', { name: pick(TOOLS), arguments: { deep: deep(50 + int(100)) } })],
    ];
    const [kind, make] = pick(kinds);
    return { payload: make(), raw: false, expectId: id, kind };
  };
}

/** Runs `total` items through `one` with at most `window` in flight. */
export async function windowed(total: number, window: number, one: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: window }, async () => {
    while (next < total) await one(next++);
  }));
}
