/**
 * The tool definitions as Gemini's `functionDeclarations` take them (API reference,
 * ai.google.dev/api/caching#FunctionDeclaration): `name` of a-z, A-Z, 0-9, `_`, `:`, `.`, `-`,
 * at most 64 characters (a letter or `_` first), and `parametersJsonSchema`, a JSON Schema that
 * "must describe an object where the properties are the parameters to the function". What
 * Gemini refuses is refused here, before anything is sent, with the tool and the rule named.
 */
import type { ToolDefinition } from '@agcore/tools-core';
import { LlmError } from '../../llm-error.js';

const namePattern = /^[A-Za-z_][A-Za-z0-9_:.-]{0,63}$/;

/** The tool lists already checked (the loop sends the same list every turn). */
const checked = new WeakSet<readonly ToolDefinition[]>();

/**
 * Checks `tools` against what Gemini accepts.
 * @throws {LlmError} `http_error` (not retryable, no status: nothing was sent) naming the tool
 * and the rule it breaks
 */
export function checkTools(tools: readonly ToolDefinition[] | undefined): void {
  if (tools === undefined || tools.length === 0 || checked.has(tools)) return;
  for (const tool of tools) {
    const name = tool.function.name;
    if (!namePattern.test(name))
      throw refused(
        name,
        'its name must start with a letter or _ and use only a-z, A-Z, 0-9, _, :, . and - (at most 64 characters)',
      );
    const schema: unknown = tool.function.parameters;
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
      throw refused(name, 'its parameters must be a JSON Schema object');
    const type = (schema as { type?: unknown }).type;
    if (type !== undefined && type !== 'object')
      throw refused(
        name,
        `its parameters must describe an object (type "object"), not ${JSON.stringify(type)}`,
      );
  }
  checked.add(tools);
}

function refused(name: string, rule: string): LlmError {
  return new LlmError(
    'http_error',
    `Gemini refuses the tool ${JSON.stringify(name)}: ${rule} (functionDeclarations, parametersJsonSchema). The request was not sent.`,
    { isRetryable: false },
  );
}
