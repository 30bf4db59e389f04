/**
 * Shared by the context budget tests: a cycle on a `ScriptedProvider`, both tool loops, tools
 * that return long results with a fact at their start and at their end.
 */
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import type { ChatResponse } from '../chat-provider.js';
import { LlmCycle, type LlmCycleOptions } from '../loop/llm-cycle.js';
import type { ChatMessage, ToolMessage } from '../messages.js';
import { ScriptedProvider, type ScriptStep } from '../testing/index.js';

/** The two tool loops every budget test runs on. */
export const loops = ['submitWithTools', 'submitStreamWithTools'] as const;
/** One of `loops`. */
export type Loop = (typeof loops)[number];

/** A report of about `bytes` bytes (in lines) whose first line holds `start` and last `end`. */
export function report(bytes: number, start: string, end: string): string {
  const lines = [`FACT ${start}`];
  let size = lines[0]?.length ?? 0;
  for (let line = 1; size < bytes - end.length - 10; line++) {
    const text = `line ${line}: ${'é-data '.repeat(8)}`;
    lines.push(text);
    size += Buffer.byteLength(text) + 1;
  }
  lines.push(`FACT ${end}`);
  return lines.join('\n');
}

/** A registry with `fetch_report({ name })`, returning `reports[name]`. */
export function reportTools(reports: Readonly<Record<string, string>>): ToolRegistry {
  return new ToolRegistry().register(
    defineTool({
      name: 'fetch_report',
      description: 'Fetches a report by name',
      parameters: {
        type: 'object',
        properties: { name: { type: 'string' } },
        required: ['name'],
      },
      execute: async ({ name }: { name: string }) => reports[name] ?? 'no such report',
    }),
  );
}

/** A cycle on a scripted model. */
export function scriptedCycle(
  steps: readonly ScriptStep[],
  options: Partial<LlmCycleOptions> = {},
): { cycle: LlmCycle; provider: ScriptedProvider } {
  const provider = new ScriptedProvider(steps);
  const cycle = new LlmCycle({
    provider,
    model: 'scripted',
    systemPrompt: 'Be brief.',
    ...options,
  });
  return { cycle, provider };
}

/** Runs one tool loop call, streamed or not, to its response. */
export async function runLoop(
  loop: Loop,
  cycle: LlmCycle,
  prompt: string,
  registry: ToolRegistry,
): Promise<ChatResponse> {
  if (loop === 'submitWithTools') return cycle.submitWithTools(prompt, registry);
  const stream = cycle.submitStreamWithTools(prompt, registry);
  for (;;) {
    const step = await stream.next();
    if (step.done === true) return step.value;
  }
}

/** The tool messages of a request the provider received. */
export function toolMessagesOf(provider: ScriptedProvider, call: number): ToolMessage[] {
  const messages: readonly ChatMessage[] = provider.calls[call]?.request.messages ?? [];
  return messages.filter((message): message is ToolMessage => message.role === 'tool');
}

/** The handle in a spilled result's marker. */
export function handleIn(content: string): string {
  const found = /read_result\(\{"handle":("(?:[^"\\]|\\.)*")\}\)/.exec(content)?.[1];
  if (found === undefined) throw new Error(`no read_result handle in: ${content.slice(0, 200)}`);
  return JSON.parse(found) as string;
}
