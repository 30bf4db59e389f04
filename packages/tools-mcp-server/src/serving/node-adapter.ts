import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { isLoopbackAddress } from './http-guards.js';

/** What the fetch face is told about a request that came through `node:http`. */
export interface NodeRequestFacts {
  readonly loopback: boolean;
}

/**
 * Serves a `node:http` request with a fetch handler: the request becomes a Web `Request` whose
 * `signal` aborts when the connection closes before the answer is sent (how a stateless server
 * learns that a client cancelled), and the `Response` is streamed back as it comes (SSE).
 */
export function serveNode(
  request: IncomingMessage,
  response: ServerResponse,
  handle: (request: Request, facts: NodeRequestFacts) => Promise<Response>,
): void {
  const closed = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) closed.abort(new Error('the client closed the connection'));
  });
  request.on('error', () => closed.abort(new Error('the request failed')));
  const method = request.method ?? 'GET';
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const url = `http://${request.headers.host ?? 'localhost'}${request.url ?? '/'}`;
  const hasBody = method !== 'GET' && method !== 'HEAD';
  let webRequest: Request;
  try {
    webRequest = new Request(url, {
      method,
      headers,
      signal: closed.signal,
      ...(hasBody
        ? { body: Readable.toWeb(request) as ReadableStream<Uint8Array>, duplex: 'half' }
        : {}),
    } as RequestInit);
  } catch {
    response.writeHead(400).end();
    return;
  }
  void handle(webRequest, { loopback: isLoopbackAddress(request.socket.localAddress) })
    .then((answer) => writeResponse(answer, response, closed.signal))
    .catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
}

async function writeResponse(
  answer: Response,
  response: ServerResponse,
  closed: AbortSignal,
): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  answer.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  response.writeHead(answer.status, headers);
  if (answer.body === null) {
    response.end();
    return;
  }
  response.flushHeaders();
  const reader = answer.body.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  closed.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!response.write(value))
        await new Promise((resolve) => response.once('drain', resolve).once('close', resolve));
    }
    response.end();
  } finally {
    closed.removeEventListener('abort', stop);
  }
}
