// Runs the token bench (issue 25) so it cannot rot: every framework completes the scripted
// conversation, and the figures the README quotes hold.
import { describe, expect, it } from 'vitest';
import { formatTokenRows, runTokenBench } from './token-bench.mjs';
import { formatToolSearch, runToolSearchBench } from './tool-search-bench.mjs';

describe('token bench', () => {
  it('runs every framework through the 5-turn conversation and measures bytes and facts', async () => {
    const rows = await runTokenBench();
    const row = (label) => {
      const found = rows.find((candidate) => candidate.label.startsWith(label));
      if (found === undefined) throw new Error(`no row ${label}`);
      return found;
    };
    for (const each of rows) expect(each.requests, each.label).toBe(6);
    const baseline = row('AI SDK, default');
    expect(baseline).toMatchObject({ start: 5, end: 5 });
    // The cut before issue 25 lost the end of every long result.
    expect(row('agcore, former default')).toMatchObject({ start: 5, end: 1 });
    expect(row('agcore, default')).toMatchObject({ start: 5, end: 5 });
    const budget = row('agcore, spill + clearOldResults');
    expect(budget).toMatchObject({ start: 5, end: 5 });
    expect(budget.bytes).toBeLessThanOrEqual(baseline.bytes * 0.25);
    expect(formatTokenRows(rows)).toContain('| AI SDK, default | 6 |');
  }, 60_000);

  it('finds the 3 tools a task needs among 200 MCP tools, sending >= 90 % fewer definition bytes', async () => {
    const result = await runToolSearchBench();
    expect(result.tools).toBe(200);
    expect(result.realTools).toBeGreaterThan(30);
    expect(result.finished).toBe(true);
    expect(result.turns).toBe(5);
    for (const bytes of result.withBytesPerTurn) {
      expect(bytes).toBeLessThanOrEqual(result.withoutBytesPerTurn * 0.1);
    }
    expect(formatToolSearch(result)).toContain('finished');
  }, 60_000);
});
