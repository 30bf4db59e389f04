/**
 * `LlmCycle` cancellation, streamed and not: during the request, during a tool, consumers that
 * break off.
 */
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../stream-events.js';
import {
  json,
  registry,
  roles,
  useCycleServer,
  waitForever,
  withoutSystem,
} from '../test-support/cycle-kit.js';
import { rejection, streamError } from '../test-support/results.js';
import {
  textCompletion,
  textStream,
  toolCallCompletion,
  toolCallStream,
} from '../testing/index.js';

const wire = useCycleServer();
const { makeCycle } = wire;

describe('LlmCycle cancellation', () => {
  it('aborting during the request stops it, rejects with cancelled and leaves the history as it was', async () => {
    const cycle = makeCycle();
    wire.server.reply(json(textCompletion('first')));
    await cycle.submit('before');
    wire.server.reply({ kind: 'hang' });
    const controller = new AbortController();
    const pending = cycle.submitWithTools('hang', registry(), { signal: controller.signal });
    await expect.poll(() => wire.server.requests.length).toBe(2);
    controller.abort();
    const error = await rejection(pending);
    expect(error.code).toBe('cancelled');
    expect(roles(withoutSystem(cycle))).toEqual(['user', 'assistant']);
    await expect.poll(() => wire.server.disconnects()).toBeGreaterThanOrEqual(1);
  });

  it('aborting during a tool fires its signal and gives the call a cancelled tool message', async () => {
    let toolSignal: AbortSignal | undefined;
    let entered: (() => void) | undefined;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const wait = waitForever((signal) => {
      toolSignal = signal;
      entered?.();
    });
    let quickDone: (() => void) | undefined;
    const finished = new Promise<void>((resolve) => {
      quickDone = resolve;
    });
    const quick = defineTool({
      name: 'get_time',
      description: 'Returns at once',
      parameters: { type: 'object', properties: {} },
      execute: async () => {
        setTimeout(() => quickDone?.(), 0);
        return { zone: 'UTC', time: '12:00' };
      },
    });
    const tools = new ToolRegistry().registerAll([wait, quick]);
    const cycle = makeCycle();
    wire.server.reply(
      json(
        toolCallCompletion([
          { id: 'call_t', name: 'get_time', arguments: '{}' },
          { id: 'call_w', name: 'wait_forever', arguments: '{}' },
        ]),
      ),
    );
    const controller = new AbortController();
    const pending = cycle.submitWithTools('wait', tools, { signal: controller.signal });
    await inside;
    await finished;
    await new Promise((resolve) => setTimeout(resolve, 0));
    controller.abort();
    const error = await rejection(pending);
    expect(error.code).toBe('cancelled');
    expect(toolSignal?.aborted).toBe(true);
    const history = withoutSystem(cycle);
    expect(roles(history)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(history[2]?.content).toBe('{"zone":"UTC","time":"12:00"}');
    expect(history[3]?.content).toMatch(/^Error \[cancelled\]/);
  });

  it('an already aborted signal rejects at once without a request', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(
      makeCycle().submitWithTools('x', registry(), { signal: controller.signal }),
    );
    expect(error.code).toBe('cancelled');
    expect(wire.server.requests).toHaveLength(0);
  });
});

describe('LlmCycle cancellation while streaming', () => {
  it('aborting during a streamed request stops it and throws cancelled; no retry, history as it was', async () => {
    const cycle = makeCycle();
    wire.server.reply({
      kind: 'sse',
      writes: textStream(Array.from({ length: 200 }, (_, index) => `t${index} `)),
      pause: 5,
    });
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    const stream = cycle.submitStreamWithTools('long', registry(), { signal: controller.signal });
    const failure = streamError(stream, events);
    await expect.poll(() => events.length).toBeGreaterThan(1);
    controller.abort();
    const error = await failure;
    expect(error.code).toBe('cancelled');
    expect(wire.server.requests).toHaveLength(1);
    expect(withoutSystem(cycle)).toEqual([]);
    await expect.poll(() => wire.server.disconnects()).toBeGreaterThanOrEqual(1);
  });

  it('aborting during a tool fires its signal, throws cancelled and leaves a cancelled tool message', async () => {
    let toolSignal: AbortSignal | undefined;
    const wait = waitForever((signal) => {
      toolSignal = signal;
    });
    const cycle = makeCycle();
    wire.server.reply({
      kind: 'sse',
      writes: toolCallStream([{ id: 'call_w', name: 'wait_forever', pieces: ['{}'] }]),
    });
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    const failure = streamError(
      cycle.submitStreamWithTools('wait', new ToolRegistry().register(wait), {
        signal: controller.signal,
      }),
      events,
    );
    await expect.poll(() => toolSignal !== undefined).toBe(true);
    controller.abort();
    const error = await failure;
    expect(error.code).toBe('cancelled');
    expect(toolSignal?.aborted).toBe(true);
    expect(roles(withoutSystem(cycle))).toEqual(['user', 'assistant', 'tool']);
    expect(withoutSystem(cycle)[2]?.content).toMatch(/^Error \[cancelled\]/);
    expect(events.at(-1)).toMatchObject({
      type: 'tool_execution_completed',
      callId: 'call_w',
      error: expect.objectContaining({ code: 'cancelled' }),
    });
  });

  it('a consumer that breaks at tool_execution_started cancels the tools that already started', async () => {
    let toolSignal: AbortSignal | undefined;
    const wait = defineTool({
      name: 'wait_forever',
      description: 'Waits until cancelled',
      parameters: { type: 'object', properties: {} },
      execute: (_args, context) =>
        new Promise<string>(() => {
          toolSignal = context.signal;
        }),
    });
    const cycle = makeCycle();
    wire.server.reply({
      kind: 'sse',
      writes: toolCallStream([{ id: 'call_w', name: 'wait_forever', pieces: ['{}'] }]),
    });
    for await (const event of cycle.submitStreamWithTools(
      'wait',
      new ToolRegistry().register(wait),
    )) {
      if (event.type === 'tool_execution_started') break;
    }
    expect(toolSignal?.aborted).toBe(true);
    expect(roles(withoutSystem(cycle))).toEqual(['user', 'assistant', 'tool']);
    wire.server.reply(json(textCompletion('free again')));
    expect((await cycle.submit('next')).message.content).toBe('free again');
  });
});
