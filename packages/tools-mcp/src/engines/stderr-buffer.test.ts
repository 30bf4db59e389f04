import { describe, expect, it } from 'vitest';
import { StderrBuffer } from './stderr-buffer.js';

describe('StderrBuffer', () => {
  it('keeps exactly the last characters up to the limit, across chunks of any size', () => {
    const buffer = new StderrBuffer(100);
    let written = '';
    for (let index = 0; index < 500; index++) {
      const chunk = `${index}:${'x'.repeat(index % 37)}\n`;
      buffer.append(chunk);
      written += chunk;
    }
    expect(buffer.tail()).toBe(written.slice(-100).trim());
    buffer.append('y'.repeat(1_000));
    expect(buffer.tail()).toBe('y'.repeat(100));
  });

  it('quotes at most maxChars, marking the cut', () => {
    const buffer = new StderrBuffer(1_000);
    buffer.append(`${'a'.repeat(50)}the end`);
    expect(buffer.tail(7)).toBe('…the end');
    expect(new StderrBuffer(1_000).tail()).toBe('');
    const off = new StderrBuffer(0);
    off.append('anything');
    expect(off.tail()).toBe('');
  });
});
