import { LlmError } from '../../llm-error.js';
import type { Endpoint } from './endpoint.js';
import type { Exchange } from './exchange.js';

/** What reading one answer needs. */
export interface Reading {
  readonly exchange: Exchange;
  readonly endpoint: Endpoint;
  readonly maxResponseBytes: number;
  /** The answer's `content-type` (`''` when it sent none). */
  readonly contentType: string;
}

type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>;

/** Decodes whole bodies; stateless when called without `stream`, so one serves every request. */
const wholeDecoder = new TextDecoder();
/**
 * Decodes the reads of a body that end on a character boundary, the start of the body excepted
 * (it keeps a byte-order mark: only the very start of a body may drop one). Stateless too, and
 * several times faster than a decoder in `stream` mode, which Node runs through ICU.
 */
const pieceDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * A response body read piece by piece within `maxResponseBytes`: each read resets the idle
 * clock, and a failure is mapped by the exchange (network, timeout, cancelled).
 */
export class BodyReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #reading: Reading;
  /** The decoder in `stream` mode, once a read ended inside a character (or the body began with a BOM). */
  #decoder: InstanceType<typeof TextDecoder> | undefined;
  /** Whether `#decoder` may hold the first bytes of a character. */
  #pending = false;
  /** Whether text was decoded already. */
  #decoding = false;
  #bytes = 0;

  /** Reads `body`; nothing is read before the first `next()`. */
  constructor(body: ReadableStream<Uint8Array>, reading: Reading) {
    this.#reader = body.getReader();
    this.#reading = reading;
    reading.exchange.whenExpired(() => this.cancel());
  }

  /**
   * The bytes of the next read, or `undefined` at the end of the body.
   * @throws {LlmError} `network`, `timeout`, `cancelled`, or `invalid_response` past the size limit
   */
  nextBytes(): Promise<Uint8Array | undefined> {
    return this.#reader.read().then(this.#bytesOf, this.#readFailed);
  }

  /**
   * The text of the next read (maybe `''` while a character is incomplete), or `undefined` at
   * the end of the body.
   * @throws {LlmError} as `nextBytes`
   */
  next(): Promise<string | undefined> {
    return this.#reader.read().then(this.#textOf, this.#readFailed);
  }

  // `next` and `nextBytes` run once per network read: plain reactions on the read, bound once,
  // not an async function's frame and await per read (see the performance section of the README).
  readonly #bytesOf = (read: ReadResult): Uint8Array | undefined => this.#accept(read);

  readonly #textOf = (read: ReadResult): string | undefined => {
    const bytes = this.#accept(read);
    return bytes === undefined ? undefined : this.#decode(bytes);
  };

  readonly #readFailed = (error: unknown): never => {
    throw this.#reading.exchange.failure(error, 'reading the response');
  };

  /**
   * The text of a read. A read that ends on an ASCII byte (an SSE read ends with a newline) ends
   * on a character boundary, and is decoded on its own; one that may end inside a character
   * goes through the streaming decoder, which keeps the incomplete end for the next read.
   */
  #decode(bytes: Uint8Array): string {
    const atStart = !this.#decoding;
    this.#decoding = true;
    const last = bytes[bytes.length - 1];
    const boundary = last !== undefined && last < 0x80;
    if (!this.#pending && boundary && !(atStart && startsWithBom(bytes)))
      return pieceDecoder.decode(bytes);
    this.#decoder ??= new TextDecoder('utf-8', { ignoreBOM: !atStart });
    this.#pending = !boundary;
    return this.#decoder.decode(bytes, { stream: true });
  }

  /** The bytes of a read: counted, the idle clock moved; `undefined` at the end. */
  #accept(read: ReadResult): Uint8Array | undefined {
    if (read.done) {
      // A body cancelled because a limit ran out ends early: that is the timeout, not the end.
      if (this.#reading.exchange.expired)
        throw this.#reading.exchange.failure(undefined, 'reading the response');
      return undefined;
    }
    this.#reading.exchange.touch();
    this.#bytes += read.value.byteLength;
    if (this.#bytes > this.#reading.maxResponseBytes) throw tooLarge(this.#reading);
    return read.value;
  }

  /** The rest of the body as text, decoded once. @throws {LlmError} as `nextBytes` */
  async rest(): Promise<string> {
    const parts: Uint8Array[] = [];
    for (let bytes = await this.nextBytes(); bytes !== undefined; bytes = await this.nextBytes())
      parts.push(bytes);
    const decoder = this.#decoder;
    if (decoder !== undefined && this.#pending) {
      // A read ended inside a character: go on with the same (streaming) decoder.
      return (
        parts.map((part) => decoder.decode(part, { stream: true })).join('') + decoder.decode()
      );
    }
    // After text was read, a BOM is no longer the body's first bytes: it is kept.
    const whole = this.#decoding ? pieceDecoder : wholeDecoder;
    if (parts.length <= 1) return whole.decode(parts[0]);
    const joined = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
    let offset = 0;
    for (const part of parts) {
      joined.set(part, offset);
      offset += part.byteLength;
    }
    return whole.decode(joined);
  }

  /** The underlying reader (to finish reading the end of a stream in the background). */
  get reader(): ReadableStreamDefaultReader<Uint8Array> {
    return this.#reader;
  }

  /** Stops reading and tells the server. Never throws. */
  cancel(): void {
    this.#reader.cancel().catch(() => undefined);
  }
}

/** Whether `bytes` begins with the UTF-8 byte-order mark. */
function startsWithBom(bytes: Uint8Array): boolean {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/** The `invalid_response` for a body over `maxResponseBytes`. */
export function tooLarge(reading: Reading): LlmError {
  return new LlmError(
    'invalid_response',
    `${reading.endpoint.shown} sent a response over maxResponseBytes (${reading.maxResponseBytes} bytes); the rest was not read. Raise maxResponseBytes if such answers are expected.`,
  );
}

/** Refuses a body whose `content-length` already says it is too large, before reading it. */
export function checkContentLength(response: Response, reading: Reading): void {
  const length = Number(response.headers.get('content-length') ?? Number.NaN);
  if (length > reading.maxResponseBytes) {
    response.body?.cancel().catch(() => undefined);
    throw tooLarge(reading);
  }
}
