import { awaitInput, defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import type { ServeToolsOptions } from '../index.js';
import { staticPrompts, staticResources } from '../index.js';

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
 * logging, asking back) and nothing it cannot (image/audio content, server-initiated sampling).
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
  for (const name of ['test_tool_with_logging', 'test_logging_tool']) {
    registry.register(
      defineTool({
        name,
        description: 'Logs three messages while it runs',
        parameters: { type: 'object', properties: {} },
        execute: async (_args, context) => {
          for (const step of ['starting', 'working', 'done']) {
            context.log?.('info', `Tool execution ${step}`);
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          return 'Logging complete';
        },
      }),
    );
  }
  registry.register(
    defineTool({
      name: 'test_missing_capability',
      description: 'Needs the client to sample (declared in requiredClientCapabilities)',
      parameters: { type: 'object', properties: {} },
      execute: async () => 'The client declared sampling.',
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

/** One transparent pixel, as the conformance scenarios' `<base64-encoded-png>`. */
const pixelPng =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/**
 * The resources, prompts and declarations the conformance scenarios read (by their names and
 * URIs there), as `serveTools` options over `staticResources` / `staticPrompts`.
 */
export function conformanceOfferings(): Pick<
  ServeToolsOptions,
  'resources' | 'prompts' | 'requiredClientCapabilities'
> {
  return {
    resources: staticResources(
      [
        {
          uri: 'test://static-text',
          name: 'static-text',
          description: 'A static text resource',
          mimeType: 'text/plain',
          text: 'This is the content of the static text resource.',
        },
        {
          uri: 'test://static-binary',
          name: 'static-binary',
          description: 'A static binary resource',
          mimeType: 'image/png',
          blob: pixelPng,
        },
      ],
      {
        templates: [
          {
            uriTemplate: 'test://template/{id}/data',
            name: 'template',
            description: 'Data by id',
            mimeType: 'application/json',
            read: ({ id }, uri) => [
              {
                uri,
                mimeType: 'application/json',
                text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
              },
            ],
            complete: { id: ['123', '456'] },
          },
        ],
      },
    ),
    prompts: staticPrompts([
      {
        name: 'test_simple_prompt',
        description: 'A simple prompt',
        messages: () => [
          { role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } },
        ],
      },
      {
        name: 'test_prompt_with_arguments',
        description: 'A prompt with arguments',
        arguments: [
          { name: 'arg1', description: 'First test argument', required: true },
          { name: 'arg2', description: 'Second test argument', required: true },
        ],
        messages: ({ arg1, arg2 }) => [
          {
            role: 'user',
            content: {
              type: 'text',
              text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
            },
          },
        ],
        complete: { arg1: ['test', 'testValue1', 'other'], arg2: ['world'] },
      },
      {
        name: 'test_prompt_with_embedded_resource',
        description: 'A prompt with an embedded resource',
        arguments: [{ name: 'resourceUri', description: 'The resource to embed', required: true }],
        messages: ({ resourceUri }) => [
          {
            role: 'user',
            content: {
              type: 'resource',
              resource: {
                uri: resourceUri ?? 'test://example-resource',
                mimeType: 'text/plain',
                text: 'Embedded resource content for testing.',
              },
            },
          },
          {
            role: 'user',
            content: { type: 'text', text: 'Please process the embedded resource above.' },
          },
        ],
      },
      {
        name: 'test_prompt_with_image',
        description: 'A prompt with an image',
        messages: () => [
          { role: 'user', content: { type: 'image', data: pixelPng, mimeType: 'image/png' } },
          { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
        ],
      },
    ]),
    requiredClientCapabilities: { test_missing_capability: ['sampling'] },
  };
}
