import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CompareError, parseCompareArgs, suiteCommand } from './compare.mjs';

const cli = fileURLToPath(new URL('./compare-cli.mjs', import.meta.url));

describe('bench:compare', () => {
  it('parses the ref, the suite and what it passes on', () => {
    const options = parseCompareArgs([
      '--',
      'main',
      '--suite',
      'loop',
      '--pairs',
      '24',
      '--single-threaded-gc',
    ]);
    expect(options.ref).toBe('main');
    expect(options.suite).toBe('loop');
    expect(options.pass).toEqual(['--pairs', '24']);
    const { command, args, cwd } = suiteCommand(options, '/tmp/a', '/tmp/b');
    expect(command).toBe(process.execPath);
    expect(cwd).toBe('/tmp/b/apps/bench');
    expect(args).toEqual([
      '--expose-gc',
      '--single-threaded-gc',
      'src/ab/run.mjs',
      '--root-a',
      '/tmp/a',
      '--root-b',
      '/tmp/b',
      '--pairs',
      '24',
    ]);
  });

  it('refuses no ref, an unknown option and an unknown suite', () => {
    expect(() => parseCompareArgs([])).toThrow(CompareError);
    expect(() => parseCompareArgs(['main', '--fast'])).toThrow(/unknown option --fast/);
    expect(() => parseCompareArgs(['main', '--suite', 'nope'])).toThrow(/unknown suite nope/);
  });

  it('end to end: an unknown ref fails with a clear message before anything is built', () => {
    const result = spawnSync(process.execPath, [cli, 'no-such-ref-29', '--pairs', '20'], {
      encoding: 'utf8',
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('bench:compare: unknown git ref "no-such-ref-29"');
    expect(result.stderr).not.toContain('worktree add');
  });
});

describe('bench:compare suites of the packages', () => {
  it('hands --collect and --no-collect to the suite', () => {
    const options = parseCompareArgs(['main', '--suite', 'tools-mcp', '--no-collect']);
    expect(options.pass).toEqual(['--no-collect']);
    expect(parseCompareArgs(['main', '--collect']).pass).toEqual(['--collect']);
  });

  it.each([
    ['tools-mcp', 'packages/tools-mcp', ['--import', 'tsx', 'src/call-tool.bench.ts']],
    ['tools-mcp-server', 'packages/tools-mcp-server', ['scripts/bench.mjs', '--method']],
    ['tools-registry', 'packages/tools-registry', ['bench/invoke.bench.mjs']],
  ])('--suite %s runs in %s with the roots after its script', (suite, folder, script) => {
    const options = parseCompareArgs(['a0f7b0a', '--suite', suite, '--pairs', '30']);
    const { cwd, args } = suiteCommand(options, '/tmp/a', '/tmp/b');
    expect(cwd).toBe(`/tmp/b/${folder}`);
    expect(args).toEqual([
      '--expose-gc',
      ...script,
      '--root-a',
      '/tmp/a',
      '--root-b',
      '/tmp/b',
      '--pairs',
      '30',
    ]);
  });
});
