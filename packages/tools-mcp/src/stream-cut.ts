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
 */
export class ResponseStreams {
  /** Told the id of each request whose response stream was cut. */
  onCut: ((id: string | number) => void) | undefined;

  constructor(private readonly base: typeof fetch | undefined) {}

  /** The fetch to give the transport. */
  readonly fetch = async (
    input: Parameters<typeof fetch>[0],
    init?: Parameters<typeof fetch>[1],
  ): Promise<Response> => {
    const response = await (this.base ?? globalThis.fetch)(input, init);
    const body = response.body;
    if (
      init?.method !== 'POST' ||
      body === null ||
      !response.ok ||
      !(response.headers.get('content-type') ?? '').includes('text/event-stream')
    ) {
      return response;
    }
    const id = requestIdOf(init.body);
    if (id === undefined) return response;
    return new Response(this.watch(body, id, init?.signal ?? undefined), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };

  private watch(
    body: ReadableStream<Uint8Array>,
    id: string | number,
    signal: AbortSignal | undefined,
  ): ReadableStream<Uint8Array> {
    const reader = body.getReader();
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          if (signal?.aborted !== true) this.onCut?.(id);
          controller.error(error);
        }
      },
      cancel: (reason) => reader.cancel(reason),
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
