/**
 * The cost of the secret redaction step on what the gateway sends a host (guards/secrets):
 * `SecretRedactor.redact` of one JSON-RPC result, as the host transport runs it, for a
 * typical small tools/call result and for 1 MB ones (one text block; 10,000 small blocks
 * with structuredContent), with the credentials of a typical configuration held (a static
 * header, an env token, OAuth access/refresh tokens, a host token: 6 values, every spelling
 * of each), and with 10,000 per-user accounts' tokens held on top; patterns on
 * (`guards.secrets: redact`, the default) and off. Also the combined-regex alternative the
 * matcher replaced. Run: `node dist/bench/secrets.js`.
 */
import { randomBytes } from 'node:crypto';
import { percentile } from '../src/eval/metrics.js';
import { HeldSecrets, type HeldValue } from '../src/guards/secrets/held.js';
import { SecretRedactor, type PatternMode } from '../src/guards/secrets/redactor.js';

const token = (prefix: string) => `${prefix}${randomBytes(24).toString('base64url')}`;

function typicalHeld(): HeldValue[] {
  return [
    { value: `Bearer ${token('st-')}`, label: 'header Authorization of upstream crm' },
    { value: token('key-'), label: 'header X-Api-Key of upstream crm' },
    { value: token('ghp_'), label: 'env GITHUB_TOKEN of upstream github' },
    { value: token('at-'), label: 'OAuth access token of upstream tracker' },
    { value: token('rt-'), label: 'OAuth refresh token of upstream tracker' },
    { value: token('host-'), label: 'host token' },
  ];
}

function perUserHeld(users: number): HeldValue[] {
  return Array.from({ length: users }, () => [
    { value: token('at-'), label: 'OAuth access token of upstream tracker' },
    { value: token('rt-'), label: 'OAuth refresh token of upstream tracker' },
  ]).flat();
}

const prose = (bytes: number) => {
  const line = 'row 00042: student S0042 enrolled in CS-101 (Introduction to Programming), grade A-, 2026-11-30T10:00:00Z {"ok": true}\n';
  return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
};

const RESULTS: [string, () => unknown][] = [
  ['small result (one 60-byte text block)', () => ({ content: [{ type: 'text', text: 'Fee dues for S0042: 1,250.00 EUR, due 2026-12-15; no holds.' }] })],
  ['1 MB result, one text block', () => ({ content: [{ type: 'text', text: prose(1 << 20) }] })],
  [
    '1 MB result, 5,000 text blocks + structuredContent with 5,000 rows',
    () => ({
      content: Array.from({ length: 5_000 }, (_, i) => ({ type: 'text', text: prose(100).replace('00042', String(i)) })),
      structuredContent: { rows: Array.from({ length: 5_000 }, (_, i) => ({ id: i, name: `student ${i}`, note: prose(60) })) },
    }),
  ],
];

function time(redactor: SecretRedactor, value: unknown, runs: number): { p50: number; p99: number } {
  for (let i = 0; i < 3; i++) redactor.redact(value);
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    redactor.redact(value);
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 0.5), p99: percentile(ms, 0.99) };
}

export async function benchSecrets(): Promise<string[]> {
  const lines = [
    '| held credentials (spellings) | guards.secrets | what is sent | redact p50 ms | p99 ms |',
    '|---|---|---|---|---|',
  ];
  for (const [name, held] of [
    ['typical: 6', typicalHeld()],
    ['6 + 10,000 users × 2 tokens', [...typicalHeld(), ...perUserHeld(10_000)]],
  ] as const) {
    const set = new HeldSecrets();
    set.set('bench', [...held]);
    const spellings = set.current().size;
    for (const mode of ['redact', 'off'] as PatternMode[]) {
      const redactor = new SecretRedactor(set, mode);
      for (const [what, make] of RESULTS) {
        const value = make();
        const runs = what.startsWith('small') ? 20_000 : 30;
        const { p50, p99 } = time(redactor, value, runs);
        lines.push(`| ${name} (${spellings}) | ${mode} | ${what} | ${p50.toFixed(p50 < 0.1 ? 4 : 2)} | ${p99.toFixed(p99 < 0.1 ? 4 : 2)} |`);
      }
    }
  }
  // The alternative: one regular expression of every spelling, as V8 runs it.
  const regexLines = ['', '| spellings in one RegExp | scan of 1 MB of text, p50 ms |', '|---|---|'];
  for (const n of [10, 100, 1_000]) {
    const re = new RegExp(Array.from({ length: n }, () => token('')).join('|'), 'g');
    const text = prose(1 << 20);
    const ms: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      re.lastIndex = 0;
      while (re.exec(text)) re.lastIndex++;
      ms.push(performance.now() - t0);
    }
    regexLines.push(`| ${n} | ${percentile(ms.sort((a, b) => a - b), 0.5).toFixed(1)} |`);
  }
  return [...lines, ...regexLines];
}

if (import.meta.url === `file://${process.argv[1]}`) process.stdout.write(`${(await benchSecrets()).join('\n')}\n`);
