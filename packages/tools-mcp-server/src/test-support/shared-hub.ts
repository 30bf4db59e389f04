// What the fleet's processes share, served by the test process over HTTP on 127.0.0.1 (it is
// never killed): an idempotency store (an InMemoryIdempotencyStore, atomic in one process) and a
// change feed (a broadcast to every open `GET /changes` stream). Stand-ins for the Postgres
// store and its LISTEN/NOTIFY feed; hub-client.ts is the nodes' side.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { JsonValue } from '@agcore/tools-core';
import { InMemoryIdempotencyStore } from '../fleet/idempotency-store.js';

interface StoreRequest {
  readonly key: string;
  readonly leaseMs?: number;
  readonly value?: JsonValue;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The hub: its URL, the store it serves, the changes it relayed. */
export class SharedHub {
  readonly store = new InMemoryIdempotencyStore({ maxEntries: 1_000_000 });
  /** Every change relayed, with when it came in (`performance.now()`). */
  readonly relayed: { readonly change: JsonValue; readonly at: number }[] = [];
  readonly #streams = new Set<ServerResponse>();

  private constructor(
    readonly url: string,
    private readonly server: Server,
  ) {}

  /** Starts the hub on a free port. */
  static async start(): Promise<SharedHub> {
    let hub: SharedHub | undefined;
    const server = createServer((request, response) => {
      hub?.serve(request, response).catch(() => response.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    hub = new SharedHub(`http://127.0.0.1:${port}`, server);
    return hub;
  }

  /** How many change streams are open (one per subscribed node). */
  get streams(): number {
    return this.#streams.size;
  }

  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = request.url ?? '/';
    if (path === '/changes' && request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      response.flushHeaders();
      this.#streams.add(response);
      response.on('close', () => this.#streams.delete(response));
      return;
    }
    const body = await bodyOf(request);
    if (path === '/changes') {
      this.relayed.push({ change: JSON.parse(body) as JsonValue, at: performance.now() });
      for (const stream of this.#streams) stream.write(`${body}\n`);
      response.writeHead(204).end();
      return;
    }
    const { key, leaseMs, value } = JSON.parse(body) as StoreRequest;
    const answer =
      path === '/store/reserve'
        ? await this.store.reserve(key, leaseMs ?? 0)
        : path === '/store/set'
          ? await this.store.set(key, value ?? null)
          : path === '/store/release'
            ? await this.store.release(key)
            : { value: (await this.store.get(key)) ?? null };
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify(answer ?? {}));
  }

  /** Ends the change streams and stops the hub. */
  close(): Promise<void> {
    for (const stream of this.#streams) stream.destroy();
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
