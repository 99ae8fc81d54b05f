/**
 * tool-curator lint over the workbench development catalog (eval/workbench-catalog.yaml),
 * with the BM25 curator (no embedder): per-tool issues, look-alike families and confusable
 * pairs with the words that separate them.
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { createCurator } from '../../src/curator/index.js';
import { loadCatalogFile } from '../../src/eval/catalogSuite.js';
import { lintCatalog, toolIssues } from '../../src/eval/lint.js';
import { ROOT } from '../helpers/reference.js';
import { tool } from '../curator/fakeEmbedder.js';

describe('lint', () => {
  const catalog = loadCatalogFile(join(ROOT, 'eval/workbench-catalog.yaml'));
  const named = (n: string) => catalog.find((t) => t.name === n)!;

  test('per tool: empty and short descriptions, undescribed parameters, documentation', () => {
    expect(toolIssues(named('list_channels')).map((i) => [i.kind, i.detail])).toEqual([
      ['empty-description', 'no description: found only by its name and parameters'],
      ['undescribed-parameters', 'limit, cursor'],
    ]);
    expect(toolIssues(named('dividends')).map((i) => i.kind)).toEqual(['short-description', 'undescribed-parameters']);
    expect(toolIssues(named('web_search')).map((i) => i.detail)).toEqual(['query']);
    const manual = tool('deploy', `Deploys the app.\n\n## Usage\n\n\`\`\`sh\ndeploy --prod\n\`\`\`\n${'More notes on flags and environments. '.repeat(14)}`, { target: 'Where to deploy' });
    expect(toolIssues(manual).map((i) => i.kind)).toEqual(['documentation']);
  });

  test('look-alike families by name, each member with the words only it has; confusable pairs with what separates them', async () => {
    const curator = createCurator({ mode: 'bm25', embedder: null });
    await curator.buildIndex(catalog);
    const r = await lintCatalog({ curator, catalog, extra: {}, personas: new Map([['user', catalog]]), topK: 17 });
    const chart = r.families.find((f) => f.word === 'chart')!;
    expect(chart.members.map((m) => m.tool)).toEqual(['bar_chart', 'line_chart', 'pie_chart']);
    expect(chart.members.find((m) => m.tool === 'pie_chart')!.separatedBy).toContain('pie');
    const task = r.families.find((f) => f.word === 'task')!;
    expect(task.members.map((m) => m.tool)).toEqual(['add_task', 'list_tasks', 'complete_task']);
    const [persona] = r.personas;
    expect([persona!.tools, persona!.fullTokens > persona!.curatedTokens]).toEqual([80, true]);
    const pair = persona!.confusable.find((p) => p.tool === 'list_tasks');
    expect(pair?.rival).toBe('complete_task');
    expect(pair?.separatedBy.rival).toContain('complete');
  });
});
