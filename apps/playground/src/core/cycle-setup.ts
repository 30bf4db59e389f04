import { type ChatProvider, type LlmCycle, LlmError } from '@agcore/llm-cycle';
import type { ScriptedProvider } from '@agcore/llm-cycle/testing';
import type { FlowExpectation } from './flow-types.js';
import { createRemoteProvider, type ModelSettings } from './model-settings.js';
import { ExitCode, PlaygroundError } from './playground-error.js';
import { createScriptedModel } from './scripted-model.js';

/** How a run ended. */
export type RunOutcome = Exclude<FlowExpectation, 'any'> | 'failed';

/** The system prompt every flow (and `chat`) uses with a real model. */
export const systemPrompt =
  'You are the agcore playground assistant. Use the tools you are given to answer; call several at once when they are independent. Keep answers short.';

/**
 * Makes the provider for the settings (the flow's script for the scripted model, without the
 * first `used` answers: those a resumed run already had).
 */
export function createProvider(
  settings: ModelSettings,
  script: Parameters<typeof createScriptedModel>[0],
  paced: boolean,
  used = 0,
): { provider: ChatProvider; scripted?: ScriptedProvider } {
  if (settings.kind === 'scripted') {
    const { provider, script: scripted } = createScriptedModel(
      script,
      { delayMs: paced ? 25 : 0, estimateUsage: true },
      used,
    );
    return { provider, scripted };
  }
  return { provider: createRemoteProvider(settings) };
}

/** Classifies how the loop ended. Never throws. */
export function outcomeOf(error: unknown, cancelled: boolean): RunOutcome {
  if (error === undefined) return 'complete';
  if (cancelled) return 'cancelled';
  if (error instanceof PlaygroundError && error.exitCode === ExitCode.interrupted) {
    return 'cancelled';
  }
  if (!LlmError.isInstance(error)) return 'failed';
  if (error.code === 'cancelled') return 'cancelled';
  if (error.code === 'max_turns_exceeded') return 'max_turns_exceeded';
  if (error.code === 'loop_detected') return 'loop_detected';
  const cause = error.cause as { code?: unknown } | undefined;
  if (error.code === 'tool_error' && cause?.code === 'permission_denied')
    return 'permission_denied';
  return 'failed';
}

/**
 * The HMAC secret of run states, from `AGCORE_STATE_SECRET` (both processes need it).
 * @throws {PlaygroundError} (exit 2) when it is set but shorter than 32 bytes
 */
export function stateSecret(): string | undefined {
  const secret = process.env.AGCORE_STATE_SECRET;
  if (secret === undefined || secret === '') return undefined;
  if (Buffer.byteLength(secret) < 32) {
    throw new PlaygroundError(
      'AGCORE_STATE_SECRET must be at least 32 bytes (e.g. the output of `openssl rand -hex 32`).',
    );
  }
  return secret;
}

/**
 * The cycle `make` builds; a run file whose state is refused is bad input.
 * @throws {PlaygroundError} (exit 2) naming the file, for `state_mismatch`
 */
export function restore(file: string | undefined, make: () => LlmCycle): LlmCycle {
  try {
    return make();
  } catch (error) {
    if (file !== undefined && LlmError.isInstance(error) && error.code === 'state_mismatch') {
      throw new PlaygroundError(`${file}: ${error.message}`, { cause: error });
    }
    throw error;
  }
}
