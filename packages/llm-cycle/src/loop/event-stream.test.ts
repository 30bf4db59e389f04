import { describe, expect, it } from 'vitest';
import type { ChatResponse } from '../chat-provider.js';
import type { StreamEvent } from '../stream-events.js';
import { EventStream } from './event-stream.js';

const final: ChatResponse = {
  id: 'chatcmpl-1',
  model: 'm',
  message: { role: 'assistant', content: 'abcde' },
  finishReason: 'stop',
};

function text(value: string): StreamEvent {
  return { type: 'assistant_text_delta', text: value };
}

/** A source that yields `batches`, records what happened to it, and returns `final`. */
function source(
  batches: readonly (readonly StreamEvent[])[],
  log: string[],
  failAfter?: number,
): AsyncGenerator<readonly StreamEvent[], ChatResponse, undefined> {
  return (async function* () {
    try {
      for (const [index, batch] of batches.entries()) {
        if (index === failAfter) throw new Error('source failed');
        await null;
        log.push(`yield ${index}`);
        yield batch;
      }
      log.push('return');
      return final;
    } catch (error) {
      log.push(`caught ${(error as Error).message}`);
      throw error;
    } finally {
      log.push('finally');
    }
  })();
}

const batches = [[text('a'), text('b')], [text('c')], [text('d'), text('e')]];

describe('EventStream', () => {
  it('hands over the events of each batch in order and ends with the source return value', async () => {
    const log: string[] = [];
    const stream = new EventStream(source(batches, log));
    const seen: string[] = [];
    for (;;) {
      const step = await stream.next();
      if (step.done === true) {
        expect(step.value).toBe(final);
        break;
      }
      seen.push(step.value.type === 'assistant_text_delta' ? step.value.text : '?');
    }
    expect(seen).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(log).toEqual(['yield 0', 'yield 1', 'yield 2', 'return', 'finally']);
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });

  it('answers next() calls made without waiting in call order, as an async generator does', async () => {
    const stream = new EventStream(source(batches, []));
    const steps = await Promise.all(Array.from({ length: 7 }, () => stream.next()));
    expect(steps.map((step) => (step.done === true ? 'done' : step.value))).toEqual([
      text('a'),
      text('b'),
      text('c'),
      text('d'),
      text('e'),
      'done',
      'done',
    ]);
    expect(steps[5]?.value).toBe(final);
  });

  it('return() in the middle of a batch drops the rest and runs the source cleanup (what break does)', async () => {
    const log: string[] = [];
    const stream = new EventStream(source(batches, log));
    const seen: StreamEvent[] = [];
    for await (const event of stream) {
      seen.push(event);
      if (seen.length === 1) break;
    }
    expect(seen).toEqual([text('a')]);
    expect(log).toEqual(['yield 0', 'finally']);
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });

  it('throw() goes to the source where it stopped', async () => {
    const log: string[] = [];
    const stream = new EventStream(source(batches, log));
    await stream.next();
    await expect(stream.throw(new Error('stop here'))).rejects.toThrow('stop here');
    expect(log).toEqual(['yield 0', 'caught stop here', 'finally']);
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });

  it('delivers the events before a source error, then rejects with it', async () => {
    const log: string[] = [];
    const stream = new EventStream(source(batches, log, 1));
    const seen: StreamEvent[] = [];
    await expect(
      (async () => {
        for await (const event of stream) seen.push(event);
      })(),
    ).rejects.toThrow('source failed');
    expect(seen).toEqual([text('a'), text('b')]);
    expect(log).toEqual(['yield 0', 'caught source failed', 'finally']);
  });

  it('does not start the source before the first next()', async () => {
    const log: string[] = [];
    const stream = new EventStream(source(batches, log));
    await null;
    expect(log).toEqual([]);
    expect(await stream.return(final)).toEqual({ value: final, done: true });
    expect(log).toEqual([]);
  });
});
