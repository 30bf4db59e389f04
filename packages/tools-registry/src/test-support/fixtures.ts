import { type AnyTool, defineTool, Permission, type ToolError } from '@agcore/tools-core';
import type { ToolInvocation } from '../tool-invocation.js';

/** A validated tool that needs `network` and answers at once. */
export const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string', minLength: 1 } },
    required: ['city'],
    additionalProperties: false,
  },
  requiredPermissions: [Permission.Network],
  execute: async ({ city }) => ({ city, temperature: 22 }),
});

/** A tool that waits `ms` (or until its signal aborts), writing start/end/aborted to `log`. */
export function waiter(name: string, ms: number, log?: string[]): AnyTool {
  return defineTool({
    name,
    description: `waits ${ms} ms`,
    parameters: { type: 'object' },
    execute: (_args, context) =>
      new Promise<string>((resolve, reject) => {
        log?.push(`start:${name}`);
        const timer = setTimeout(() => {
          log?.push(`end:${name}`);
          resolve(name);
        }, ms);
        context.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          log?.push(`aborted:${name}`);
          reject(context.signal.reason);
        });
      }),
  });
}

/** The error of a failed invocation; throws when it succeeded. */
export function errorOf(invocation: ToolInvocation): ToolError {
  if (invocation.output.ok)
    throw new Error(`expected a failure, got ${JSON.stringify(invocation.output.value)}`);
  return invocation.output.error;
}
