/**
 * A test file's own Messages server on 127.0.0.1 (started before its tests, reset before each,
 * closed after), and a `fetch` that cuts every answer into reads of random sizes.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type MessagesServer, startMessagesServer } from '../../testing/index.js';

/** The server of a test file. */
export interface MessagesFixture {
  readonly server: MessagesServer;
  /** The body of request `index` the server received. */
  // biome-ignore lint/suspicious/noExplicitAny: the tests read the JSON bodies the server received
  readonly sent: (index: number) => any;
}

/** Starts a Messages server for the file; each test starts with no script and no requests. */
export function useMessagesServer(): MessagesFixture {
  let current: MessagesServer | undefined;
  beforeAll(async () => {
    current = await startMessagesServer();
  });
  afterAll(async () => {
    await current?.close();
  });
  beforeEach(() => current?.reset());
  const server = (): MessagesServer => {
    if (current === undefined) throw new Error('the server starts in beforeAll');
    return current;
  };
  return {
    get server() {
      return server();
    },
    sent: (index) => server().requests[index]?.body,
  };
}

/**
 * The global `fetch`, with each answer's body read in pieces of `minBytes`–`maxBytes` bytes
 * (seeded: the same cuts for the same seed), UTF-8 characters and SSE lines cut anywhere.
 */
export function choppedFetch(seed: number, minBytes = 1, maxBytes = 48): typeof globalThis.fetch {
  let state = seed >>> 0 || 1;
  const random = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.body === null) return response;
    const bytes = new Uint8Array(await response.arrayBuffer());
    let offset = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= bytes.length) {
          controller.close();
          return;
        }
        const size = minBytes + Math.floor(random() * (maxBytes - minBytes + 1));
        controller.enqueue(bytes.slice(offset, offset + size));
        offset += size;
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
}
