/**
 * Shared parts of the tests of issue 12 (approval, ask-back, resumable runs, loop guards): a
 * model script played by the `ScriptedProvider` or by the real wire-format server, tools that
 * need approval or ask back, a driver for the four entry points, and the history invariant.
 */
import {
  awaitInput,
  defineTool,
  type JsonObject,
  type JsonValue,
  type ToolContext,
} from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { expect } from 'vitest';
import type { ChatProvider, ChatResponse } from '../chat-provider.js';
import type { LlmCycle } from '../loop/llm-cycle.js';
import type { ChatMessage } from '../messages.js';
import { createOpenAICompatibleProvider } from '../providers/openai-compatible/openai-compatible-provider.js';
import type { ResumeDecision } from '../runs/run-state.js';
import type { StreamEvent } from '../stream-events.js';
import {
  type ChatCompletionsServer,
  type ReceivedRequest,
  ScriptedProvider,
  type ServerReply,
  textCompletion,
  textResponse,
  textStream,
  toolCallCompletion,
  toolCallStream,
  toolCallsResponse,
} from '../testing/index.js';

/** One answer of the model: text, or tool calls. */
export type Step =
  | { readonly text: string }
  | {
      readonly calls: readonly {
        readonly name: string;
        readonly args: JsonValue;
        readonly id: string;
      }[];
    };

/** A model playing `steps`: the scripted provider, or the wire-format server behind the real provider. */
export interface Model {
  readonly provider: ChatProvider;
  /** Whether every step was used. */
  readonly used: () => boolean;
}

/** The steps on a `ScriptedProvider`. */
export function scriptedModel(steps: readonly Step[]): Model {
  const provider = new ScriptedProvider(
    steps.map((step) =>
      'text' in step
        ? textResponse(step.text, {
            usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
          })
        : toolCallsResponse(
            step.calls.map((call) => ({ name: call.name, arguments: call.args, id: call.id })),
            { usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 } },
          ),
    ),
  );
  return { provider, used: () => provider.remaining() === 0 };
}

/** The steps on the wire-format server: SSE to a streamed request, JSON otherwise. */
export function wireModel(server: ChatCompletionsServer, steps: readonly Step[]): Model {
  let served = 0;
  server.reset();
  server.reply(
    ...steps.map(
      (step): ServerReply =>
        (request) => {
          served++;
          return wireReply(step, request);
        },
    ),
  );
  const provider = createOpenAICompatibleProvider({ baseURL: server.baseURL, apiKey: 'sk-test' });
  return { provider, used: () => served === steps.length };
}

/** One step as the Chat Completions server answers `request`: SSE when it asks for a stream. */
export function wireReply(step: Step, request: ReceivedRequest): ServerReply {
  const streamed = (request.body as { stream?: boolean }).stream === true;
  if ('text' in step) {
    return streamed
      ? { kind: 'sse', writes: textStream(step.text.split(/(?<= )/)) }
      : { kind: 'json', body: textCompletion(step.text) };
  }
  const calls = step.calls.map((call) => ({
    id: call.id,
    name: call.name,
    arguments: JSON.stringify(call.args),
  }));
  return streamed
    ? {
        kind: 'sse',
        writes: toolCallStream(
          calls.map((call) => ({
            id: call.id,
            name: call.name,
            pieces: [call.arguments.slice(0, 3), call.arguments.slice(3)],
          })),
        ),
      }
    : { kind: 'json', body: toolCallCompletion(calls) };
}

/** What the tools of the kit saw. */
export interface Witness {
  readonly ran: { readonly name: string; readonly args: unknown; readonly input?: unknown }[];
}

/** Records one run of a kit tool in the witness. */
type Note = (name: string, args: unknown, context: ToolContext) => void;

/**
 * `get_weather` (no approval), `delete_file` (always needs approval), `pay` (needs approval
 * above 100), `transfer` (asks back above 5 000 €).
 */
export function kitRegistry(witness: Witness = { ran: [] }): ToolRegistry {
  const note: Note = (name, args, context) => {
    witness.ran.push({
      name,
      args,
      ...(context.input === undefined ? {} : { input: context.input }),
    });
  };
  return new ToolRegistry().registerAll([...approvalTools(note), transferTool(note)]);
}

/** `get_weather`, `delete_file` and `pay`: no approval, always, and above 100. */
function approvalTools(note: Note) {
  return [
    defineTool({
      name: 'get_weather',
      description: 'Weather of a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      execute: async (args, context) => {
        note('get_weather', args, context);
        return { city: args.city, temperature: 22 };
      },
    }),
    defineTool({
      name: 'delete_file',
      description: 'Deletes a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      needsApproval: true,
      execute: async (args, context) => {
        note('delete_file', args, context);
        return { deleted: args.path };
      },
    }),
    defineTool({
      name: 'pay',
      description: 'Pays an amount',
      parameters: {
        type: 'object',
        properties: { amount: { type: 'number' } },
        required: ['amount'],
      },
      needsApproval: (args) => args.amount > 100,
      execute: async (args, context) => {
        note('pay', args, context);
        return { paid: args.amount };
      },
    }),
  ] as const;
}

/** `transfer`: asks back (freeze the account?) before a transfer above 5 000 €. */
function transferTool(note: Note) {
  return defineTool({
    name: 'transfer',
    description: 'Transfers money; asks before a suspicious transfer',
    parameters: {
      type: 'object',
      properties: { amount: { type: 'number' } },
      required: ['amount'],
    },
    execute: async (args, context) => {
      note('transfer', args, context);
      if (args.amount > 5000 && context.input === undefined) {
        return awaitInput({
          prompt: `A suspicious transfer of ${args.amount} €: freeze the account?`,
          data: { amount: args.amount, risk: 'high' },
        });
      }
      const answer = context.input?.value;
      const result: JsonObject = answer === 'yes' ? { frozen: true } : { sent: args.amount };
      return result;
    },
  });
}

/** One run of a submit or resume, streamed or not: its events, its response or its error. */
export interface Outcome {
  readonly events: StreamEvent[];
  readonly response?: ChatResponse;
  readonly error?: unknown;
}

/** Submits `prompt` with tools, streamed or not. */
export function submit(
  cycle: LlmCycle,
  prompt: string,
  registry: ToolRegistry,
  streaming: boolean,
  signal?: AbortSignal,
): Promise<Outcome> {
  const options = signal === undefined ? {} : { signal };
  return collect(
    streaming
      ? cycle.submitStreamWithTools(prompt, registry, options)
      : cycle.submitWithTools(prompt, registry, options),
  );
}

/** Resumes with `decisions`, streamed or not. */
export function resume(
  cycle: LlmCycle,
  decisions: Record<string, ResumeDecision>,
  registry: ToolRegistry,
  streaming: boolean,
  signal?: AbortSignal,
): Promise<Outcome> {
  const options = signal === undefined ? {} : { signal };
  return collect(
    streaming
      ? cycle.resumeStream(decisions, registry, options)
      : cycle.resume(decisions, registry, options),
  );
}

async function collect(
  source: Promise<ChatResponse> | AsyncGenerator<StreamEvent, ChatResponse, undefined>,
): Promise<Outcome> {
  const events: StreamEvent[] = [];
  try {
    if (source instanceof Promise) return { events, response: await source };
    for (;;) {
      const step = await source.next();
      if (step.done === true) return { events, response: step.value };
      events.push(step.value);
    }
  } catch (error) {
    return { events, error };
  }
}

/**
 * The history invariant: every assistant message with tool calls is followed by exactly one
 * tool message per call, in call order, and no tool message stands anywhere else.
 */
export function expectWhole(messages: readonly ChatMessage[]): void {
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as ChatMessage;
    if (message.role === 'tool') {
      throw new Error(`a tool message without its call at ${index}: ${JSON.stringify(message)}`);
    }
    if (message.role !== 'assistant' || message.tool_calls === undefined) continue;
    const answers = messages.slice(index + 1, index + 1 + message.tool_calls.length);
    expect(
      answers.map((answer) => (answer.role === 'tool' ? answer.tool_call_id : answer.role)),
    ).toEqual(message.tool_calls.map((call) => call.id));
    index += message.tool_calls.length;
  }
}

/** The tool messages of a history, by call id. */
export function toolAnswers(messages: readonly ChatMessage[]): Record<string, string> {
  const answers: Record<string, string> = {};
  for (const message of messages)
    if (message.role === 'tool') answers[message.tool_call_id] = message.content;
  return answers;
}

/** The arguments object of a JSON value (for `args` of steps). */
export const args = (value: JsonObject): JsonObject => value;
