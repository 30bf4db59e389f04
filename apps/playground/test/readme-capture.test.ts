// The captured runs in the root README and this app's README are a real run of the default
// flow, piped, so they cannot drift from what the playground prints. When they differ (beyond
// pids, durations and token counts), `pnpm --filter @agcore/playground readme:update` runs this
// file in its update mode and writes the run into both.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { capturedBlock, normalizeRun, replaceCapturedBlock } from './support/captured-run.js';
import { runCli } from './support/cli.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const readmes = [path.resolve(here, '../README.md'), path.resolve(here, '../../../README.md')];
const updating = (import.meta as { env?: { MODE?: string } }).env?.MODE === 'update-readmes';

describe('the captured runs in the READMEs', () => {
  it('are what `pnpm playground` prints, piped (80 columns)', async () => {
    const result = await runCli([]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const run = result.stdout;
    for (const readme of readmes) {
      if (updating) replaceCapturedBlock(readme, run);
      const block = capturedBlock(readme);
      expect(normalizeRun(block), `${readme} (run readme:update)`).toBe(normalizeRun(run));
      // What normalizing leaves out of the comparison still has to fit a piped screen.
      for (const line of block.split('\n').filter((text) => /^[┌│└]/.test(text))) {
        expect(stringWidth(line), line).toBeLessThanOrEqual(80);
      }
    }
  });

  it('normalizing keeps what a reader would notice', () => {
    const run = [
      'tools: 7 built-in · everything (MCP, pid 4242): 13 tools',
      '  ✓ calculator 1 ms {"expression":"(22 + 14) / 2","result":18}',
      '  … everything__trigger-long-running-operation progress 2/4 (50%)',
      '  … everything__trigger-long-running-operation progress 4/4 (100%)',
      '│ wall time  │   2.0 s │      │',
    ].join('\n');
    const same = normalizeRun(run);
    expect(normalizeRun(run.replace('7 built-in', '5 built-in'))).not.toBe(same);
    expect(normalizeRun(run.replace('"result":18', '"result":19'))).not.toBe(same);
    expect(normalizeRun(run.replace('4/4 (100%)', '3/4 (75%)'))).not.toBe(same);
    expect(normalizeRun(run.replace('pid 4242', 'pid 7'))).toBe(same);
    expect(normalizeRun(run.replace('1 ms', '912 ms').replace('2.0 s', '3 min 58 s'))).toBe(same);
    expect(normalizeRun(run.replace('2/4 (50%)', '3/4 (75%)'))).toBe(same);
  });
});
