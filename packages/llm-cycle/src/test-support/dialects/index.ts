/**
 * The wire dialects the loop suite runs over. Add one: implement `WireDialect` in its own file
 * and append it here.
 */

import type { ServerReply } from '../../testing/index.js';
import type { Model, Step } from '../pause-kit.js';
import { anthropicDialect } from './anthropic.js';
import { geminiDialect } from './gemini.js';
import { openAICompatibleDialect } from './openai-compatible.js';
import { openAIResponsesDialect } from './responses-wire-dialect.js';
import type { DialectServer, WireDialect } from './wire-dialect.js';

export type {
  DialectProviderOptions,
  DialectServer,
  DialectWire,
  WireDialect,
} from './wire-dialect.js';

/** Every dialect, in the order the suite runs them. */
export const dialects: readonly WireDialect[] = [
  openAICompatibleDialect,
  anthropicDialect,
  openAIResponsesDialect,
  geminiDialect,
];

/**
 * A model playing `steps` on a dialect's server, after the replies `first` (e.g. a failure to
 * retry): the script is replaced, the provider is a fresh one. `used()`: every reply was served.
 */
export function dialectModel(
  running: DialectServer,
  steps: readonly Step[],
  first: readonly ServerReply[] = [],
): Model {
  running.server.reset();
  running.server.reply(
    ...first,
    ...steps.map(
      (step): ServerReply =>
        (request) =>
          running.reply(step, request),
    ),
  );
  return { provider: running.provider(), used: () => running.server.pending() === 0 };
}
