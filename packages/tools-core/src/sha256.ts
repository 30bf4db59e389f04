/**
 * SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), synchronous, for what must hash without
 * waiting: llm-cycle's run seal (`cycle.state()` and `new LlmCycle({ state })` are synchronous,
 * Web Crypto's digest is not, and a static import of `node:crypto` keeps an entry out of
 * browsers and edge runtimes). Where the host has Node's `process.getBuiltinModule` (Node
 * 20.16+, Bun, Deno) its native `node:crypto` does the work, found at the first call (no import
 * a bundler sees); elsewhere (browsers, workerd) the portable code below, on `TextEncoder` only.
 * Both are checked against `node:crypto` in tests.
 */

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

/** The round constants: the first 32 bits of the cube roots of the first 64 primes. */
const roundConstants = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** The initial hash value: the first 32 bits of the square roots of the first 8 primes. */
const initialHash = [
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

const blockBytes = 64;
const encoder = new TextEncoder();

function bytesOf(data: string | Uint8Array): Uint8Array {
  // `TextEncoder` writes a lone surrogate as U+FFFD, as Node's 'utf8' encoding does.
  return typeof data === 'string' ? encoder.encode(data) : data;
}

/** The message padded to whole blocks: a 1 bit, zeros, and its length in bits (64-bit big-endian). */
function padded(message: Uint8Array): Uint8Array {
  const length = Math.ceil((message.length + 9) / blockBytes) * blockBytes;
  const blocks = new Uint8Array(length);
  blocks.set(message);
  blocks[message.length] = 0x80;
  const bits = message.length * 8;
  const high = Math.floor(bits / 0x100000000);
  const low = bits >>> 0;
  for (let index = 0; index < 4; index++) {
    blocks[length - 8 + index] = (high >>> (24 - index * 8)) & 0xff;
    blocks[length - 4 + index] = (low >>> (24 - index * 8)) & 0xff;
  }
  return blocks;
}

/** The message schedule, reused by every block (the hash is synchronous: no call overlaps). */
const schedule = new Int32Array(64);

/** The next 16 words of the schedule from `blocks` at `offset`, and the 48 derived from them. */
function fillSchedule(blocks: Uint8Array, offset: number): void {
  for (let index = 0; index < 16; index++) {
    const at = offset + index * 4;
    schedule[index] =
      ((blocks[at] as number) << 24) |
      ((blocks[at + 1] as number) << 16) |
      ((blocks[at + 2] as number) << 8) |
      (blocks[at + 3] as number);
  }
  for (let index = 16; index < 64; index++) {
    const w15 = schedule[index - 15] as number;
    const w2 = schedule[index - 2] as number;
    const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
    const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
    // Each sum is brought back to 32 bits at once, so that V8 keeps to integer arithmetic.
    schedule[index] =
      ((((schedule[index - 16] as number) + s0) | 0) +
        (((schedule[index - 7] as number) + s1) | 0)) |
      0;
  }
}

/** Runs the compression function over every block of `blocks` into `hash`. */
function compress(hash: Int32Array, blocks: Uint8Array): void {
  let h0 = hash[0] as number;
  let h1 = hash[1] as number;
  let h2 = hash[2] as number;
  let h3 = hash[3] as number;
  let h4 = hash[4] as number;
  let h5 = hash[5] as number;
  let h6 = hash[6] as number;
  let h7 = hash[7] as number;
  for (let offset = 0; offset < blocks.length; offset += blockBytes) {
    fillSchedule(blocks, offset);
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    let f = h5;
    let g = h6;
    let h = h7;
    for (let index = 0; index < 64; index++) {
      const sum1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const choice = (e & f) ^ (~e & g);
      const word = ((roundConstants[index] as number) + (schedule[index] as number)) | 0;
      const t1 = (((((h + sum1) | 0) + choice) | 0) + word) | 0;
      const sum0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const majority = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (sum0 + majority) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + h) | 0;
  }
  hash.set([h0, h1, h2, h3, h4, h5, h6, h7]);
}

/** The 32-byte digest of `message`. */
function digest(message: Uint8Array): Uint8Array {
  const hash = new Int32Array(initialHash);
  compress(hash, padded(message));
  const bytes = new Uint8Array(32);
  for (let index = 0; index < 8; index++) {
    const word = hash[index] as number;
    bytes[index * 4] = word >>> 24;
    bytes[index * 4 + 1] = (word >>> 16) & 0xff;
    bytes[index * 4 + 2] = (word >>> 8) & 0xff;
    bytes[index * 4 + 3] = word & 0xff;
  }
  return bytes;
}

const hexDigits = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += hexDigits[byte];
  return hex;
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

/** `sha256Hex` in portable code only (what runs where the host has no `node:crypto`). */
export function portableSha256Hex(data: string | Uint8Array): string {
  return toHex(digest(bytesOf(data)));
}

/** `hmacSha256Hex` in portable code only (what runs where the host has no `node:crypto`). */
export function portableHmacSha256Hex(key: string | Uint8Array, data: string | Uint8Array): string {
  let keyBytes = bytesOf(key);
  if (keyBytes.length > blockBytes) keyBytes = digest(keyBytes);
  const message = bytesOf(data);
  const inner = new Uint8Array(blockBytes + message.length);
  const outer = new Uint8Array(blockBytes + 32);
  for (let index = 0; index < blockBytes; index++) {
    const byte = keyBytes[index] ?? 0;
    inner[index] = byte ^ 0x36;
    outer[index] = byte ^ 0x5c;
  }
  inner.set(message, blockBytes);
  outer.set(digest(inner), blockBytes);
  return toHex(digest(outer));
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
