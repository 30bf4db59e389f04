// The fleet nodes' side of shared-hub.ts: an IdempotencyStore and a ChangeFeed over HTTP.
import type {
  ChangeFeed,
  IdempotencyReservation,
  IdempotencyStore,
  JsonValue,
  ServerChange,
} from '@agcore/tools-core';

async function ask(hub: string, op: string, body: Record<string, JsonValue>): Promise<unknown> {
  const response = await fetch(`${hub}/store/${op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`the hub answered ${response.status} to ${op}`);
  return response.json();
}

/** The hub's idempotency store. */
export function hubIdempotencyStore(hub: string): IdempotencyStore {
  return {
    get: async (key) => {
      const { value } = (await ask(hub, 'get', { key })) as { value: JsonValue };
      return value === null ? undefined : value;
    },
    set: async (key, value) => {
      await ask(hub, 'set', { key, value });
    },
    reserve: async (key, leaseMs) =>
      (await ask(hub, 'reserve', { key, leaseMs })) as IdempotencyReservation,
    release: async (key) => {
      await ask(hub, 'release', { key });
    },
  };
}

/** The hub's change feed: one `GET /changes` stream per process, opened by `connect`. */
export class HubChangeFeed implements ChangeFeed {
  readonly #listeners = new Set<(change: ServerChange) => void>();

  constructor(private readonly hub: string) {}

  /** Opens the stream; resolves once the hub has it (changes published after reach this process). */
  async connect(): Promise<void> {
    const response = await fetch(`${this.hub}/changes`);
    const body = response.body;
    if (!response.ok || body === null) throw new Error(`the hub answered ${response.status}`);
    void this.#read(body).catch(() => undefined);
  }

  async #read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const chunk of body) {
      buffered += decoder.decode(chunk, { stream: true });
      for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
        const change = JSON.parse(buffered.slice(0, end)) as ServerChange;
        buffered = buffered.slice(end + 1);
        for (const listener of [...this.#listeners]) {
          try {
            listener(change);
          } catch {
            // One listener's failure stops no other.
          }
        }
      }
    }
  }

  async publish(change: ServerChange): Promise<void> {
    const response = await fetch(`${this.hub}/changes`, {
      method: 'POST',
      body: JSON.stringify(change),
    });
    if (!response.ok) throw new Error(`the hub answered ${response.status} to a change`);
  }

  subscribe(listener: (change: ServerChange) => void): () => void {
    const own = (change: ServerChange) => listener(change);
    this.#listeners.add(own);
    return () => {
      this.#listeners.delete(own);
    };
  }
}
