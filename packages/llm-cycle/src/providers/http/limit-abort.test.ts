/**
 * A limit that runs out before the response headers ends the HTTP request itself, not only the
 * promise: its connection is closed (or, still queued, it is never sent), so no request outlives
 * its limit on the server (holding a socket, or taking a reply scripted for a later request), and
 * retries do not pile up open requests. Each test has a server of its own that never answers and
 * counts the requests still open (a request is open until its connection closes). Connections
 * are not what is counted: after an aborted request, Node 20 and 22's `fetch` opens a spare one
 * and keeps it idle for its keep-alive timeout (4 s), with no request on it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatChunk, ChatProvider } from '../../chat-provider.js';
import { LlmCycle } from '../../loop/llm-cycle.js';
import { rejection } from '../../test-support/results.js';
import { createOpenAICompatibleProvider } from '../openai-compatible/openai-compatible-provider.js';

/** A server that reads each request and never answers, with its own counts. */
interface HangingServer {
  readonly server: Server;
  readonly baseURL: string;
  /** Connections accepted. */
  accepted: number;
  /** Requests received whose connection is still open. */
  open: number;
}

async function startHangingServer(): Promise<HangingServer> {
  const server = createServer((request, response) => {
    hanging.open++;
    response.on('close', () => {
      hanging.open--;
    });
    request.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const hanging: HangingServer = {
    server,
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    accepted: 0,
    open: 0,
  };
  server.on('connection', () => {
    hanging.accepted++;
  });
  return hanging;
}

let hanging: HangingServer;

beforeEach(async () => {
  hanging = await startHangingServer();
});
afterEach(async () => {
  hanging.server.closeAllConnections();
  await new Promise((resolve) => hanging.server.close(resolve));
});

const request = { model: 'm', messages: [{ role: 'user' as const, content: 'Hi' }] };

function provider(options: Record<string, unknown>): ChatProvider {
  return createOpenAICompatibleProvider({ baseURL: hanging.baseURL, ...options });
}

async function drain(stream: AsyncIterable<ChatChunk>): Promise<void> {
  for await (const _chunk of stream) {
    // nothing
  }
}

/**
 * How many requests are still open once the server accepted a connection and every request
 * closed, or after `boundMs` (a generous bound: without an abort, Node's `fetch` holds the
 * connection of a request that got no headers until undici's headers timeout, 300 s).
 */
async function openAfterwards(boundMs = 5_000): Promise<number> {
  const until = Date.now() + boundMs;
  while ((hanging.open > 0 || hanging.accepted === 0) && Date.now() < until)
    await new Promise((resolve) => setTimeout(resolve, 10));
  return hanging.open;
}

describe('a limit that runs out before the headers ends the request', () => {
  it('timeoutMs, not streamed: the connection is closed', async () => {
    const error = await rejection(provider({ timeoutMs: 100 }).chat(request));
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('timeoutMs (100 ms');
    expect(await openAfterwards()).toBe(0);
    expect(hanging.accepted).toBeGreaterThan(0);
  });

  it('idleTimeoutMs, streamed: the connection is closed', async () => {
    const error = await rejection(drain(provider({ idleTimeoutMs: 100 }).chatStream(request)));
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('idleTimeoutMs (100 ms)');
    expect(await openAfterwards()).toBe(0);
    expect(hanging.accepted).toBeGreaterThan(0);
  });

  it('retries after a timeout leave no request open behind them', async () => {
    const cycle = new LlmCycle({
      provider: provider({ idleTimeoutMs: 100 }),
      model: 'm',
      retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 1 },
    });
    const error = await rejection(cycle.submit('Hello?'));
    expect(error.code).toBe('timeout');
    expect(await openAfterwards()).toBe(0);
    expect(hanging.accepted).toBeGreaterThan(0);
  });

  it("the caller's abort before the headers closes the connection too", async () => {
    const controller = new AbortController();
    const answer = rejection(provider({}).chat(request, { signal: controller.signal }));
    while (hanging.accepted === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    expect((await answer).code).toBe('cancelled');
    expect(await openAfterwards()).toBe(0);
  });
});
