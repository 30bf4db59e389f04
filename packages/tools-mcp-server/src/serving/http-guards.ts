/** JSON-RPC error responses and the checks `serveTools` runs before any protocol code. */

/** A JSON-RPC error as an HTTP response (`id: null`: the request was not read as one). */
export function jsonRpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

const loopbackHosts = ['localhost', '127.0.0.1', '[::1]', '::1'];

/** The loopback host names: the default allow-list on a loopback listener. */
export function loopbackHostNames(): readonly string[] {
  return loopbackHosts;
}

/** Whether `address` (a socket's local address) is a loopback one. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/** The host name of a `Host` header value (`[::1]:8080` → `[::1]`, `a.b:80` → `a.b`). */
function hostNameOf(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end === -1 ? host : host.slice(0, end + 1);
  }
  const colon = host.indexOf(':');
  return (colon === -1 ? host : host.slice(0, colon)).toLowerCase();
}

/** A `403` when the `Host` header names a host outside `allowed` (DNS rebinding), else `undefined`. */
export function hostRefusal(
  request: Request,
  allowed: readonly string[] | undefined,
): Response | undefined {
  if (allowed === undefined) return undefined;
  const host = request.headers.get('host');
  if (host !== null && allowed.includes(hostNameOf(host))) return undefined;
  return jsonRpcError(
    403,
    -32000,
    `Host ${JSON.stringify(host)} is not allowed: list it in serveTools' allowedHosts.`,
  );
}

/** A `403` when an `Origin` header names a host outside `allowed`, else `undefined`. */
export function originRefusal(request: Request, allowed: readonly string[]): Response | undefined {
  const origin = request.headers.get('origin');
  if (origin === null) return undefined;
  let hostname: string;
  try {
    const url = new URL(origin);
    hostname = url.hostname.startsWith('[') ? url.hostname : url.hostname.toLowerCase();
  } catch {
    hostname = '';
  }
  if (hostname !== '' && allowed.includes(hostname)) return undefined;
  return jsonRpcError(
    403,
    -32000,
    `Origin ${JSON.stringify(origin)} is not allowed: list its host in serveTools' allowedOrigins.`,
  );
}

/** Reads a request body of at most `maxBytes` bytes; `undefined` when it is larger. */
export async function readBoundedBody(
  request: Request,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxBytes) return undefined;
  if (request.body === null) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
