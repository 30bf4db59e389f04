// A run paused on an approved-to-be delete: the state two processes resume at once.
import { LlmCycle, type RunState } from '@agcore/llm-cycle';
import { ScriptedProvider, toolCallsResponse } from '@agcore/llm-cycle/testing';
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';

/** `delete_file`, which needs approval and calls `onRun` each time it runs. */
export function deleteRegistry(onRun: () => void): ToolRegistry {
  return new ToolRegistry().register(
    defineTool({
      name: 'delete_file',
      description: 'Deletes a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      needsApproval: true,
      execute: async () => {
        onRun();
        return 'deleted';
      },
    }),
  );
}

/** The state of a run paused on `delete_file` (call `call_del`), as JSON. */
export async function pausedDeleteState(): Promise<RunState> {
  const cycle = new LlmCycle({
    provider: new ScriptedProvider([
      toolCallsResponse([{ name: 'delete_file', arguments: { path: '/tmp/x' }, id: 'call_del' }]),
    ]),
    model: 'test',
  });
  const response = await cycle.submitWithTools(
    'Delete /tmp/x',
    deleteRegistry(() => {
      throw new Error('must not run before approval');
    }),
  );
  if (response.interruptions?.[0]?.callId !== 'call_del') throw new Error('the run did not pause');
  return JSON.parse(JSON.stringify(cycle.state())) as RunState;
}
