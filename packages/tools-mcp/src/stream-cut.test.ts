// A response stream cut mid-call fails that call at once, on both engines, instead of waiting
// for the time limit (both SDKs only report a transport error and wait).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient, type McpToolError } from './index.js';
import { type ModernHttpServer, startModernHttp } from './test-support/modern-server.js';

let server: ModernHttpServer;
beforeAll(async () => {
  server = await startModernHttp({ legacy: 'stateless' });
});
afterAll(async () => {
  await server.stop();
});

describe.each(['legacy', 'auto'] as const)(
  'protocol: %s, an HTTP server that closes the response stream mid-call',
  (protocol) => {
    it('fails that call with a recoverable mcp_error at once, and the client stays usable', async () => {
      const client = new McpClient(
        'cutting',
        { type: 'streamable-http', url: server.url },
        // Far beyond the test's own limit: the call must fail because its stream was cut.
        { protocol, timeoutMs: 600_000 },
      );
      await client.connect();
      const progress: number[] = [];
      const error = (await client
        .callTool(
          'cut',
          { steps: 600, stepMs: 100 },
          { onProgress: (update) => progress.push(update.progress) },
        )
        .catch((caught: unknown) => caught)) as McpToolError;
      expect(error.code).toBe('mcp_error');
      expect(error.isRecoverable(), error.message).toBe(true);
      expect(error.message).toMatch(/'cut'.*response stream closed before the result came/);
      expect((await client.callTool('echo', { message: 'after' })).value).toBe('Echo: after');
      await client.close();
    });
  },
);
