// `--only` keeps the other suites' figures from the report it overwrites, and says so.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keepOtherSuites } from './previous-run.mjs';

const directories = [];
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

function reportWith(results) {
  const directory = mkdtempSync(join(tmpdir(), 'bench-previous-'));
  directories.push(directory);
  const path = join(directory, 'benchmarks.md');
  writeFileSync(
    path,
    `# Benchmarks\n\n\`\`\`sh\npnpm bench\n\`\`\`\n\n<details>\n\n\`\`\`json\n${JSON.stringify(results)}\n\`\`\`\n\n</details>\n`,
  );
  return path;
}

describe('keepOtherSuites', () => {
  it('takes the suites not run from the previous report, with their plan, and records which', () => {
    const path = reportWith({
      date: '2026-11-30T10:00:00.000Z',
      plan: { loop: { rounds: 21 }, memory: { count: 500 }, load: { rounds: 3 } },
      loop: { results: { bare: { msPerRun: [4.7] } } },
      loopMemory: { bare: { maxRssMb: 114 } },
      load: { plan: {}, runs: ['old'] },
    });
    const results = {
      plan: { loop: { rounds: 3 }, memory: { count: 30 }, load: { rounds: 1 } },
      load: { runs: ['new'] },
    };
    keepOtherSuites(results, path, new Set(['load']));
    expect(results.loop.results.bare.msPerRun).toEqual([4.7]);
    expect(results.loopMemory.bare.maxRssMb).toBe(114);
    expect(results.plan).toEqual({
      loop: { rounds: 21 },
      memory: { count: 500 },
      load: { rounds: 1 },
    });
    expect(results.load.runs).toEqual(['new']);
    expect(results.kept).toEqual({ suites: ['loop'], date: '2026-11-30T10:00:00.000Z' });
  });

  it('keeps nothing when the file is missing or holds no raw figures', () => {
    const results = { plan: {} };
    keepOtherSuites(results, join(tmpdir(), 'no-such-bench-report.md'), new Set(['load']));
    const empty = reportWith({});
    writeFileSync(empty, '# no figures here\n');
    keepOtherSuites(results, empty, new Set(['load']));
    expect(results).toEqual({ plan: {} });
  });
});
