import { canonicalJson, type JsonValue } from '@agcore/tools-core';

/** The call an `input_required` request state was sealed for. */
export interface SealedCall {
  readonly toolName: string;
  readonly args: unknown;
  readonly callerId: string | undefined;
  readonly data?: JsonValue;
}

/** Whether an echoed state opened, and why not. */
export type OpenedState =
  | { readonly ok: true; readonly call: SealedCall }
  | { readonly ok: false; readonly reason: string };

interface Payload {
  readonly d: string;
  readonly e: number;
  readonly v?: JsonValue;
}

const encoder = new TextEncoder();

/**
 * Seals the state of a call that asked back (`input_required`) with HMAC-SHA256 under a key every
 * instance shares, bound to the tool, its arguments and the caller, valid for `ttlMs`. Signed, not
 * encrypted: the client can read the `data` the tool gave, as it could read the question.
 */
export class RequestStateSeal {
  readonly #key: Promise<Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>>;
  readonly #ttlMs: number;

  constructor(key: string | Uint8Array, ttlMs: number) {
    const bytes = typeof key === 'string' ? encoder.encode(key) : key;
    if (bytes.byteLength < 32) {
      throw new RangeError(
        `serveTools: requestStateKey must be at least 32 bytes, got ${bytes.byteLength}`,
      );
    }
    if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
      throw new RangeError(
        `serveTools: requestStateTtlMs must be a positive number, got ${String(ttlMs)}`,
      );
    }
    this.#ttlMs = ttlMs;
    this.#key = globalThis.crypto.subtle.importKey(
      'raw',
      new Uint8Array(bytes),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign', 'verify'],
    );
    this.#key.catch(() => undefined);
  }

  /** The wire string for `call`: `base64url(payload).base64url(mac)`. */
  async seal(call: SealedCall): Promise<string> {
    const payload: Payload = {
      d: await digestOf(call),
      e: Date.now() + this.#ttlMs,
      ...(call.data === undefined ? {} : { v: call.data }),
    };
    const body = toBase64Url(encoder.encode(JSON.stringify(payload)));
    const mac = await globalThis.crypto.subtle.sign('HMAC', await this.#key, encoder.encode(body));
    return `${body}.${toBase64Url(new Uint8Array(mac))}`;
  }

  /** Opens `state` echoed for `call` (its `data` is read from the state); never rejects. */
  async open(state: string, call: Omit<SealedCall, 'data'>): Promise<OpenedState> {
    try {
      const [body, mac, extra] = state.split('.');
      if (body === undefined || mac === undefined || extra !== undefined)
        return { ok: false, reason: 'malformed' };
      const valid = await globalThis.crypto.subtle.verify(
        'HMAC',
        await this.#key,
        fromBase64Url(mac),
        encoder.encode(body),
      );
      if (!valid) return { ok: false, reason: 'its seal does not match' };
      const payload = JSON.parse(new TextDecoder().decode(fromBase64Url(body))) as Payload;
      if (typeof payload.e !== 'number' || payload.e < Date.now())
        return { ok: false, reason: 'it expired' };
      if (payload.d !== (await digestOf(call))) {
        return {
          ok: false,
          reason: 'it was sealed for another tool, other arguments or another caller',
        };
      }
      return {
        ok: true,
        call: { ...call, ...(payload.v === undefined ? {} : { data: payload.v }) },
      };
    } catch {
      return { ok: false, reason: 'malformed' };
    }
  }
}

async function digestOf(call: Omit<SealedCall, 'data'>): Promise<string> {
  const text = canonicalJson([call.toolName, call.args as JsonValue, call.callerId ?? null]);
  const digest = await globalThis.crypto.subtle.digest('SHA-256', encoder.encode(text));
  return toBase64Url(new Uint8Array(digest));
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}
