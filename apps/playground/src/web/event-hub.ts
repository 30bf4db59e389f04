import type { ServerResponse } from 'node:http';

/** One record the page receives on its event stream, numbered in the order it was published. */
interface Numbered {
  readonly id: number;
  readonly data: string;
}

/** How many records the hub keeps for a page that (re)connects; older runs drop out first. */
const maxKept = 50_000;

/**
 * The page's event stream (Server-Sent Events): every record published since the server
 * started is kept (up to `maxKept`), so a reloaded page replays the runs it missed and then
 * follows live; a reconnect with `Last-Event-ID` gets only what came after.
 */
export class EventHub {
  readonly #kept: Numbered[] = [];
  readonly #clients = new Set<ServerResponse>();
  #nextId = 1;

  /** Sends `record` (JSON) to every connected page and keeps it. Never throws. */
  publish(record: object): void {
    const entry = { id: this.#nextId++, data: JSON.stringify(record) };
    this.#kept.push(entry);
    if (this.#kept.length > maxKept) this.#kept.splice(0, this.#kept.length - maxKept);
    for (const client of this.#clients) writeEntry(client, entry);
  }

  /** Streams to `response`: the kept records after `lastId`, then each new one. Never throws. */
  attach(response: ServerResponse, lastId: number): void {
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-content-type-options': 'nosniff',
    });
    response.write('retry: 1000\n\n');
    for (const entry of this.#kept) if (entry.id > lastId) writeEntry(response, entry);
    this.#clients.add(response);
    response.on('close', () => this.#clients.delete(response));
  }

  /** Ends every stream (the server is closing). Never throws. */
  close(): void {
    for (const client of this.#clients) client.end();
    this.#clients.clear();
  }
}

function writeEntry(response: ServerResponse, entry: Numbered): void {
  // JSON.stringify escapes newlines, so one `data:` line holds the whole record.
  response.write(`id: ${entry.id}\ndata: ${entry.data}\n\n`);
}
