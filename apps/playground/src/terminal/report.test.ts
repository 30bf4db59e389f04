import picocolors from 'picocolors';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { type RunSummary, renderSummary } from './report.js';

const plain = picocolors.createColors(false);
const summary: RunSummary = {
  turns: 1,
  toolCalls: 0,
  failures: 0,
  truncated: 0,
  promptTokens: 0,
  completionTokens: 0,
  tokens: 'none',
  wallTimeMs: 238_000,
};

describe('the summary table', () => {
  it('prints a wait of minutes on one line, in 80 columns', () => {
    const table = renderSummary(summary, plain, 80);
    const lines = table.split('\n');
    expect(lines.find((line) => line.includes('wall time'))).toContain('3 min 58 s');
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(80);
  });

  it('keeps a large token count on one line too', () => {
    const table = renderSummary(
      { ...summary, tokens: 'reported', promptTokens: 123_456_789, completionTokens: 1 },
      plain,
      80,
    );
    expect(table.split('\n').find((line) => line.includes('tokens'))).toContain('123456790');
  });
});
