import { awaitInput, defineTool, Permission, type ToolContext } from '@agcore/tools-core';
import { PermissionChecker } from '@agcore/tools-permission';
import { type ToolInvocation, ToolRegistry } from '@agcore/tools-registry';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** What the fixture tools saw, for assertions. */
export interface Seen {
  readonly contexts: (ToolContext & { caller?: unknown })[];
  readonly audit: ToolInvocation[];
  aborted: (reason: unknown) => void;
  started: () => void;
  runs: number;
}

/** A registry of small tools: echo, a permission-gated one, a slow one, one that asks back. */
export function fixtureRegistry(): { registry: ToolRegistry; seen: Seen } {
  const seen: Seen = {
    contexts: [],
    audit: [],
    aborted: () => undefined,
    started: () => undefined,
    runs: 0,
  };
  const registry = new ToolRegistry({
    timeoutMs: 20_000,
    onInvocation: (invocation) => {
      seen.audit.push(invocation);
    },
  });
  registry.withPermissionChecker(new PermissionChecker({ denied: [Permission.Shell] }));
  registry.register(
    defineTool({
      name: 'echo',
      description: 'Echoes its text',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      execute: async ({ text }, context) => {
        seen.contexts.push(context);
        seen.runs += 1;
        context.progress?.({ progress: 1, total: 2, message: 'half' });
        return { echoed: text };
      },
    }),
  );
  registry.register(
    defineTool({
      name: 'shell_run',
      description: 'Needs the shell permission',
      parameters: { type: 'object', properties: {} },
      requiredPermissions: [Permission.Shell],
      execute: async () => 'ran',
    }),
  );
  registry.register(
    defineTool({
      name: 'slow',
      description: 'Waits until aborted',
      parameters: { type: 'object', properties: {} },
      execute: (_args, context) =>
        new Promise((_resolve, reject) => {
          seen.started();
          context.signal.addEventListener('abort', () => {
            seen.aborted(context.signal.reason);
            reject(context.signal.reason);
          });
        }),
    }),
  );
  registry.register(
    defineTool({
      name: 'delete_all',
      description: 'Needs approval',
      parameters: { type: 'object', properties: {} },
      needsApproval: true,
      execute: async () => 'deleted',
    }),
  );
  registry.register(
    defineTool({
      name: 'confirm',
      description: 'Asks a person first',
      parameters: {
        type: 'object',
        properties: { amount: { type: 'number' } },
        required: ['amount'],
      },
      execute: async ({ amount }, context) => {
        if (context.input === undefined)
          return awaitInput({ prompt: `Transfer ${amount}?`, data: { amount } });
        return { answer: context.input.value, data: context.input.data ?? null };
      },
    }),
  );
  return { registry, seen };
}

/** A v1 SDK client connected over Streamable HTTP (2025 era). */
export async function connectV1(
  url: string,
  headers: Record<string, string> = {},
): Promise<Client> {
  const client = new Client({ name: 'test-v1', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  );
  return client;
}

/** A v2 SDK client pinned to 2026-07-28. */
export async function connectV2(url: string, answer?: string): Promise<ClientV2> {
  const client = new ClientV2(
    { name: 'test-v2', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      capabilities: { elicitation: { form: {} } },
    },
  );
  client.setRequestHandler('elicitation/create', async () =>
    answer === undefined ? { action: 'decline' } : { action: 'accept', content: { answer } },
  );
  await client.connect(new TransportV2(new URL(url)));
  return client;
}
