/** The persona patterns for resources and prompts (`resources:` / `prompts:` in personas.yaml). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, test } from 'vitest';
import { personasSchema } from '../../src/config/schema.js';
import { Policy } from '../../src/policy/policy.js';
import { ROOT } from '../helpers/reference.js';

const policy = new Policy(
  personasSchema.parse({
    reader: {
      allow: ['*'],
      resources: { allow: ['docs.file:///*', 'db.db://{table}', '*.notes://*'], deny: ['docs.file:///secret/*', 'notes://private*'] },
      prompts: { allow: ['docs.*', 'review_*'], deny: ['docs.admin_*'] },
    },
    toolsOnly: { allow: ['*'] },
  }),
);

describe('resource patterns', () => {
  test('<server>.<glob> over the URI: the part before the first dot is a server only if it reads as one', () => {
    expect(policy.isRelayAllowed('reader', 'resources', 'docs', ['file:///a.txt'])).toBe(true);
    expect(policy.isRelayAllowed('reader', 'resources', 'web', ['file:///a.txt'])).toBe(false);
    // `notes://private*` has no server part: it denies on every server.
    expect(policy.isRelayAllowed('reader', 'resources', 'docs', ['notes://today'])).toBe(true);
    expect(policy.isRelayAllowed('reader', 'resources', 'docs', ['notes://private-diary'])).toBe(false);
  });

  test('deny wins, on the upstream URI or the exposed one', () => {
    expect(policy.isRelayAllowed('reader', 'resources', 'docs', ['file:///secret/k.pem'])).toBe(false);
    expect(policy.isRelayAllowed('reader', 'resources', 'docs', ['file:///public.txt', 'tool-curator://docs/file:///public.txt'])).toBe(true);
    expect(policy.isRelayAllowed('reader', 'resources', 'docs', ['x://y', 'file:///secret/y'])).toBe(false);
  });

  test('an allowed template grants the URIs it expands to, unless a deny pattern names the URI', () => {
    expect(policy.isRelayAllowed('reader', 'resources', 'db', ['db://users'])).toBe(false);
    expect(policy.isRelayAllowed('reader', 'resources', 'db', ['db://users'], ['db://{table}'])).toBe(true);
    expect(policy.isRelayAllowed('reader', 'resources', 'docs', ['file:///secret/a'], ['file:///{path}'])).toBe(false);
  });
});

describe('prompt patterns', () => {
  test('<server>.<glob> or a bare glob over the prompt name; deny wins', () => {
    expect(policy.isRelayAllowed('reader', 'prompts', 'docs', ['summarize'])).toBe(true);
    expect(policy.isRelayAllowed('reader', 'prompts', 'web', ['review_pr'])).toBe(true);
    expect(policy.isRelayAllowed('reader', 'prompts', 'web', ['summarize'])).toBe(false);
    expect(policy.isRelayAllowed('reader', 'prompts', 'docs', ['admin_reset'])).toBe(false);
  });
});

describe('defaults', () => {
  test('a persona without resources/prompts keys is allowed none of them, whatever its tools', () => {
    expect(policy.isRelayAllowed('toolsOnly', 'resources', 'docs', ['file:///a.txt'])).toBe(false);
    expect(policy.isRelayAllowed('toolsOnly', 'prompts', 'docs', ['summarize'])).toBe(false);
  });

  test('an unknown persona is allowed nothing; without personas everything is allowed', () => {
    expect(policy.isRelayAllowed('visitor', 'prompts', 'docs', ['summarize'])).toBe(false);
    expect(new Policy({}).isRelayAllowed(undefined, 'resources', 'docs', ['file:///secret/x'])).toBe(true);
  });

  test('a typo in the new keys is a schema error, not a silently open persona', () => {
    const r = personasSchema.safeParse({ p: { allow: ['*'], resources: { alow: ['*'] } } });
    expect(r.success).toBe(false);
  });

  test("the repository's personas.yaml loads: admin may use every resource and prompt, the others none", () => {
    const personas = personasSchema.parse(load(readFileSync(join(ROOT, 'personas.yaml'), 'utf8')));
    const p = new Policy(personas);
    expect(p.isRelayAllowed('admin', 'resources', 'academics', ['university://anything'])).toBe(true);
    expect(p.isRelayAllowed('admin', 'prompts', 'finance', ['any_prompt'])).toBe(true);
    for (const persona of ['student', 'faculty', 'executive']) {
      expect(p.isRelayAllowed(persona, 'resources', 'academics', ['university://anything']), persona).toBe(false);
      expect(p.isRelayAllowed(persona, 'prompts', 'academics', ['any_prompt']), persona).toBe(false);
    }
  });
});
