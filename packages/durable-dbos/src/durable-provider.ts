// One model request = one DBOS step. The step runs the real provider (agcore's retries inside
// it, DBOS's own retries off), streams its deltas into the run's events as they come, and
// records the chunks; a replay gives the loop the recorded chunks without asking the model.
// Ids the provider makes for calls that came without one are made inside the step, so they are
// in the record and a replay has the same history.
import type {
  ChatCallOptions,
  ChatChunk,
  ChatProvider,
  ChatRequest,
  ChatResponse,
} from '@agcore/llm-cycle';
import { DBOS } from '@dbos-inc/dbos-sdk';
import type { EventLog } from './event-log.js';
import { llmErrorJson, reviveLlmError, type StepOutcome } from './wire.js';

/** `provider` with each request run as a recorded step of the current workflow. */
export function durableProvider(provider: ChatProvider, log: EventLog): ChatProvider {
  return {
    chat: async (request: ChatRequest, options?: ChatCallOptions): Promise<ChatResponse> => {
      const key = log.nextModelKey();
      const outcome = await DBOS.runStep(
        async (): Promise<StepOutcome<ChatResponse>> => {
          try {
            return { ok: true, value: await provider.chat(request, options) };
          } catch (error) {
            return { ok: false, error: llmErrorJson(error) };
          }
        },
        { name: `agcore.model.${key}`, retriesAllowed: false },
      );
      if (!outcome.ok) throw reviveLlmError(outcome.error);
      return outcome.value;
    },
    chatStream: (request: ChatRequest, options?: ChatCallOptions): AsyncIterable<ChatChunk> =>
      recordedStream(provider, log, request, options),
  };
}

async function* recordedStream(
  provider: ChatProvider,
  log: EventLog,
  request: ChatRequest,
  options: ChatCallOptions | undefined,
): AsyncGenerator<ChatChunk> {
  const key = log.nextModelKey();
  const outcome = await DBOS.runStep(() => streamStep(provider, log, key, request, options), {
    name: `agcore.model.${key}`,
    retriesAllowed: false,
  });
  if (!outcome.ok) throw reviveLlmError(outcome.error);
  yield* outcome.value;
}

async function streamStep(
  provider: ChatProvider,
  log: EventLog,
  key: string,
  request: ChatRequest,
  options: ChatCallOptions | undefined,
): Promise<StepOutcome<ChatChunk[]>> {
  const chunks: ChatChunk[] = [];
  const batch = log.batch;
  const leave = batch.enter();
  let outcome: StepOutcome<ChatChunk[]>;
  try {
    for await (const chunk of provider.chatStream(request, options)) {
      chunks.push(chunk);
      if (chunk.type !== 'response') {
        batch.add(`${key}:${chunks.length}`, chunk);
        continue;
      }
      const { message, finishReason, usage } = chunk.response;
      const calls = message.tool_calls !== undefined && message.tool_calls.length > 0;
      batch.add(`${key}:end`, {
        type: 'turn_complete',
        reason: calls ? 'tool_calls' : finishReason,
        ...(usage === undefined ? {} : { usage }),
      });
    }
    outcome = { ok: true, value: chunks };
  } catch (error) {
    outcome = { ok: false, error: llmErrorJson(error) };
  }
  // The events (and those of the tool steps before it) are in the stream before the step's
  // checkpoint says it is done.
  try {
    await batch.flush();
  } finally {
    leave();
  }
  return outcome;
}
