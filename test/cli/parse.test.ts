/**
 * The command line table and its parser: each command takes only its own flags and the
 * common ones, every value is checked before a command runs, and the messages say what to
 * do. The built CLI is run for the flags the issue found silently ignored.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { commandHelp, parseCommandLine, usage, usageLine, UsageError } from '../../src/cli/parse.js';
import { CLI } from '../helpers/reference.js';

function refused(argv: string[]): string {
  try {
    parseCommandLine(argv);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error(`${argv.join(' ')} was accepted`);
}

describe('parseCommandLine', () => {
  it('gives each command its typed flags and arguments', () => {
    expect(parseCommandLine(['select', 'pay', 'my', 'fees', '--top-k', '3', '--mode', 'bm25', '--explain'])).toEqual({
      command: 'select',
      flags: { 'top-k': 3, mode: 'bm25', explain: true },
      args: ['pay', 'my', 'fees'],
    });
    expect(parseCommandLine(['serve', '--http', '0', '--exposure', 'static', '--config', 'g.yaml', '--log-format', 'json'])).toEqual({
      command: 'serve',
      flags: { http: 0, exposure: 'static', config: 'g.yaml', 'log-format': 'json' },
      args: [],
    });
    expect(parseCommandLine(['eval', 'eval/university.yaml', '--sample', '60'])).toEqual({ command: 'eval', flags: { sample: 60 }, args: ['eval/university.yaml'] });
    expect(parseCommandLine(['approvals', 'deny', 'abc', '--key-file', 'k'])).toEqual({ command: 'approvals', flags: { 'key-file': 'k' }, args: ['deny', 'abc'] });
    expect(parseCommandLine(['definitions', 'accept', '--all', '--upstream', 'mail', '--yes'])).toEqual({ command: 'definitions', flags: { all: true, upstream: 'mail', yes: true }, args: ['accept'] });
  });

  it('refuses a flag of another command, naming the commands that take it', () => {
    expect(refused(['serve', '--mode', 'bogus'])).toBe(
      `serve: unknown flag --mode (a flag of select, eval, lint)\nusage: ${usageLine('serve')}\n(tool-curator serve --help lists the flags)`,
    );
    expect(refused(['serve', '--top-k', '3']).split('\n')[0]).toBe('serve: unknown flag --top-k (a flag of select, eval, lint)');
    expect(refused(['doctor', '--persona', 'student']).split('\n')[0]).toBe('doctor: unknown flag --persona (a flag of serve, select, tools, lint, learned)');
  });

  it('suggests the closest flag for a typo', () => {
    expect(refused(['select', 'x', '--explian']).split('\n')[0]).toBe('select: unknown flag --explian; did you mean --explain?');
    expect(refused(['serve', '--explian']).split('\n')[0]).toBe('serve: unknown flag --explian; did you mean --explain (a flag of select)?');
    expect(refused(['serv']).split('\n')[0]).toBe('unknown command "serv"; did you mean "serve"?');
  });

  it('checks values: choices, positive counts, ports', () => {
    expect(refused(['select', 'x', '--mode', 'bogus']).split('\n')[0]).toBe('select: --mode "bogus" is not one of none, bm25, dense, hybrid');
    expect(refused(['serve', '--exposure', 'sometimes']).split('\n')[0]).toBe('serve: --exposure "sometimes" is not one of static, dynamic');
    expect(refused(['eval', 'dev', '--sample', '0']).split('\n')[0]).toBe('eval: --sample needs a positive integer (at most 1000000), got "0"');
    expect(refused(['select', 'x', '--top-k', '2.5']).split('\n')[0]).toBe('select: --top-k needs a positive integer (at most 10000), got "2.5"');
    expect(refused(['serve', '--http', '70000']).split('\n')[0]).toBe('serve: --http needs a port number (0–65535), got "70000"');
    expect(refused(['serve', '--log-format', 'xml']).split('\n')[0]).toBe('serve: --log-format "xml" is not one of json, pretty');
    expect(refused(['serve', '--http']).split('\n')[0]).toMatch(/^serve: Option '--http <value>' argument missing/);
  });

  it('bounds every count and reads a negative number after a number flag as its value', () => {
    const first = (argv: string[]) => refused(argv).split('\n')[0];
    expect(first(['audit', '--tail', '99999999999999999999'])).toBe('audit: --tail needs a positive integer (at most 1000000), got "99999999999999999999"');
    expect(first(['audit', '--tail', '1000001'])).toBe('audit: --tail needs a positive integer (at most 1000000), got "1000001"');
    expect(parseCommandLine(['audit', '--tail', '1000000'])).toEqual({ command: 'audit', flags: { tail: 1_000_000 }, args: [] });
    expect(first(['audit', '--tail', '-5'])).toBe('audit: --tail needs a positive integer (at most 1000000), got "-5"');
    expect(first(['audit', '--tail=-5'])).toBe('audit: --tail needs a positive integer (at most 1000000), got "-5"');
    expect(first(['select', 'x', '--top-k', '-2'])).toBe('select: --top-k needs a positive integer (at most 10000), got "-2"');
    expect(first(['select', 'x', '--top-k', '10001'])).toBe('select: --top-k needs a positive integer (at most 10000), got "10001"');
    expect(first(['eval', 'dev', '--sample', '-1.5'])).toBe('eval: --sample needs a positive integer (at most 1000000), got "-1.5"');
    expect(first(['serve', '--http', '-1'])).toBe('serve: --http needs a port number (0–65535), got "-1"');
    // Only the value of a number flag: a query that starts with a dash is still refused as a flag.
    expect(first(['select', '--top-k', '3', '-5'])).toBe('select: unknown flag --5');
  });

  it('checks the arguments: a query for select, one target for eval, none for serve', () => {
    expect(refused(['select']).split('\n')[0]).toBe('select: needs "<query>"');
    expect(refused(['eval', 'dev', 'public']).split('\n')[0]).toBe('eval: takes <suite.yaml|metatool|toollens|api_bank|mcptoolbenchpp|livemcpbench|public|dev|calibrate|all>, got 2 arguments');
    expect(refused(['serve', 'student']).split('\n')[0]).toBe('serve: takes no arguments, got "student"');
    expect(refused(['--config', 'x.yaml', 'serve']).split('\n')[0]).toBe('the command comes first: tool-curator <command> [flags], e.g. tool-curator serve --config');
  });

  it('help and version', () => {
    expect(parseCommandLine([])).toEqual({ command: 'help' });
    expect(parseCommandLine(['--help'])).toEqual({ command: 'help' });
    expect(parseCommandLine(['--version'])).toEqual({ command: 'version' });
    expect(parseCommandLine(['index', '--help'])).toEqual({ command: 'index', flags: { help: true }, args: [] });
    expect(commandHelp('index').split('\n')).toEqual([
      'Usage: tool-curator index [--write-vectors F] [--strict] [--config F]',
      'build the embeddings index and exit (a progress bar on a terminal)',
      '',
      expect.stringMatching(/^ {2}--write-vectors F +also embed every text of the catalog afresh/),
      expect.stringMatching(/^ {2}--strict +a persona pattern that matches no tool of a connected upstream, or a pinned tool name \(exposure\.pinned\) of no tool, is an error/),
      expect.stringMatching(/^ {2}--config F +gateway\.config\.yaml to use/),
      expect.stringMatching(/^ {2}--log-format json\|pretty +log lines on stderr/),
      expect.stringMatching(/^ {2}--help +this help$/),
    ]);
    for (const name of Object.keys(COMMANDS)) expect(usage()).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
  });
});

describe('the built CLI', () => {
  it('serve --mode bogus --top-k 3 --explain exits 2 with the usage, before starting anything', () => {
    const r = spawnSync(process.execPath, [CLI, 'serve', '--mode', 'bogus', '--top-k', '3', '--explain'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`tool-curator: serve: unknown flag --mode (a flag of select, eval, lint)\nusage: ${usageLine('serve')}\n(tool-curator serve --help lists the flags)\n`);
  });

  it('audit --tail out of bounds exits 2 with the usage, before the store is read', () => {
    for (const tail of ['99999999999999999999', '-5']) {
      const r = spawnSync(process.execPath, [CLI, 'audit', '--tail', tail, '--config', 'no-such-config.yaml'], { encoding: 'utf8', timeout: 60_000 });
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`tool-curator: audit: --tail needs a positive integer (at most 1000000), got "${tail}"\nusage: ${usageLine('audit')}\n(tool-curator audit --help lists the flags)\n`);
    }
  });

  it('eval refuses --sample where it cannot honour it', () => {
    const r = spawnSync(process.execPath, [CLI, 'eval', 'dev', '--sample', '60'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`tool-curator: eval: --sample takes a suite file, a data set or public; dev always runs whole\nusage: ${usageLine('eval')}\n`);
  });

  it('--version prints the package version; no arguments print the usage with exit 2', () => {
    const v = spawnSync(process.execPath, [CLI, '--version'], { encoding: 'utf8', timeout: 60_000 });
    expect(v.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const u = spawnSync(process.execPath, [CLI], { encoding: 'utf8', timeout: 60_000 });
    expect(u.status).toBe(2);
    expect(u.stdout).toBe(`${usage()}\n`);
  });
});
