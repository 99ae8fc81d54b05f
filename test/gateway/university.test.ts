/**
 * The bundled example end to end: the eight university servers behind the built gateway
 * with the repository's personas, synonyms, dependencies and exemplars, the USE embedder,
 * and a real MCP client as the host.
 */
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectGateway, INDEX_READY_MS, ROOT } from '../helpers/reference.js';
import { cli, CLI_TIMEOUT_MS, text, universityConfig, type University } from '../guards/university.js';

const policyFiles = {
  personas: join(ROOT, 'personas.yaml'),
  synonyms: join(ROOT, 'domain_synonyms.json'),
  dependencies: join(ROOT, 'dependencies.yaml'),
  exemplars: join(ROOT, 'exemplars.json'),
};

describe('university testbed through the gateway', () => {
  let uni: University;

  beforeAll(() => {
    // The shipped vectors of the example: the index is warm as soon as the upstreams are in.
    uni = universityConfig({ curator: { mode: 'hybrid', top_k: 12, embedder: 'use', vectors: join(ROOT, 'university.vectors') }, policy: policyFiles });
  });

  it.each([
    ['student', 87],
    ['faculty', 65],
    ['executive', 27],
    ['admin', 191],
  ])('the %s persona sees %i tools', (persona, count) => {
    const r = cli(uni.configPath, ['tools', '--persona', String(persona), '--json']);
    expect(r.code).toBe(0);
    const parsed = JSON.parse(r.stdout) as { upstreams: { state: string }[]; tools: { name: string }[] };
    expect(parsed.upstreams.filter((u) => u.state === 'ready')).toHaveLength(8);
    expect(parsed.tools).toHaveLength(count);
  }, CLI_TIMEOUT_MS + 30_000);

  describe('a student host', () => {
    let client: Client;

    beforeAll(async () => {
      // Waits for the index (seeded from university.vectors) and the eight upstreams.
      ({ client } = await connectGateway(uni.configPath, ['--persona', 'student', '--user-id', 'S0003']));
    }, INDEX_READY_MS + 30_000);
    afterAll(async () => {
      await client?.close();
    });

    it('finds get_exam_eligibility for "am I allowed to sit my exams" and gets the student\'s real status', async () => {
      const found = JSON.parse(text(await client.callTool({ name: 'find_tools', arguments: { query: 'am I allowed to sit my exams' } }))) as {
        tools: { name: string; inputSchema: { properties?: Record<string, unknown> } }[];
      };
      const names = found.tools.map((t) => t.name);
      expect(names.slice(0, 3)).toContain('get_exam_eligibility');
      // The dependency rule brings the two checks eligibility depends on.
      expect(names).toEqual(expect.arrayContaining(['get_attendance_summary', 'get_fee_dues']));
      // student_id is the session's: it is not offered to the model.
      const schema = found.tools.find((t) => t.name === 'get_exam_eligibility')!.inputSchema;
      expect(Object.keys(schema.properties ?? {})).not.toContain('student_id');

      const r = await client.callTool({ name: 'get_exam_eligibility', arguments: {} });
      expect(r.isError).toBeFalsy();
      const body = text(r);
      // S0003 is barred in CE701 for attendance (28 of 41 classes, 68.3 %).
      expect(body).toContain('S0003');
      expect(body).toContain('CE701');
      expect(body).toMatch(/68\.3/);
    });
  });
});
