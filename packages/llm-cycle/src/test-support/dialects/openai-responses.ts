/**
 * Test helpers of the Responses provider: a file's own server, and the ways a body is cut into
 * reads (whole, one event per write, random 1–48-byte writes from a fixed seed).
 */
import { afterAll, beforeAll } from 'vitest';
import { type ResponsesServer, startResponsesServer } from '../../testing/index.js';

/** The server of a test file (started in `beforeAll`, closed in `afterAll`). */
export function useResponsesServer(): { readonly server: ResponsesServer } {
  let current: ResponsesServer | undefined;
  beforeAll(async () => {
    current = await startResponsesServer();
  });
  afterAll(async () => {
    await current?.close();
  });
  return {
    get server() {
      if (current === undefined) throw new Error('the server starts in beforeAll');
      return current;
    },
  };
}

/** Every cut the tests replay a stream in: whole, one event per write, random 1–48-byte writes. */
export function cutsOf(events: readonly string[], seed = 22): (string | Uint8Array)[][] {
  const bytes = new TextEncoder().encode(events.join(''));
  let state = seed;
  const random = (): number => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  const small: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; ) {
    const size = 1 + Math.floor(random() * 48);
    small.push(bytes.subarray(start, start + size));
    start += size;
  }
  return [[events.join('')], [...events], small];
}
