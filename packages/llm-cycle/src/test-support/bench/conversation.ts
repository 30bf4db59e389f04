/**
 * The conversation of the cycle bench: 4 tool turns (one with 2 parallel calls) and a final
 * answer of 100 deltas, a long reply of 2 000 deltas, the tools, and the wire types the bare
 * loops use.
 */
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';

/** The 100 deltas of the final answer. */
export const finalPieces = Array.from({ length: 100 }, (_, index) => `word${index} `);
/** The 2 000 deltas of the long streamed reply. */
export const longPieces = Array.from({ length: 2000 }, (_, index) => `token${index} `);
/** The model name that asks the server for the long reply. */
export const longModel = 'long-reply';
/** The tool calls of the 4 tool turns. */
export const turns: { name: string; arguments: string }[][] = [
  [{ name: 'get_weather', arguments: '{"city":"Paris"}' }],
  [
    { name: 'get_weather', arguments: '{"city":"Oslo"}' },
    { name: 'get_time', arguments: '{"zone":"CET"}' },
  ],
  [{ name: 'get_time', arguments: '{"zone":"UTC"}' }],
  [{ name: 'get_weather', arguments: '{"city":"Rome"}' }],
];

/** The tools as plain functions, for the bare loops. */
export const toolFunctions: Record<string, (args: Record<string, string>) => unknown> = {
  get_weather: ({ city }) => ({ city, temperature: 22, unit: 'C' }),
  get_time: ({ zone }) => ({ zone, time: '12:00' }),
};

/** The tools as a registry of the given packages (another checkout's, in a comparison). */
export function registryFrom(
  core: { defineTool: typeof defineTool },
  registries: { ToolRegistry: typeof ToolRegistry },
  approveTime: boolean,
): ToolRegistry {
  return new registries.ToolRegistry().registerAll([
    core.defineTool({
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      execute: async ({ city }) => ({ city, temperature: 22, unit: 'C' }),
    }),
    core.defineTool({
      name: 'get_time',
      description: 'Current time in a time zone',
      parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
      ...(approveTime ? { needsApproval: true } : {}),
      execute: async ({ zone }) => ({ zone, time: '12:00' }),
    }),
  ]);
}

/** The tools as a registry; `approveTime`: `get_time` needs approval. */
export function registry(approveTime = false): ToolRegistry {
  return registryFrom({ defineTool }, { ToolRegistry }, approveTime);
}

/** A tool call as the bare loops keep it. */
export interface WireCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A message as the bare loops keep it. */
export interface WireMessage {
  role: string;
  content: string | null;
  tool_calls?: WireCall[];
  tool_call_id?: string;
}
