/**
 * `serve` over stdio refuses, before spawning anything, a session that could not make a
 * single call: a persona whose identity needs a user id the session lacks. The bundled
 * config's session.user_id (S0001) belongs to its session.persona (student) and is not
 * lent to another persona given with --persona.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../guards/university.js';
import { ROOT } from '../helpers/reference.js';

const CONFIG = join(ROOT, 'gateway.config.yaml');

describe('serve: the stdio session identity is checked at start', () => {
  it('--persona faculty without --user-id is refused, naming the borrowed id', () => {
    const r = cli(CONFIG, ['serve', '--persona', 'faculty']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/persona "faculty" injects faculty_id from \$\{user_id\}/);
    expect(r.stderr).toMatch(/session\.user_id S0001 in .*gateway\.config\.yaml is for session\.persona student, so --persona faculty needs its own --user-id/);
  });

  it('an unknown persona is refused with the known ones', () => {
    const r = cli(CONFIG, ['serve', '--persona', 'dean']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/dean/);
    expect(r.stderr).toMatch(/student/);
  });
});
