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
    expect(policy.isResourceAllowed('reader', 'docs', 'file:///a.txt')).toBe(true);
    expect(policy.isResourceAllowed('reader', 'web', 'file:///a.txt')).toBe(false);
    // `notes://private*` has no server part: it denies on every server.
    expect(policy.isResourceAllowed('reader', 'docs', 'notes://today')).toBe(true);
    expect(policy.isResourceAllowed('reader', 'docs', 'notes://private-diary')).toBe(false);
  });

  test('a deny pattern is read in canonical form too: an IDN host or a space as written still denies', () => {
    const p = new Policy(
      personasSchema.parse({
        r: { allow: ['*'], resources: { allow: ['docs.https://*', 'docs.file:///*'], deny: ['docs.https://bücher.example/*', 'docs.file:///secret dir/*'] } },
      }),
    );
    expect(p.isResourceAllowed('r', 'docs', 'https://xn--bcher-kva.example/a')).toBe(false);
    expect(p.isResourceAllowed('r', 'docs', 'https://BÜCHER.example./a')).toBe(false);
    expect(p.isResourceAllowed('r', 'docs', 'file:///secret%20dir/a')).toBe(false);
    expect(p.isResourceAllowed('r', 'docs', 'https://buecher.example/a')).toBe(true);
    // Fullwidth letters and dots are denied in the reading a normalising (NFKC) reader makes.
    expect(p.isResourceAllowed('r', 'docs', 'file:///public/．．/secret dir/a')).toBe(false);
    expect(p.isResourceAllowed('r', 'docs', 'file:///ｓｅｃｒｅｔ dir/a')).toBe(false);
  });

  test('a deny pattern written in NFD (a macOS listing) or with fullwidth characters denies the NFC spelling too', () => {
    const p = new Policy(
      personasSchema.parse({ r: { allow: ['*'], resources: { allow: ['docs.file:///*'], deny: ['docs.file:///cafe\u0301/*', 'docs.file:///ｐｒｉｖａｔｅ/*'] } } }),
    );
    for (const uri of ['file:///caf\u00e9/m', 'file:///caf%C3%A9/m', 'file:///cafe\u0301/m', 'file:///private/m', 'file:///ｐｒｉｖａｔｅ/m']) {
      expect(p.isResourceAllowed('r', 'docs', uri), uri).toBe(false);
    }
    expect(p.isResourceAllowed('r', 'docs', 'file:///cafe/m')).toBe(true);
  });

  test('deny wins, on the upstream URI or the exposed one, in any case', () => {
    expect(policy.isResourceAllowed('reader', 'docs', 'file:///secret/k.pem')).toBe(false);
    expect(policy.isResourceAllowed('reader', 'docs', 'file:///public.txt', { exposed: 'tool-curator://docs/file:///public.txt' })).toBe(true);
    expect(policy.isResourceAllowed('reader', 'docs', 'file:///x', { exposed: 'file:///secret/y' })).toBe(false);
    expect(policy.isResourceAllowed('reader', 'docs', 'file:///SECRET/k.pem')).toBe(false);
    expect(policy.isResourceAllowed('reader', 'docs', 'notes://PRIVATE-diary')).toBe(false);
  });

  test('an allowed template grants the URIs it expands to, unless a deny pattern names the URI', () => {
    const db = (r: string) => /^db:\/\/[^/]+$/.test(r);
    expect(policy.isResourceAllowed('reader', 'db', 'db://users')).toBe(false);
    expect(policy.isResourceAllowed('reader', 'db', 'db://users', { viaTemplate: db })).toBe(true);
    expect(policy.isResourceAllowed('reader', 'docs', 'file:///secret/a', { viaTemplate: () => true })).toBe(false);
  });

  test('decided on the canonical URI and every reading of it; what does not parse is refused, even by an open policy', () => {
    for (const uri of ['file:///public/../secret/k', 'FILE:///public/%2e%2E/secret/k', 'file:///public/..%2Fsecret%2Fk', 'file:///public/%252e%252e/secret/k', 'file:////secret/k', 'file:///se\tcret/k']) {
      expect(policy.isResourceAllowed('reader', 'docs', uri), uri).toBe(false);
    }
    expect(policy.isResourceAllowed('reader', 'docs', 'file:///public/./a.txt')).toBe(true);
    expect(policy.isResourceAllowed('reader', 'docs', '../a.txt')).toBe(false);
    expect(policy.isResourceAllowed('reader', 'docs', 'http://user:pw@example.com/a.txt')).toBe(false);
    expect(new Policy({}).isResourceAllowed(undefined, 'docs', 'not a uri')).toBe(false);
    expect(new Policy({}).isResourceAllowed(undefined, 'docs', 'file:///secret/x')).toBe(true);
  });

  test('isResourceDenied: only deny patterns, over every reading; a value that is not a URI is not denied', () => {
    expect(policy.isResourceDenied('reader', 'docs', 'file:///public/%2e%2e/secret/k')).toBe(true);
    expect(policy.isResourceDenied('reader', 'docs', 'https://example.com/')).toBe(false);
    expect(policy.isResourceDenied('reader', 'docs', 'chapter one')).toBe(false);
  });

  test('a Windows short name is refused where a deny rule applies to the server: the gateway cannot tell which long name it stands for', () => {
    expect(policy.isResourceAllowed('reader', 'docs', 'file:///SECRE~1/keys.txt')).toBe(false);
    expect(policy.isResourceAllowed('reader', 'docs', 'file:///public/READ~1.TXT')).toBe(false);
    expect(policy.isResourceDenied('reader', 'docs', 'file:///SECRE~1/keys.txt')).toBe(true);
    expect(policy.isResourceAllowed('reader', 'docs', 'file:///public/a~b.txt')).toBe(true);
  });

  test('lenient readers: ;params, trailing dots and spaces, NTFS streams, lookalike slashes and case after decoding do not pass a deny rule', () => {
    for (const uri of [
      'file:///public/..;/secret/keys.txt',
      'file:///secret./keys.txt',
      'file:///secret%20/keys.txt',
      'file:///secret::$INDEX_ALLOCATION/keys.txt',
      'file:///public/..\u2215secret/keys.txt',
      'notes:///private-diary',
      'notes://private-diary.:80/',
    ]) expect(policy.isResourceAllowed('reader', 'docs', uri), uri).toBe(false);
    expect(policy.isResourceAllowed('reader', 'docs', 'file:///public/readme.txt')).toBe(true);
    expect(policy.isResourceAllowed('reader', 'docs', 'file:///public/v1.2/notes.txt')).toBe(true);
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
    expect(policy.isResourceAllowed('toolsOnly', 'docs', 'file:///a.txt')).toBe(false);
    expect(policy.isRelayAllowed('toolsOnly', 'prompts', 'docs', ['summarize'])).toBe(false);
  });

  test('an unknown persona is allowed nothing; without personas everything is allowed', () => {
    expect(policy.isRelayAllowed('visitor', 'prompts', 'docs', ['summarize'])).toBe(false);
    expect(new Policy({}).isResourceAllowed(undefined, 'docs', 'file:///secret/x')).toBe(true);
  });

  test('a typo in the new keys is a schema error, not a silently open persona', () => {
    const r = personasSchema.safeParse({ p: { allow: ['*'], resources: { alow: ['*'] } } });
    expect(r.success).toBe(false);
  });

  test("the repository's personas.yaml loads: admin may use every resource and prompt, the others none", () => {
    const personas = personasSchema.parse(load(readFileSync(join(ROOT, 'personas.yaml'), 'utf8')));
    const p = new Policy(personas);
    expect(p.isResourceAllowed('admin', 'academics', 'university://anything')).toBe(true);
    expect(p.isRelayAllowed('admin', 'prompts', 'finance', ['any_prompt'])).toBe(true);
    for (const persona of ['student', 'faculty', 'executive']) {
      expect(p.isResourceAllowed(persona, 'academics', 'university://anything'), persona).toBe(false);
      expect(p.isRelayAllowed(persona, 'prompts', 'academics', ['any_prompt']), persona).toBe(false);
    }
  });
});
