import type { ChangeFeed, ServerChange } from '@agcore/tools-core';
import { InMemoryServerEventBus, type ServerEventBus } from '@modelcontextprotocol/server';
import { jsonRpcError } from './http-guards.js';

/** How often an open 2025 notification stream sends a comment line, so proxies keep it. */
const keepAliveMs = 15_000;
/** The most 2025 notification streams one server keeps open. */
const maxStreams = 1024;
const encoder = new TextEncoder();

/** The 2025 notification each change is announced with (`resource_updated` has none: see README). */
const legacyMethods: Partial<Record<ServerChange['kind'], string>> = {
  tools_list_changed: 'notifications/tools/list_changed',
  prompts_list_changed: 'notifications/prompts/list_changed',
  resources_list_changed: 'notifications/resources/list_changed',
};

/**
 * Where a server's change announcements go: `bus` is what 2026-07-28 `subscriptions/listen`
 * streams hear (the user's `eventBus`, or one fed by the `changes` feed), and `openStream`
 * serves the 2025 GET notification stream that hears the same events.
 */
export interface ChangeNotices {
  /** The bus, or `undefined` when the server announces nothing (no `eventBus`, no `changes`). */
  readonly bus: ServerEventBus | undefined;
  /** The 2025 SSE stream for a GET; it ends when the client goes or `shutdown` aborts. */
  openStream(request: Request, shutdown: AbortSignal): Response;
  /** Stops hearing the feed and ends every open stream. */
  stop(): void;
}

/**
 * The change announcements of one `serveTools` server: with `changes`, every change published on
 * the feed (by this process or another sharing it) goes to this server's bus.
 * @throws {TypeError} when both `eventBus` and `changes` are given
 */
export function changeNotices(options: {
  readonly eventBus?: ServerEventBus | undefined;
  readonly changes?: ChangeFeed | undefined;
}): ChangeNotices {
  if (options.eventBus !== undefined && options.changes !== undefined)
    throw new TypeError('serveTools: pass eventBus or changes, not both');
  const bus =
    options.changes === undefined ? options.eventBus : new InMemoryServerEventBus(() => undefined);
  const unsubscribe =
    options.changes === undefined || bus === undefined
      ? () => undefined
      : options.changes.subscribe((change) => bus.publish(change));
  const ended = new AbortController();
  let open = 0;
  return {
    bus,
    openStream: (request, shutdown) => {
      if (bus === undefined) return jsonRpcError(405, -32000, 'No GET stream: POST only.');
      if (!(request.headers.get('accept') ?? '').includes('text/event-stream'))
        return jsonRpcError(406, -32000, 'Not acceptable: the GET stream is text/event-stream.');
      if (open >= maxStreams)
        return jsonRpcError(503, -32000, `Too many open notification streams (${maxStreams}).`);
      open += 1;
      const stop = AbortSignal.any([request.signal, shutdown, ended.signal]);
      const body = notificationStream(bus, stop, () => {
        open -= 1;
      });
      return new Response(body, {
        headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
      });
    },
    stop: () => {
      unsubscribe();
      ended.abort();
    },
  };
}

/** An SSE body of the bus's changes as 2025 notifications, with keep-alive comments, until `stop`. */
function notificationStream(
  bus: ServerEventBus,
  stop: AbortSignal,
  onEnd: () => void,
): ReadableStream<Uint8Array> {
  let cleanup: () => void = () => undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          // The stream already ended.
        }
      };
      const unsubscribe = bus.subscribe((event) => {
        const method = legacyMethods[event.kind];
        if (method !== undefined)
          write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method })}\n\n`);
      });
      const timer = setInterval(() => write(': keep-alive\n\n'), keepAliveMs);
      let done = false;
      cleanup = () => {
        if (done) return;
        done = true;
        unsubscribe();
        clearInterval(timer);
        stop.removeEventListener('abort', close);
        onEnd();
      };
      const close = () => {
        cleanup();
        try {
          controller.close();
        } catch {
          // Already closed or cancelled.
        }
      };
      if (stop.aborted) close();
      else stop.addEventListener('abort', close, { once: true });
      write(': open\n\n');
    },
    cancel() {
      cleanup();
    },
  });
}
