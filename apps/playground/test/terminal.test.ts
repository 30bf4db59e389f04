import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { baseEnv, cliPath } from './support/cli.js';

// `script` (util-linux) gives the CLI a real pseudo-terminal, as a user's terminal does.
const hasScript = spawnSync('script', ['--version']).status === 0;
const esc = String.fromCharCode(27);
const colour = new RegExp(`${esc}\\[[0-9;]*m`);
const count = (text: string, code: string) => text.split(`${esc}${code}`).length - 1;

function runOnTerminal(args: string, env: Record<string, string> = {}): string {
  const result = spawnSync(
    'script',
    ['-qec', `${JSON.stringify(process.execPath)} ${JSON.stringify(cliPath)} ${args}`, '/dev/null'],
    { env: baseEnv(env), encoding: 'utf8', input: '', timeout: 60_000 },
  );
  expect(result.status).toBe(0);
  return result.stdout;
}

describe.skipIf(!hasScript)('on a terminal (a pseudo-terminal from `script`)', () => {
  it('colours, a live progress bar for the MCP call, and the terminal put back afterwards', () => {
    const out = runOnTerminal('--flow mcp');
    expect(out).toMatch(colour);
    const plain = out.replace(new RegExp(colour.source, 'g'), '');
    expect(plain).toMatch(/⏵ everything__trigger-long-running-operation [█░]{24}\s+\d+% \d\/6/);
    // cli-progress hides the cursor and turns line wrap off while bars are drawn: both are
    // restored, as many times as they were changed.
    expect(count(out, '[?25l')).toBeGreaterThan(0);
    expect(count(out, '[?25h')).toBe(count(out, '[?25l'));
    expect(out.lastIndexOf(`${esc}[?7h`)).toBeGreaterThan(out.lastIndexOf(`${esc}[?7l`));
    // A line printed above the bars (a result) turns wrap back on, so a long one is not cut
    // at the terminal's edge.
    expect(out).toContain(`${esc}[?7h${esc}[J  ${esc}[32m✓`);
    expect(out).toContain('✔ done');
  });

  it('NO_COLOR: no colour codes at all, the live bar still drawn', () => {
    const out = runOnTerminal('--flow mcp', { NO_COLOR: '1' });
    expect(out).not.toMatch(colour);
    expect(out).toMatch(/⏵ everything__trigger-long-running-operation [█░]{24}/);
    expect(out).toContain('✔ done');
  });
});
