/**
 * `LlmCycle` tool loop: empty arguments, tool timeouts, permission and MCP errors, the default
 * size cut of tool messages, max turns from the stream.
 */
import { defineTool, ToolError } from '@agcore/tools-core';
import { PermissionChecker } from '@agcore/tools-permission';
import { ToolRegistry } from '@agcore/tools-registry';
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../stream-events.js';
import {
  clock,
  json,
  registry,
  roles,
  useCycleServer,
  withoutSystem,
} from '../test-support/cycle-kit.js';
import { collectEvents, rejection, streamError } from '../test-support/results.js';
import {
  textCompletion,
  textStream,
  toolCallCompletion,
  toolCallStream,
} from '../testing/index.js';

const wire = useCycleServer();
const { sent, makeCycle } = wire;

describe('LlmCycle tool loop: arguments, errors and limits', () => {
  it("runs the tool calls of a non-streamed answer whose finish_reason is 'stop'", async () => {
    const cycle = makeCycle();
    wire.server.reply(
      json(
        toolCallCompletion([{ id: 'call_s', name: 'get_time', arguments: '{"zone":"CET"}' }], {
          finishReason: 'stop',
        }),
      ),
      json(textCompletion('It is noon.')),
    );
    const response = await cycle.submitWithTools('time?', registry());
    expect(response.message.content).toBe('It is noon.');
    expect(withoutSystem(cycle)[2]).toEqual({
      role: 'tool',
      tool_call_id: 'call_s',
      content: '{"zone":"CET","time":"12:00"}',
    });
    expect(wire.server.requests).toHaveLength(2);
  });

  it('treats empty arguments as {} (the tool runs with {}, the event shows {})', async () => {
    const received: unknown[] = [];
    const echo = defineTool({
      name: 'echo_args',
      description: 'Records its arguments',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
      execute: async (args) => {
        received.push(args);
        return 'ok';
      },
    });
    const tools = new ToolRegistry().register(echo);
    wire.server.reply(
      json(
        toolCallCompletion([
          { id: 'call_empty', name: 'echo_args', arguments: '' },
          { id: 'call_blank', name: 'echo_args', arguments: '  ' },
        ]),
      ),
      json(textCompletion('done')),
      {
        kind: 'sse',
        writes: toolCallStream([{ id: 'call_streamed', name: 'echo_args', pieces: [''] }]),
      },
      { kind: 'sse', writes: textStream(['done']) },
    );
    const cycle = makeCycle();
    await cycle.submitWithTools('go', tools);
    const { events } = await collectEvents(cycle.submitStreamWithTools('again', tools));
    expect(received).toEqual([{}, {}, {}]);
    expect(events.find((event) => event.type === 'tool_execution_started')).toEqual({
      type: 'tool_execution_started',
      toolName: 'echo_args',
      callId: 'call_streamed',
      input: {},
    });
    expect(
      withoutSystem(cycle)
        .filter((message) => message.role === 'tool')
        .map((message) => message.content),
    ).toEqual(['ok', 'ok', 'ok']);
  });

  it('gives each call toolTimeoutMs: a tool that overruns gets a timeout message, its signal fires, the loop goes on', async () => {
    let toolSignal: AbortSignal | undefined;
    const stuck = defineTool({
      name: 'stuck',
      description: 'Never finishes on its own',
      parameters: { type: 'object', properties: {} },
      execute: (_args, context) =>
        new Promise<string>(() => {
          toolSignal = context.signal;
        }),
    });
    const picky = defineTool({
      name: 'picky',
      description: 'Fails with a recoverable code other',
      parameters: { type: 'object', properties: {} },
      execute: async (): Promise<string> => {
        throw new ToolError('other', 'Try again with a smaller page size.');
      },
    });
    const cycle = makeCycle({ toolTimeoutMs: 150 });
    wire.server.reply(
      json(
        toolCallCompletion([
          { id: 'call_stuck', name: 'stuck', arguments: '{}' },
          { id: 'call_picky', name: 'picky', arguments: '{}' },
        ]),
      ),
      json(textCompletion('Both tools failed; here is what I know.')),
    );
    const response = await cycle.submitWithTools(
      'go',
      new ToolRegistry({ timeoutMs: 60_000 }).registerAll([stuck, picky]),
    );
    expect(response.message.content).toBe('Both tools failed; here is what I know.');
    expect(toolSignal?.aborted).toBe(true);
    const history = withoutSystem(cycle);
    expect(history[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_stuck' });
    expect(history[2]?.content).toMatch(/^Error \[timeout\]: .*150 ms/);
    expect(history[3]).toEqual({
      role: 'tool',
      tool_call_id: 'call_picky',
      content: 'Error [other]: Try again with a smaller page size.',
    });
    expect(sent(1).messages.slice(-2)).toEqual(history.slice(2, 4));
  });

  it('ends the loop on permission_denied (registry with a PermissionChecker): the tool never runs, history whole', async () => {
    let ran = false;
    const shell = defineTool({
      name: 'run_shell',
      description: 'Runs a shell command',
      parameters: { type: 'object', properties: { command: { type: 'string' } } },
      requiredPermissions: ['shell'],
      execute: async () => {
        ran = true;
        return 'ran';
      },
    });
    const tools = new ToolRegistry()
      .withPermissionChecker(new PermissionChecker())
      .registerAll([shell, clock]);
    const cycle = makeCycle();
    wire.server.reply(
      json(
        toolCallCompletion([
          { id: 'call_time', name: 'get_time', arguments: '{}' },
          { id: 'call_shell', name: 'run_shell', arguments: '{"command":"rm -rf /"}' },
        ]),
      ),
    );
    const error = await rejection(cycle.submitWithTools('clean up', tools));
    expect([error.code, error.toolName]).toEqual(['tool_error', 'run_shell']);
    expect(ToolError.isInstance(error.cause)).toBe(true);
    expect((error.cause as ToolError).code).toBe('permission_denied');
    expect(ran).toBe(false);
    const history = withoutSystem(cycle);
    expect(roles(history)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(history[2]).toEqual({
      role: 'tool',
      tool_call_id: 'call_time',
      content: '{"zone":"UTC","time":"12:00"}',
    });
    expect(history[3]).toMatchObject({ role: 'tool', tool_call_id: 'call_shell' });
    expect(history[3]?.content).toMatch(/^Error \[permission_denied\]/);
    expect(wire.server.requests).toHaveLength(1);
  });

  it('ends the loop on an mcp_* error thrown by a tool; the cause is that very ToolError', async () => {
    for (const code of ['mcp_error', 'mcp_timeout', 'mcp_not_initialized'] as const) {
      const thrown = new ToolError(code, `The MCP server failed (${code}).`);
      const remote = defineTool({
        name: 'remote_search',
        description: 'A tool served by an MCP server',
        parameters: { type: 'object', properties: {} },
        execute: async (): Promise<string> => {
          throw thrown;
        },
      });
      const cycle = makeCycle();
      wire.server.reply(
        json(toolCallCompletion([{ id: `call_${code}`, name: 'remote_search', arguments: '{}' }])),
      );
      const error = await rejection(
        cycle.submitWithTools('search', new ToolRegistry().register(remote)),
      );
      expect([error.code, error.toolName]).toEqual(['tool_error', 'remote_search']);
      expect(error.cause).toBe(thrown);
      expect(withoutSystem(cycle)[2]).toEqual({
        role: 'tool',
        tool_call_id: `call_${code}`,
        content: `Error [${code}]: The MCP server failed (${code}).`,
      });
      wire.server.requests.length = 0;
    }
  });

  it('cuts tool messages at the default 16 KiB and keeps them whole with maxToolResultBytes: null', async () => {
    const long = defineTool({
      name: 'long_text',
      description: 'Returns 20 000 characters',
      parameters: { type: 'object', properties: {} },
      execute: async () => 'x'.repeat(20_000),
    });
    const tools = new ToolRegistry().register(long);
    const sizes: number[] = [];
    for (const options of [{}, { maxToolResultBytes: null }]) {
      const cycle = makeCycle(options);
      wire.server.reply(
        json(toolCallCompletion([{ id: 'call_long', name: 'long_text', arguments: '{}' }])),
        json(textCompletion('ok')),
      );
      await cycle.submitWithTools('long', tools);
      const content = withoutSystem(cycle)[2]?.content;
      if (typeof content !== 'string') throw new Error('no tool message');
      sizes.push(Buffer.byteLength(content));
      if (sizes.length === 1)
        expect(content).toMatch(
          /^x+\n…\[truncated: \d+ of 20000 bytes cut from the middle\]…\nx+$/,
        );
    }
    expect(sizes[0]).toBeLessThanOrEqual(16 * 1024);
    expect(sizes[0]).toBeGreaterThan(16 * 1024 - 64);
    expect(sizes[1]).toBe(20_000);
  });

  it('throws max_turns_exceeded from the stream too, with the same history as submitWithTools', async () => {
    const cycle = makeCycle({ maxTurns: 2 });
    wire.server.reply(
      { kind: 'sse', writes: toolCallStream([{ id: 'call_1', name: 'get_time', pieces: ['{}'] }]) },
      { kind: 'sse', writes: toolCallStream([{ id: 'call_2', name: 'get_time', pieces: ['{}'] }]) },
    );
    const events: StreamEvent[] = [];
    const error = await streamError(cycle.submitStreamWithTools('loop', registry()), events);
    expect(error.code).toBe('max_turns_exceeded');
    expect(error.response?.message.tool_calls?.[0]?.id).toBe('call_2');
    expect(roles(withoutSystem(cycle))).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(events.filter((event) => event.type === 'tool_execution_completed')).toHaveLength(2);
  });
});
