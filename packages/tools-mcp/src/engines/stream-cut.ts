/**
 * The JSON-RPC error a connection hands its SDK for a request whose response stream was cut:
 * the SDK settles the request with it, and the error mapping turns it into a recoverable
 * `mcp_error` (see `isStreamCut`). Both SDKs would otherwise wait for the time limit: a stream
 * that drops only makes them report a transport error.
 */
export const streamCutCode = -32000;
const streamCutMarker = 'agcore/streamCut';

/** The synthetic response for request `id` whose stream was cut. */
export function streamCutResponse(id: string | number): {
  readonly jsonrpc: '2.0';
  readonly id: string | number;
  readonly error: { code: number; message: string; data: Record<string, boolean> };
} {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: streamCutCode,
      message: 'the response stream closed before the result came',
      data: { [streamCutMarker]: true },
    },
  };
}

/** Whether an SDK error is the one `streamCutResponse` made. Never throws. */
export function isStreamCut(error: unknown): boolean {
  const data = (error as { data?: unknown } | null)?.data;
  return typeof data === 'object' && data !== null && streamCutMarker in data;
}

/**
 * Watches the SSE response streams of POSTed requests: `fetch` (the application's or the
 * global one) wrapped so that a stream that fails mid-way (the server closed the socket, a
 * proxy dropped it) calls `onCut` with the request's id. A stream we aborted is no cut.
 * A POSTed `notifications/cancelled` closes the response stream of the request it names: a
 * stateless server hears a 2025 client's cancel only as the closed connection (the v1 SDK
 * sends the notification and leaves the stream open; the v2 SDK aborts the request itself).
 */
export class ResponseStreams {
  /** Told the id of each request whose response stream was cut. */
  onCut: ((id: string | number) => void) | undefined;
  /** Closes the open response stream of each request, by id. */
  private readonly open = new Map<string | number, () => void>();

  constructor(private readonly base: typeof fetch | undefined) {}

  /** The fetch to give the transport. */
  readonly fetch = async (
    input: Parameters<typeof fetch>[0],
    init?: Parameters<typeof fetch>[1],
  ): Promise<Response> => {
    const base = this.base ?? globalThis.fetch;
    if (init?.method !== 'POST') return base(input, init);
    const cancelled = cancelledIdOf(init.body);
    if (cancelled !== undefined) this.open.get(cancelled)?.();
    const id = requestIdOf(init.body);
    if (id === undefined) return base(input, init);
    // Our own abort, so that a cancel closes the request before its answer's headers came too.
    const closer = new AbortController();
    const close = (): void => closer.abort();
    this.open.set(id, close);
    const signal = init.signal ? AbortSignal.any([init.signal, closer.signal]) : closer.signal;
    let response: Response;
    try {
      response = await base(input, { ...init, signal });
    } catch (error) {
      this.forget(id, close);
      throw error;
    }
    const body = response.body;
    if (
      body === null ||
      !response.ok ||
      !(response.headers.get('content-type') ?? '').includes('text/event-stream')
    ) {
      this.forget(id, close);
      return response;
    }
    return new Response(this.watch(body, id, signal, close), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };

  private forget(id: string | number, close: () => void): void {
    if (this.open.get(id) === close) this.open.delete(id);
  }

  private watch(
    body: ReadableStream<Uint8Array>,
    id: string | number,
    signal: AbortSignal,
    close: () => void,
  ): ReadableStream<Uint8Array> {
    const reader = body.getReader();
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          const { done, value } = await reader.read();
          if (!done) {
            controller.enqueue(value);
            return;
          }
          this.forget(id, close);
          controller.close();
        } catch (error) {
          this.forget(id, close);
          if (signal.aborted) {
            // Closed on purpose (cancelled, or the transport closing): no transport error.
            controller.close();
            return;
          }
          this.onCut?.(id);
          controller.error(error);
        }
      },
      cancel: (reason) => {
        this.forget(id, close);
        return reader.cancel(reason);
      },
    });
  }
}

/** The id of the JSON-RPC request in a POST body (not of a notification or a batch). */
function requestIdOf(body: unknown): string | number | undefined {
  if (typeof body !== 'string' || !body.startsWith('{')) return undefined;
  try {
    const message = JSON.parse(body) as { id?: unknown; method?: unknown };
    const id = message.id;
    if (typeof message.method !== 'string') return undefined;
    return typeof id === 'string' || typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** The `requestId` a POSTed `notifications/cancelled` names, if the body is one. */
function cancelledIdOf(body: unknown): string | number | undefined {
  if (typeof body !== 'string' || !body.includes('notifications/cancelled')) return undefined;
  try {
    const message = JSON.parse(body) as { method?: unknown; params?: { requestId?: unknown } };
    if (message.method !== 'notifications/cancelled') return undefined;
    const id = message.params?.requestId;
    return typeof id === 'string' || typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}
