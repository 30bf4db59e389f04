import { awaitInput, defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';

/** The JSON Schema 2020-12 input schema the conformance scenario `json-schema-2020-12` expects. */
const schema2020 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword, never awaited.
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
} as const;

/**
 * The tools the official conformance suite's server scenarios call (by their names there), as
 * an ordinary registry: what a registry tool can express (JSON results, thrown errors, progress,
 * asking back) and nothing it cannot (image/audio content, server-initiated sampling).
 */
export function conformanceRegistry(): ToolRegistry {
  const registry = new ToolRegistry({ timeoutMs: 20_000 });
  registry.register(
    defineTool({
      name: 'test_simple_text',
      description: 'Returns simple text',
      parameters: { type: 'object', properties: {} },
      execute: async () => 'This is a simple text response for testing.',
    }),
  );
  registry.register(
    defineTool({
      name: 'test_error_handling',
      description: 'Always fails',
      parameters: { type: 'object', properties: {} },
      execute: async () => {
        throw new Error('This tool intentionally returns an error for testing');
      },
    }),
  );
  registry.register(
    defineTool({
      name: 'test_tool_with_progress',
      description: 'Reports progress three times',
      parameters: { type: 'object', properties: {} },
      execute: async (_args, context) => {
        for (const progress of [0, 50, 100]) {
          context.progress?.({ progress, total: 100, message: `step ${progress}` });
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        return 'Progress complete';
      },
    }),
  );
  registry.register(
    defineTool({
      name: 'json_schema_2020_12_tool',
      description: 'Tool with JSON Schema 2020-12 features',
      parameters: schema2020,
      execute: async (args) => ({ received: args }),
    }),
  );
  for (const name of [
    'test_input_required_result_elicitation',
    'test_input_required_result_request_state',
    'test_input_required_result_tampered_state',
  ]) {
    registry.register(askingTool(name));
  }
  return registry;
}

/** A tool that asks a person once (`awaitInput`), then answers with what it was told. */
function askingTool(name: string) {
  return defineTool({
    name,
    description: 'Asks a question, then answers with the reply',
    parameters: { type: 'object', properties: {} },
    execute: async (_args, context) => {
      if (context.input === undefined) return awaitInput({ prompt: 'What is your name?' });
      return `Hello, ${JSON.stringify(context.input.value)}`;
    },
  });
}
