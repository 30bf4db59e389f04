// A response stream cut mid-call fails that call at once, on both engines, instead of waiting
// for the time limit (both SDKs only report a transport error and wait).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient, type McpToolError } from '../index.js';
import { type ModernHttpServer, startModernHttp } from '../test-support/modern-server.js';

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

    // A stateless server hears a 2025 client's cancel only as the closed connection: the
    // notifications/cancelled POST reaches a fresh protocol server that knows no such call.
    it("closes an aborted call's response stream, so a stateless server's tool is cancelled", async () => {
      const client = new McpClient(
        'cancelling',
        { type: 'streamable-http', url: server.url },
        { protocol, timeoutMs: 600_000 },
      );
      await client.connect();
      const controller = new AbortController();
      let started: () => void = () => undefined;
      const running = new Promise<void>((resolve) => {
        started = resolve;
      });
      const call = client
        .callTool(
          'slow',
          { steps: 600, stepMs: 100 },
          { signal: controller.signal, onProgress: () => started() },
        )
        .catch((caught: unknown) => caught);
      await running;
      const before = server.events.filter((event) => event === 'cancelled slow').length;
      controller.abort();
      expect(await call).toMatchObject({ code: 'cancelled' });
      await expect
        .poll(() => server.events.filter((event) => event === 'cancelled slow').length, {
          timeout: 10_000,
        })
        .toBe(before + 1);
      expect((await client.callTool('echo', { message: 'after' })).value).toBe('Echo: after');
      await client.close();
    });
  },
);
