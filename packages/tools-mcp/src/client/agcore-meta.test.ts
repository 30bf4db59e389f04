// The client side of an agcore server: ToolError codes in a result's _meta come back as
// themselves; the caller's idempotency key goes out in _meta.
import { createToolContext, type ToolError } from '@agcore/tools-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../index.js';
import { type ModernHttpServer, startModernHttp } from '../test-support/modern-server.js';

let server: ModernHttpServer;
beforeAll(async () => {
  server = await startModernHttp({ legacy: 'stateless' });
});
afterAll(async () => {
  await server.stop();
});

describe.each(['legacy', 'auto'] as const)('protocol: %s, agcore _meta', (protocol) => {
  const connect = async (): Promise<McpClient> => {
    const client = new McpClient(
      'agcore',
      { type: 'streamable-http', url: server.url },
      { protocol },
    );
    await client.connect();
    return client;
  };

  it('gives back the ToolError code of _meta["dev.agcore/errorCode"], recoverable as the code is', async () => {
    const client = await connect();
    const denied = (await client
      .callTool('refuse', { code: 'permission_denied' })
      .catch((caught: unknown) => caught)) as ToolError;
    expect(denied.code).toBe('permission_denied');
    expect(denied.isRecoverable()).toBe(false);
    expect(denied.message).toContain('refused with permission_denied');
    const invalid = (await client
      .callTool('refuse', { code: 'invalid_arguments' })
      .catch((caught: unknown) => caught)) as ToolError;
    expect(invalid.code).toBe('invalid_arguments');
    expect(invalid.isRecoverable()).toBe(true);
    const unknown = (await client
      .callTool('refuse', { code: 'no_such_code' })
      .catch((caught: unknown) => caught)) as ToolError;
    expect(unknown.code).toBe('execution_failed');
    await client.close();
  });

  it('sends context.idempotencyKey as _meta["dev.agcore/idempotencyKey"] on tools/call', async () => {
    const client = await connect();
    const tool = (await client.tools()).find((candidate) => candidate.mcpName === 'meta');
    const value = await tool?.execute({}, createToolContext({ idempotencyKey: 'call-7f3a' }));
    expect(JSON.parse(String(value))).toMatchObject({ 'dev.agcore/idempotencyKey': 'call-7f3a' });
    await client.close();
  });
});
