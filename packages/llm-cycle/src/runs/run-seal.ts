import {
  canonicalJson,
  hmacSha256Hex,
  type JsonValue,
  sha256Hex,
  timingSafeHexEqual,
} from '@agcore/tools-core';

/*
 * Hashes of a run state (tools-core's synchronous SHA-256: `cycle.state()` and
 * `new LlmCycle({ state })` are synchronous, Web Crypto's digest is asynchronous only, and
 * `node:crypto` would keep this entry out of browsers and edge runtimes). Everything hashed is
 * canonical JSON (tools-core's `canonicalJson`: keys sorted by UTF-16 code units, no
 * whitespace, strings and numbers as `JSON.stringify` writes them), so a state that went
 * through `JSON.parse(JSON.stringify(state))`, or another JSON library that reorders keys,
 * hashes the same.
 */

/** SHA-256 of `text` (UTF-8), in lower-case hex. */
export function sha256(text: string): string {
  return sha256Hex(text);
}

/** What binds a pending call: everything a decision on it depends on, its id included. */
export interface CallBinding {
  readonly kind: 'approval' | 'input';
  readonly callId: string;
  readonly toolName: string;
  /** The parsed arguments, as the person was shown them. */
  readonly arguments: JsonValue;
  readonly prompt?: string;
  readonly data?: JsonValue;
}

/**
 * The hash of a pending call: SHA-256 of `canonicalJson({ arguments, callId, kind, toolName,
 * prompt?, data? })`. Altering the arguments (or, for kind `input`, the prompt or the data the
 * tool gets back) changes it.
 */
export function bindingHash(binding: CallBinding): string {
  return sha256(canonicalJson(binding));
}

/** HMAC-SHA-256 (hex) of the canonical JSON of `state` (which must not hold its `mac`). */
export function stateMac(state: object, secret: string | Uint8Array): string {
  return hmacSha256Hex(secret, canonicalJson(state));
}

/** Whether `mac` is the HMAC of `state`, compared in constant time. */
export function macMatches(state: object, mac: string, secret: string | Uint8Array): boolean {
  return timingSafeHexEqual(mac, stateMac(state, secret));
}
