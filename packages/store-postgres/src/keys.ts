/**
 * Keys, handles and run ids as stored: any JavaScript string, kept as its JSON text (so NUL,
 * which Postgres text cannot hold, and lone surrogates, which UTF-8 cannot, round-trip too) and
 * looked up by the SHA-256 of that text, so the primary-key index holds 32 bytes whatever the
 * key's length. Bounded all the same: a key is an identifier, not a payload.
 */
import { createHash } from 'node:crypto';

/** The most UTF-8 bytes a stored key (its JSON text) may take. */
export const maxKeyBytes = 16 * 1024;

/** A key as stored: its JSON text and the digest it is looked up by. */
export interface StoredKey {
  readonly text: string;
  readonly digest: Buffer;
}

/**
 * `key` as stored.
 * @throws {TypeError} for a key that is not a non-empty string
 * @throws {RangeError} for a key longer than `maxKeyBytes` stored
 */
export function encodeKey(operation: string, what: string, key: unknown): StoredKey {
  if (typeof key !== 'string' || key === '') {
    throw new TypeError(`${operation}: ${what} must be a non-empty string.`);
  }
  // A key of more code units than this is over the bound whatever it holds (each unit is 1 byte at least).
  if (key.length > maxKeyBytes) throw tooLong(operation, what, key.length);
  const text = JSON.stringify(key);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxKeyBytes) throw tooLong(operation, what, bytes);
  return { text, digest: createHash('sha256').update(text, 'utf8').digest() };
}

function tooLong(operation: string, what: string, size: number): RangeError {
  return new RangeError(
    `${operation}: ${what} is too long (at least ${size} bytes as stored, at most ${maxKeyBytes}).`,
  );
}

/** A stored JSON string back as the string (`undefined` for anything else). */
export function decodeString(stored: unknown): string | undefined {
  if (typeof stored !== 'string') return undefined;
  const value: unknown = JSON.parse(stored);
  return typeof value === 'string' ? value : undefined;
}
