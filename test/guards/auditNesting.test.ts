/**
 * Audit rows of calls whose arguments are nested ~6,000 levels deep, sent over stdio to the
 * built gateway (raw JSON lines: the SDK client's own serializer overflows at that depth,
 * the gateway's JSON.parse does not). A call that cannot be sent upstream ends as an
 * `error` row saying nothing ran (it stayed `running` forever), and a refused call keeps
 * its row (it was lost): in both, the arguments are stored cut with a marker. Searching the
 * call's arguments for redacted values to hide in the error detail recursed into every
 * level and overflowed the stack; it no longer recurses.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AuditWriter } from '../../src/guards/audit.js';
import { DEEP_MARKER } from '../../src/guards/bound.js';
import { redact, redactedValues, REDACT_MAX_DEPTH } from '../../src/guards/redact.js';
import { openStore, type AuditRecord } from '../../src/store/index.js';
import { conformanceConfig } from '../helpers/conformance.js';
import { RawStdio, type Message } from '../helpers/raw.js';
import { CLI } from '../helpers/reference.js';

const DEPTH = 6_000;

/** `{"d":{"d":…{"leaf":leaf}…}}`, `depth` levels, as JSON text. */
const nestedJson = (depth: number, leaf = '{}') => `${'{"d":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;

/** How many levels of `{ d: … }` a stored value keeps before the marker. */
function keptLevels(value: unknown): { levels: number; end: unknown } {
  let levels = 0;
  let v = value;
  while (v && typeof v === 'object' && 'd' in v) {
    v = (v as { d: unknown }).d;
    levels++;
  }
  return { levels, end: v };
}

const text = (m: Message) => ((m.result as { content: { text: string }[] }).content[0]!.text);

describe('calls nested 6,000 levels deep, over stdio', () => {
  const config = conformanceConfig();
  const gateway = new RawStdio(config);
  afterAll(() => gateway.child.kill('SIGTERM'));

  it('an unsendable call ends as an error row and tells the host nothing ran; a refused call keeps its row', { timeout: 90_000 }, async () => {
    await gateway.initialize();
    await gateway.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_simple_text","arguments":{"deep":${nestedJson(DEPTH)}}}}`);
    await gateway.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"no_such_tool_at_all","arguments":{"deep":${nestedJson(DEPTH)}}}}`);
    const sent = await gateway.next((m) => m.id === 1, 60_000);
    const refused = await gateway.next((m) => m.id === 2, 60_000);
    expect(sent.result).toMatchObject({ isError: true });
    // Soft: the rows below are checked whatever the host was told.
    expect.soft(text(sent)).toBe(
      'the gateway could not complete test_simple_text: its arguments could not be sent to upstream "conformance": they are nested too deep to serialize as JSON, so test_simple_text has not run; send them less deeply nested',
    );
    expect.soft(text(refused)).toMatch(/^unknown tool no_such_tool_at_all;/);

    // The gateway stops when its host closes stdin, after writing the completions queued behind the answers.
    gateway.child.stdin!.end();
    await once(gateway.child, 'exit');
    expect.soft(gateway.stderr).not.toContain('audit record failed');
    const rows = JSON.parse(execFileSync(process.execPath, [CLI, 'audit', '--json', '--tail', '10', '--config', config], { encoding: 'utf8' })) as AuditRecord[];
    const byTool = (tool: string) => rows.filter((r) => r.tool === tool).map(({ args, decision, outcome, detail, upstreamMs }) => ({ args: keptLevels((args as { deep: unknown }).deep), decision, outcome, detail, upstreamMs }));
    expect.soft(byTool('test_simple_text')).toEqual([
      {
        args: { levels: 32, end: DEEP_MARKER },
        decision: 'allowed',
        outcome: 'error',
        detail: 'its arguments could not be sent to upstream "conformance": they are nested too deep to serialize as JSON, so test_simple_text has not run; send them less deeply nested',
        upstreamMs: undefined,
      },
    ]);
    expect(byTool('no_such_tool_at_all')).toEqual([
      {
        args: { levels: 32, end: DEEP_MARKER },
        decision: 'refused',
        outcome: 'not_run',
        detail: "unknown tool no_such_tool_at_all; call find_tools with a short description of what you want to do to get the right tool's name",
        upstreamMs: undefined,
      },
    ]);
  });
});

describe('redaction of deeply nested values', () => {
  const deep = JSON.parse(nestedJson(DEPTH, '{"password":"hunter2-deep"}')) as unknown;

  it('redact cuts a value past REDACT_MAX_DEPTH with the marker; redactedValues finds a secret at any depth', () => {
    expect(keptLevels(redact(deep, ['password']))).toEqual({ levels: REDACT_MAX_DEPTH, end: DEEP_MARKER });
    expect(redactedValues(deep, ['password'])).toEqual(['hunter2-deep']);
  });

  it('an AuditWriter without a secret redactor writes the row of a refused call, its arguments bounded and the echoed secret hidden', async () => {
    const store = await openStore(join(mkdtempSync(join(tmpdir(), 'tc-audit-deep-')), 'store.db'));
    try {
      const writer = new AuditWriter(store.audit, ['password']);
      await writer.record({
        time: 1_800_000_000_000, sessionId: 's', tool: 'x', requestedName: 'x', args: { deep }, decision: 'refused', decisions: ['refused'], notes: [],
        outcome: 'not_run', detail: 'refused: hunter2-deep is not allowed',
      });
      const [row] = await store.audit.tail(1);
      expect(keptLevels((row!.args as { deep: unknown }).deep)).toEqual({ levels: 32, end: DEEP_MARKER });
      expect(row!.detail).toBe('refused: [redacted] is not allowed');
    } finally {
      await store.close();
    }
  });
});
