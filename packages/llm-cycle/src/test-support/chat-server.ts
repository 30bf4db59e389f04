/**
 * A test file's own Chat Completions server on 127.0.0.1: started before its tests, closed after.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type ChatCompletionsServer, startChatCompletionsServer } from '../testing/index.js';

// biome-ignore lint/suspicious/noExplicitAny: the tests read the JSON bodies the server received
export type Json = any;

/** The server of a test file and the bodies it received. */
export interface ChatServerFixture {
  /** The running server (from the file's `beforeAll` to its `afterAll`). */
  readonly server: ChatCompletionsServer;
  /** The body of request `index` the server received, as JSON. */
  readonly sent: (index: number) => Json;
}

/**
 * Starts a server in `beforeAll` and closes it in `afterAll`; call at the top of a test file.
 * `resetBeforeEach`: each test starts with no script and no recorded requests.
 */
export function useChatServer(options: { resetBeforeEach?: boolean } = {}): ChatServerFixture {
  let current: ChatCompletionsServer | undefined;
  beforeAll(async () => {
    current = await startChatCompletionsServer();
  });
  afterAll(async () => {
    await current?.close();
  });
  if (options.resetBeforeEach === true) beforeEach(() => current?.reset());
  const server = (): ChatCompletionsServer => {
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
