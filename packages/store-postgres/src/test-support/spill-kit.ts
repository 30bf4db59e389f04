// A cycle that spills a long tool result into a result store, and one that reads it back.
import { LlmCycle, type ResultStore } from '@agcore/llm-cycle';
import { ScriptedProvider, textResponse, toolCallsResponse } from '@agcore/llm-cycle/testing';
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';

/** A long report (about `bytes` UTF-8 bytes) whose last line is `FACT the end`. */
export function longReport(bytes: number): string {
  const lines: string[] = [];
  for (let size = 0; size < bytes; ) {
    const line = `line ${lines.length}: é-data ünïcode`;
    lines.push(line);
    size += Buffer.byteLength(line) + 1;
  }
  lines.push('FACT the end');
  return lines.join('\n');
}

const registry = (report: string) =>
  new ToolRegistry().register(
    defineTool({
      name: 'fetch_report',
      description: 'Fetches the report',
      parameters: { type: 'object', properties: {} },
      execute: async () => report,
    }),
  );

/** What the model got back for the tool call of the first turn of `provider`. */
function toolResultOf(provider: ScriptedProvider): string {
  const message = provider.calls[1]?.request.messages.find((item) => item.role === 'tool');
  return typeof message?.content === 'string' ? message.content : '';
}

/** Runs one turn that fetches `report` with `spill: { store }`: resolves what the model saw. */
export async function spillOnce(store: ResultStore, report: string): Promise<string> {
  const provider = new ScriptedProvider([
    toolCallsResponse([{ id: 'call_fetch', name: 'fetch_report', arguments: {} }]),
    textResponse('ok'),
  ]);
  const cycle = new LlmCycle({
    provider,
    model: 'test',
    maxToolResultBytes: 4096,
    spill: { store },
  });
  await cycle.submitWithTools('fetch it', registry(report));
  return toolResultOf(provider);
}

/** The handle in a spilled result the model saw. */
export function handleIn(content: string): string | undefined {
  const found = /read_result\(\{"handle":("(?:[^"\\]|\\.)*")\}\)/.exec(content)?.[1];
  return found === undefined ? undefined : (JSON.parse(found) as string);
}

/** A fresh cycle (another process, no shared memory) whose model greps `handle`: what it read. */
export async function readBack(store: ResultStore, handle: string): Promise<string> {
  const provider = new ScriptedProvider([
    toolCallsResponse([
      { id: 'call_read', name: 'read_result', arguments: { handle, grep: 'FACT' } },
    ]),
    textResponse('read'),
  ]);
  const cycle = new LlmCycle({
    provider,
    model: 'test',
    maxToolResultBytes: 4096,
    spill: { store },
  });
  await cycle.submitWithTools('read it', registry('unused'));
  return toolResultOf(provider);
}
