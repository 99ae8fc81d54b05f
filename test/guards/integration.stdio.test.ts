/**
 * The guards end to end: a real MCP client (the SDK's Client over stdio) talks to the
 * built gateway (`serve --persona student --user-id S0001`), which talks to the eight
 * university servers. What the student may see and call, name correction, identity
 * injection, confirmation through elicitation and through the approvals CLI, expiry, and
 * the audit log read back with `tool-curator audit --json`.
 */
import { join } from 'node:path';
import type { Client, ElicitRequest } from '@modelcontextprotocol/client';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nameRatio } from '../../src/guards/nameGuard.js';
import type { Approval } from '../../src/store/approvals.js';
import type { AuditRecord } from '../../src/store/audit.js';
import { connectGateway } from '../helpers/reference.js';
import { approvalId, cli, installApproverKey, text, universityCatalog, universityConfig, type University } from './university.js';

const STUDENT = ['--persona', 'student', '--user-id', 'S0001'];
/** Tools only staff and administrators may use; a few of the 104 the student may not. */
const ADMIN_TOOLS = ['deactivate_user_account', 'assign_role', 'create_user_account', 'list_users', 'approve_refund', 'publish_exam_results', 'get_student_ledger', 'get_executive_dashboard'];

function audit(u: University): AuditRecord[] {
  const r = cli(u.configPath, ['audit', '--tail', '5000', '--json']);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as AuditRecord[];
}

/** How many of S0001's maintenance requests carry `description`, as the hostel server itself reports. */
async function maintenanceRequests(client: Client, description: string): Promise<number> {
  const r = await client.callTool({ name: 'call_tool', arguments: { name: 'get_maintenance_request_status', arguments: {} } });
  expect(r.isError).toBeFalsy();
  return text(r).split(description).length - 1;
}

const maintenance = (description: string) => ({ name: 'raise_maintenance_request', arguments: { category: 'plumbing', description } });

describe('a student over stdio, host with elicitation', () => {
  let u: University;
  let client: Client;
  let catalog: Awaited<ReturnType<typeof universityCatalog>>;
  let answer: 'accept' | 'decline' = 'decline';
  const asked: ElicitRequest['params'][] = [];

  beforeAll(async () => {
    u = universityConfig();
    ({ client } = await connectGateway(u.configPath, STUDENT, { elicitation: {} }));
    client.setRequestHandler('elicitation/create', async (req) => {
      asked.push(req.params);
      return answer === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
    });
    catalog = await universityCatalog(u.universityDb);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('the catalog holds tools the student may not use, the admin tools among them', () => {
    expect(catalog.all).toHaveLength(191);
    expect(catalog.allowed.size).toBe(87);
    expect(catalog.forbidden).toEqual(expect.arrayContaining(ADMIN_TOOLS));
  });

  it('no forbidden tool is listed or found, whatever the query', async () => {
    const queries = ['deactivate a user account', 'assign a role to a user', 'list all users and their roles', 'publish exam results', 'approve a refund request', 'executive dashboard analytics report', 'student ledger and defaulters list', 'mark attendance for a class', 'enter internal marks for students'];
    for (const query of queries) {
      const r = await client.callTool({ name: 'find_tools', arguments: { query, limit: 50 } });
      const names = (JSON.parse(text(r)) as { tools: { name: string }[] }).tools.map((t) => t.name);
      expect(names.length, query).toBeGreaterThan(0);
      expect(names.filter((n) => !catalog.allowed.has(n)), query).toEqual([]);
    }
    const listed = (await client.listTools()).tools.map((t) => t.name);
    expect(listed.filter((n) => n !== 'find_tools' && n !== 'call_tool' && !catalog.allowed.has(n))).toEqual([]);
  });

  it('every forbidden tool is refused, called directly, through call_tool, or by a near-miss name; each attempt is audited', async () => {
    const before = audit(u).length;
    const nearMiss = (n: string) => n.slice(0, n.length >> 1) + n.slice((n.length >> 1) + 1);
    const allowedNames = [...catalog.allowed];
    for (const name of catalog.forbidden) {
      const direct = await client.callTool({ name, arguments: { student_id: 'S0002' } });
      expect(direct.isError, name).toBe(true);
      expect(text(direct)).toBe(`tool ${name} is not available to persona student; call find_tools to see the tools you may use`);

      const via = await client.callTool({ name: 'call_tool', arguments: { name, arguments: {} } });
      expect(text(via)).toBe(`tool ${name} is not available to persona student; call find_tools to see the tools you may use`);

      const near = nearMiss(name);
      const r = await client.callTool({ name: near, arguments: {} });
      const best = Math.max(...allowedNames.map((a) => nameRatio(a, near)));
      if (best < 0.82) {
        expect(r.isError, near).toBe(true);
        expect(text(r)).toMatch(new RegExp(`^unknown tool ${near}; `));
        const suggested = /did you mean (\w+)\?$/.exec(text(r))?.[1];
        if (suggested) expect(catalog.allowed.has(suggested), `${near} → ${suggested}`).toBe(true);
      }
    }
    const rows = audit(u).slice(before);
    expect(rows).toHaveLength(catalog.forbidden.length * 3);
    // A forbidden tool never ran: each of its rows is a refusal that reached no upstream.
    const forbiddenRows = rows.filter((row) => catalog.forbidden.includes(row.tool));
    expect(forbiddenRows).toHaveLength(catalog.forbidden.length * 2);
    for (const row of forbiddenRows) expect([row.decision, row.outcome, row.persona, row.userId]).toEqual(['refused', 'not_run', 'student', 'S0001']);
    // Near misses were refused, or corrected onto a tool the student may use.
    for (const row of rows.filter((x) => !catalog.forbidden.includes(x.tool))) {
      if (row.decision === 'refused') expect(row.outcome).toBe('not_run');
      else expect([row.decisions[0], catalog.allowed.has(row.tool)]).toEqual(['corrected', true]);
    }
    // Forbidden action tools were refused before confirmation: nothing awaits a person.
    expect(JSON.parse(cli(u.configPath, ['approvals', 'list', '--all', '--json']).stdout)).toEqual([]);
  });

  it('get_attendence_summary is corrected to get_attendance_summary, and audited as corrected', async () => {
    const r = await client.callTool({ name: 'get_attendence_summary', arguments: {} });
    expect(r.isError).toBeFalsy();
    // The model is told which tool ran, first in the result and in _meta.
    expect(text(r)).toBe('[tool-curator] get_attendence_summary does not exist; resolved to get_attendance_summary');
    expect(r._meta?.['tool-curator/corrected']).toEqual({ requested: 'get_attendence_summary', called: 'get_attendance_summary' });
    expect(JSON.parse((r.content as { text: string }[])[1]!.text)).toMatchObject({ student_id: 'S0001', minimum_percentage: 75 });
    expect(audit(u).at(-1)).toMatchObject({
      tool: 'get_attendance_summary',
      requestedName: 'get_attendence_summary',
      decision: 'corrected',
      outcome: 'ok',
      notes: ['corrected from get_attendence_summary (ratio 0.955)'],
    });
    expect(audit(u).at(-1)!.upstreamMs).toBeGreaterThanOrEqual(0);
  });

  it('a reversing affix (unenroll_in_course, 0.941 to enroll_in_course) gets "did you mean" and nothing runs, even with a host that accepts everything', async () => {
    answer = 'accept';
    const enrolled = async () => text(await client.callTool({ name: 'get_enrolled_courses', arguments: { term: '2026-EVEN' } }));
    const before = await enrolled();
    const askedBefore = asked.length;
    expect(nameRatio('enroll_in_course', 'unenroll_in_course')).toBeGreaterThan(0.94);
    const r = await client.callTool({ name: 'unenroll_in_course', arguments: { course_id: 'CS751' } });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^unknown tool unenroll_in_course; did you mean enroll_in_course\b.*Nothing was run/);
    expect(asked.length).toBe(askedBefore); // no one was even asked to confirm it
    expect(await enrolled()).toBe(before);
    expect(audit(u).filter((row) => row.requestedName === 'unenroll_in_course')).toMatchObject([{ decision: 'refused', outcome: 'not_run', tool: 'unenroll_in_course' }]);
    answer = 'decline';
  });

  it('a corrected action shows the person confirming both names', async () => {
    answer = 'decline';
    const r = await client.callTool({ name: 'raise_maintenance_reqest', arguments: { category: 'plumbing', description: 'typo leak' } });
    expect(r.isError).toBe(true);
    expect(asked.at(-1)!.message).toMatch(/^Allow raise_maintenance_request \(the model asked for raise_maintenance_reqest\) \(upstream hostel\)/);
    expect(text(r)).toBe('[tool-curator] raise_maintenance_reqest does not exist; resolved to raise_maintenance_request');
  });

  it('a name about 0.7 from the nearest allowed tool gets "did you mean"', async () => {
    const ratios = [...catalog.allowed].map((a) => [a, nameRatio(a, 'get_fee')] as const).sort((x, y) => y[1] - x[1]);
    expect(ratios[0]![0]).toBe('get_fee_dues');
    expect(ratios[0]![1]).toBeCloseTo(14 / 19, 12); // 0.737
    const r = await client.callTool({ name: 'get_fee', arguments: {} });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^unknown tool get_fee; did you mean get_fee_dues\b/);
    expect(audit(u).at(-1)).toMatchObject({ tool: 'get_fee', decision: 'refused', outcome: 'not_run' });
  });

  it('gibberish gets the find_tools hint', async () => {
    const r = await client.callTool({ name: 'qwzx_frobnicate', arguments: {} });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^unknown tool qwzx_frobnicate; call find_tools with/);
  });

  it("another student's id sent by the model is overwritten: the upstream answers for S0001", async () => {
    const direct = await client.callTool({ name: 'get_attendance_summary', arguments: { student_id: 'S0002' } });
    expect(JSON.parse(text(direct)).student_id).toBe('S0001');
    const via = await client.callTool({ name: 'call_tool', arguments: { name: 'get_fee_dues', arguments: { student_id: 'S0003' } } });
    expect(JSON.parse(text(via)).student_id).toBe('S0001');
    expect(audit(u).at(-1)).toMatchObject({ args: { student_id: 'S0001' }, notes: ['student_id "S0003" from the model replaced by the session\'s'] });
  });

  it('identity fields, and the ones a student withholds (faculty_id), are absent from the schemas the host sees', async () => {
    const found: { name: string; inputSchema: { properties?: object; required?: string[] } }[] = [];
    for (const query of ['attendance summary', 'library fines I owe']) {
      const r = await client.callTool({ name: 'find_tools', arguments: { query, limit: 5 } });
      found.push(...(JSON.parse(text(r)) as { tools: typeof found }).tools);
    }
    expect(found.map((t) => t.name)).toContain('get_library_fines');
    for (const t of [...found, ...(await client.listTools()).tools]) {
      for (const field of ['student_id', 'faculty_id']) {
        expect(Object.keys(t.inputSchema.properties ?? {}), t.name).not.toContain(field);
        expect(t.inputSchema.required ?? [], t.name).not.toContain(field);
      }
    }
    // A faculty_id the model sends anyway is dropped: the upstream answers for the student.
    const fines = await client.callTool({ name: 'get_library_fines', arguments: { faculty_id: 'F001' } });
    expect(fines.isError, text(fines)).toBeFalsy();
    expect(audit(u).at(-1)).toMatchObject({ tool: 'get_library_fines', args: { student_id: 'S0001' }, notes: ['faculty_id "F001" from the model removed (withheld from persona student)'] });
  });

  it('an action accepted through elicitation runs, once; the person saw the tool and its arguments', async () => {
    answer = 'accept';
    const r = await client.callTool(maintenance('elicit-accepted leak'));
    expect(r.isError).toBeFalsy();
    expect(asked.at(-1)!.message).toContain('raise_maintenance_request');
    expect(asked.at(-1)!.message).toContain('"description": "elicit-accepted leak"');
    expect(asked.at(-1)!.message).toContain('"student_id": "S0001"');
    expect(await maintenanceRequests(client, 'elicit-accepted leak')).toBe(1);
    expect(audit(u).filter((row) => row.tool === 'raise_maintenance_request').at(-1)).toMatchObject({ decision: 'approved', outcome: 'ok' });
  });

  it('an action declined through elicitation does not run', async () => {
    answer = 'decline';
    const r = await client.callTool(maintenance('elicit-declined leak'));
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/did not approve raise_maintenance_request \(decline\)/);
    expect(await maintenanceRequests(client, 'elicit-declined leak')).toBe(0);
    expect(audit(u).filter((row) => row.tool === 'raise_maintenance_request').at(-1)).toMatchObject({ decision: 'denied', outcome: 'not_run' });
  });
});

describe('a student over stdio, host without elicitation: approvals through the CLI', () => {
  let u: University;
  let client: Client;

  beforeAll(async () => {
    u = universityConfig();
    installApproverKey(u);
    ({ client } = await connectGateway(u.configPath, STUDENT));
  });

  it('approving without the approver key fails and the call stays parked; the message never quotes a command', async () => {
    const parked = await client.callTool(maintenance('keyless leak'));
    const id = approvalId(parked);
    expect(text(parked)).toContain('Ask the user to review and approve this call');
    expect(text(parked)).not.toMatch(/tool-curator|approvals approve/);
    const elsewhere = join(u.dir, 'nobody', 'approver.key');
    const r = cli(u.configPath, ['approvals', 'approve', id, '--key-file', elsewhere]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`approving needs the approver key, and there is none at ${elsewhere}`);
    // Writing the store directly, as an agent with a shell could, approves nothing either.
    const db = new Database(join(u.dir, 'store.db'));
    db.prepare(`UPDATE approvals SET status = 'approved', decided_by = 'cli', decided_at = 0 WHERE id = ?`).run(id);
    db.close();
    const retry = await client.callTool(maintenance('keyless leak'));
    expect(text(retry)).toContain('awaits a person');
    expect(await maintenanceRequests(client, 'keyless leak')).toBe(0);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('waits, is approved with `approvals approve`, runs exactly once on retry', async () => {
    const first = await client.callTool(maintenance('cli-approved leak'));
    expect(first.isError).toBe(true);
    const id = approvalId(first);
    expect(await maintenanceRequests(client, 'cli-approved leak')).toBe(0);

    const listed = JSON.parse(cli(u.configPath, ['approvals', 'list', '--json']).stdout) as Approval[];
    expect(listed.filter((a) => a.id === id)).toMatchObject([{ id, status: 'pending', tool: 'raise_maintenance_request', persona: 'student', userId: 'S0001', args: { category: 'plumbing', description: 'cli-approved leak', student_id: 'S0001' } }]);
    const table = cli(u.configPath, ['approvals', 'list']).stdout;
    expect(table).toMatch(new RegExp(`^${id}\\s+pending\\s+raise_maintenance_request\\s+hostel\\.raise_maintenance_request\\s+student\\s+user S0001`, 'm'));

    const approved = cli(u.configPath, ['approvals', 'approve', id]);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toMatch(new RegExp(`^approved ${id}: raise_maintenance_request \\(upstream hostel, its tool raise_maintenance_request\\) for student, user S0001`));

    const retry = await client.callTool(maintenance('cli-approved leak'));
    expect(retry.isError).toBeFalsy();
    expect(await maintenanceRequests(client, 'cli-approved leak')).toBe(1);

    const again = await client.callTool(maintenance('cli-approved leak'));
    expect(approvalId(again)).not.toBe(id);
    expect(await maintenanceRequests(client, 'cli-approved leak')).toBe(1);
    expect(audit(u).filter((r) => r.tool === 'raise_maintenance_request' && r.args.description === 'cli-approved leak').map((r) => [r.decision, r.outcome])).toEqual([
      ['awaiting_approval', 'not_run'],
      ['approved', 'ok'],
      ['awaiting_approval', 'not_run'],
    ]);
  });

  it('a denied call never runs', async () => {
    const id = approvalId(await client.callTool(maintenance('cli-denied leak')));
    expect(cli(u.configPath, ['approvals', 'deny', id]).code).toBe(0);
    const retry = await client.callTool(maintenance('cli-denied leak'));
    expect(retry.isError).toBe(true);
    expect(text(retry)).toContain(`a person denied raise_maintenance_request with these arguments (approval id ${id})`);
    const twice = cli(u.configPath, ['approvals', 'approve', id]);
    expect([twice.code, twice.stderr.trim()]).toEqual([1, `approval request ${id} is already denied`]);
    expect(await maintenanceRequests(client, 'cli-denied leak')).toBe(0);
  });

  it('nothing the model sends approves its own call', async () => {
    const id = approvalId(await client.callTool(maintenance('self-approved leak')));
    for (const name of ['approve', 'approvals_approve', 'approve_call']) {
      const r = await client.callTool({ name, arguments: { id, approval_id: id } });
      expect(r.isError).toBe(true);
    }
    const smuggled = await client.callTool({ name: 'raise_maintenance_request', arguments: { category: 'plumbing', description: 'self-approved leak', approved: true, approval_id: id } });
    expect(smuggled.isError).toBe(true);
    expect(await maintenanceRequests(client, 'self-approved leak')).toBe(0);
    expect(JSON.parse(cli(u.configPath, ['approvals', 'list', '--json']).stdout)).toMatchObject(expect.arrayContaining([expect.objectContaining({ id, status: 'pending' })]));
  });
});

describe('approvals expire (approval_ttl_minutes 0.25 = 15 s; long enough for a CLI spawn on a loaded machine)', () => {
  let u: University;
  let client: Client;

  beforeAll(async () => {
    u = universityConfig({ confirmation: { approval_ttl_minutes: 0.25 } });
    installApproverKey(u);
    ({ client } = await connectGateway(u.configPath, STUDENT));
  });
  afterAll(async () => {
    await client?.close();
  });

  it('an expired request cannot be approved, and an expired approval never runs', async () => {
    const [unapproved, approvedLate] = await Promise.all([
      client.callTool(maintenance('expired-request leak')),
      client.callTool(maintenance('expired-approval leak')),
    ]);
    const approval = approvalId(approvedLate);
    const approved = cli(u.configPath, ['approvals', 'approve', approval]);
    expect([approved.code, approved.stderr]).toEqual([0, '']);
    await new Promise((r) => setTimeout(r, 15_500));

    const late = cli(u.configPath, ['approvals', 'approve', approvalId(unapproved)]);
    expect(late.code).toBe(1);
    expect(late.stderr).toContain(`approval request ${approvalId(unapproved)} expired at`);

    for (const description of ['expired-request leak', 'expired-approval leak']) {
      const retry = await client.callTool(maintenance(description));
      expect(text(retry)).toContain('awaits a person');
      expect(await maintenanceRequests(client, description)).toBe(0);
    }
    const all = JSON.parse(cli(u.configPath, ['approvals', 'list', '--all', '--json']).stdout) as Approval[];
    expect(all.find((a) => a.id === approval)?.status).toBe('expired');
    expect(all.find((a) => a.id === approvalId(unapproved))?.status).toBe('expired');
  });
});
