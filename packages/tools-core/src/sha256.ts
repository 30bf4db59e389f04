/**
 * SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), synchronous, for what must hash without
 * waiting: llm-cycle's run seal (`cycle.state()` and `new LlmCycle({ state })` are synchronous,
 * Web Crypto's digest is not, and a static import of `node:crypto` keeps an entry out of
 * browsers and edge runtimes). Where the host has Node's `process.getBuiltinModule` (Node
 * 20.16+, Bun, Deno) its native `node:crypto` does the work, found at the first call (no import
 * a bundler sees); elsewhere (browsers, workerd) `@noble/hashes` (audited, synchronous, no
 * dependencies), on `TextEncoder` for strings. Both are checked against `node:crypto` in tests.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/** The part of `node:crypto` the fast path uses. */
interface NativeHash {
  update(data: string | Uint8Array): NativeHash;
  digest(encoding: 'hex'): string;
}

interface NativeCrypto {
  createHash(algorithm: 'sha256'): NativeHash;
  createHmac(algorithm: 'sha256', key: string | Uint8Array): NativeHash;
}

/** `undefined`: not looked for yet; `null`: the host has none. */
let native: NativeCrypto | null | undefined;

function nativeCrypto(): NativeCrypto | null {
  if (native !== undefined) return native;
  try {
    const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } })
      .process;
    const found = host?.getBuiltinModule?.('node:crypto') as Partial<NativeCrypto> | undefined;
    native =
      typeof found?.createHash === 'function' && typeof found.createHmac === 'function'
        ? (found as NativeCrypto)
        : null;
  } catch {
    native = null;
  }
  return native;
}

const encoder = new TextEncoder();

function bytesOf(data: string | Uint8Array): Uint8Array {
  // `TextEncoder` writes a lone surrogate as U+FFFD, as Node's 'utf8' encoding does.
  return typeof data === 'string' ? encoder.encode(data) : data;
}

/** SHA-256 of `data` (a string is hashed as UTF-8), in lower-case hex (64 digits). Never throws. */
export function sha256Hex(data: string | Uint8Array): string {
  const crypto = nativeCrypto();
  return crypto === null
    ? portableSha256Hex(data)
    : crypto.createHash('sha256').update(data).digest('hex');
}

/**
 * HMAC-SHA-256 (RFC 2104) of `data` under `key` (strings as UTF-8; a key longer than the
 * 64-byte block is hashed first, as the RFC says), in lower-case hex (64 digits). Never throws.
 */
export function hmacSha256Hex(key: string | Uint8Array, data: string | Uint8Array): string {
  const crypto = nativeCrypto();
  return crypto === null
    ? portableHmacSha256Hex(key, data)
    : crypto.createHmac('sha256', key).update(data).digest('hex');
}

/** `sha256Hex` by `@noble/hashes` only (what runs where the host has no `node:crypto`). */
export function portableSha256Hex(data: string | Uint8Array): string {
  return bytesToHex(sha256(bytesOf(data)));
}

/** `hmacSha256Hex` by `@noble/hashes` only (what runs where the host has no `node:crypto`). */
export function portableHmacSha256Hex(key: string | Uint8Array, data: string | Uint8Array): string {
  return bytesToHex(hmac(sha256, bytesOf(key), bytesOf(data)));
}

const hexText = /^[0-9a-fA-F]*$/;

/**
 * Whether two hex strings name the same bytes (upper or lower case alike), in time that
 * depends on their length only, not on where they differ (for comparing a MAC someone gave
 * with the one computed). `false` when either is not hex or the lengths differ. Never throws.
 */
export function timingSafeHexEqual(given: string, expected: string): boolean {
  if (given.length !== expected.length || !hexText.test(given) || !hexText.test(expected))
    return false;
  let difference = 0;
  for (let index = 0; index < given.length; index++)
    difference |= (given.charCodeAt(index) | 0x20) ^ (expected.charCodeAt(index) | 0x20);
  return difference === 0;
}
