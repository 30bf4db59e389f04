/**
 * Issue 32 §6: `read_result` with `grep` on a result that is one long line (minified JSON, the
 * common case for tool results) shows a window around each match, labelled with its byte
 * offsets, whatever the line's length; the needle is literal; an empty one is refused.
 */
import { ToolRegistry } from '@agcore/tools-registry';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readResultTool } from './read-result.js';
import { MemoryResultStore } from './result-store.js';

const encoder = new TextEncoder();

/** `read_result` over `content`, kept under handle `h`, through a registry (arguments checked). */
async function reader(content: string, maxBytes = 7_936) {
  const store = new MemoryResultStore();
  await store.put('h', content);
  const registry = new ToolRegistry().register(readResultTool(store, maxBytes));
  return async (args: Record<string, unknown>) => {
    const { output } = await registry.invoke('read_result', { handle: 'h', ...args });
    return output;
  };
}

async function grepOf(content: string, grep: string, maxBytes?: number): Promise<string> {
  const output = await (await reader(content, maxBytes))({ grep });
  if (!output.ok) throw output.error;
  return String(output.value);
}

interface Window {
  readonly line: number;
  readonly from: number;
  readonly to: number;
  readonly text: string;
}

/** The labelled windows of an answer (`N: [bytes a-b] text`). */
function windowsIn(answer: string): Window[] {
  const windows: Window[] = [];
  for (const entry of answer.split('\n')) {
    const found = /^(\d+): \[bytes (\d+)-(\d+)\] /.exec(entry);
    if (found === null) continue;
    windows.push({
      line: Number(found[1]),
      from: Number(found[2]),
      to: Number(found[3]),
      text: entry.slice(found[0].length),
    });
  }
  return windows;
}

/** Whether each window's text is exactly the bytes its label names (a lone surrogate as U+FFFD). */
function labelsTrue(content: string, windows: readonly Window[]): boolean {
  const bytes = encoder.encode(content);
  return windows.every(
    (window) =>
      Buffer.compare(encoder.encode(window.text), bytes.subarray(window.from, window.to)) === 0,
  );
}

/** Minified JSON of `count` records, one line. */
function minified(count: number, special?: number): string {
  const records = Array.from({ length: count }, (_, index) => ({
    id: index,
    name: `record-${index}`,
    note: index === special ? 'the DEADLOCK detected here' : 'all quiet, nothing to see',
  }));
  return JSON.stringify(records);
}

describe('read_result grep on one long line', () => {
  it('shows the match with 200 characters each side, labelled with its byte offsets', async () => {
    const content = minified(2_000, 1_234);
    const answer = await grepOf(content, 'deadlock');
    const windows = windowsIn(answer);
    expect(windows).toHaveLength(1);
    const at = content.indexOf('DEADLOCK');
    const [window] = windows;
    expect(window?.line).toBe(1);
    expect(window?.text).toBe(content.slice(at - 200, at + 'DEADLOCK'.length + 200));
    expect(window?.from).toBe(at - 200); // ASCII: bytes are characters
    expect(answer).toBe(`1: [bytes ${at - 200}-${at + 208}] ${window?.text}`);
    expect(labelsTrue(content, windows)).toBe(true);
  });

  it('merges overlapping windows and keeps apart the others, in order', async () => {
    const filler = 'x'.repeat(5_000);
    const content = `${filler}NEEDLE${'y'.repeat(100)}needle${filler}Needle${filler}`;
    const windows = windowsIn(await grepOf(content, 'needle'));
    expect(windows.map((window) => [window.from, window.to])).toEqual([
      [4_800, 5_000 + 6 + 100 + 6 + 200],
      [10_112 - 200, 10_112 + 6 + 200],
    ]);
    expect(labelsTrue(content, windows)).toBe(true);
  });

  it('counts bytes, not characters, and never splits a character', async () => {
    const content = `${'é中😀'.repeat(2_000)}TARGET${'😀é'.repeat(2_000)}`;
    const windows = windowsIn(await grepOf(content, 'target'));
    expect(windows).toHaveLength(1);
    expect(windows[0]?.text).toContain('TARGET');
    expect(windows[0]?.text.includes('\uFFFD')).toBe(false);
    expect(labelsTrue(content, windows)).toBe(true);
  });

  it('looks for the needle literally, not as a pattern', async () => {
    const content = `${'z'.repeat(1_000)}abc a.c (x|y) ${'z'.repeat(1_000)}`;
    expect(await grepOf(content, 'a.c')).toMatch(/^1: \[bytes 804-1207\] z+abc a\.c \(x\|y\) z+$/);
    expect(windowsIn(await grepOf(content, 'a.c'))[0]?.text).toContain('abc a.c');
    expect(await grepOf(content, '(x|y)')).toContain('(x|y)');
    expect(await grepOf(content, 'x|y')).toContain('(x|y)');
    expect(await grepOf(content, '.*')).toBe('[no line contains ".*"]');
    expect(await grepOf('a short line\nA+B\n', 'a+b')).toBe('2: A+B');
  });

  it('refuses an empty needle with invalid_arguments', async () => {
    const output = await (await reader('anything'))({ grep: '' });
    expect(output.ok).toBe(false);
    expect(output.ok ? undefined : output.error.code).toBe('invalid_arguments');
    const store = new MemoryResultStore();
    await store.put('h', 'anything');
    const tool = readResultTool(store, 1_000);
    await expect(tool.execute({ handle: 'h', grep: '' }, {} as never)).rejects.toMatchObject({
      code: 'invalid_arguments',
    });
  });

  it('past the read cap, says where in the line to read on', async () => {
    const content = Array.from(
      { length: 20 },
      (_, index) => `${'q'.repeat(1_000)}HIT${index}`,
    ).join('');
    const answer = await grepOf(content, 'hit', 1_000);
    const windows = windowsIn(answer);
    expect(windows.length).toBeGreaterThan(0);
    expect(windows.length).toBeLessThan(20);
    const next = windows.length * 1_004 + 1_000 - 200; // each record: 1 000 q, HIT, a digit
    expect(answer.split('\n').at(-1)).toBe(
      `[more matches in line 1 from byte ${next}: read_result({"handle":"h","offset":${next}}) reads on from there; grep with "offset":2 looks at the lines after]`,
    );
  });

  it('shows every match, whatever the line lengths (property)', async () => {
    // Text of every UTF-8 length (a lone surrogate too), the needle now and then, in either case.
    const piece = fc.oneof(
      { arbitrary: fc.constantFrom('x', 'é', '中', '😀', '{"a":1}', ' ', '\uD800'), weight: 40 },
      { arbitrary: fc.constantFrom('NEEDLE', 'needlE', 'needle'), weight: 1 },
    );
    const line = fc
      .oneof(
        fc.array(piece, { maxLength: 4_000, size: 'max' }),
        fc.array(piece, { maxLength: 300, size: 'max' }),
      )
      .map((pieces) => pieces.join(''));
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 3 }), async (lines) => {
        const content = lines.join('\n');
        const answer = await grepOf(content, 'needle', 1_000_000);
        const windows = windowsIn(answer);
        expect(labelsTrue(content, windows)).toBe(true);
        let lineByte = 0;
        lines.forEach((text, index) => {
          const number = index + 1;
          const matches = [...text.matchAll(/needle/gi)];
          if (matches.length > 0 && text.length <= 500) {
            expect(answer.split('\n')).toContain(`${number}: ${text}`);
          }
          let before = 0;
          let beforeBytes = 0;
          for (const match of text.length > 500 ? matches : []) {
            beforeBytes += encoder.encode(text.slice(before, match.index)).length;
            before = match.index;
            const from = lineByte + beforeBytes;
            const to = from + 6;
            const shown = windows.some(
              (window) => window.line === number && window.from <= from && to <= window.to,
            );
            expect(shown, `line ${number}, match at byte ${from}`).toBe(true);
          }
          lineByte += encoder.encode(text).length + 1;
        });
        if (windows.length === 0 && !/needle/i.test(content)) {
          expect(answer).toBe('[no line contains "needle"]');
        }
      }),
      { seed: 20_261_208, numRuns: 150 },
    );
  });
});
