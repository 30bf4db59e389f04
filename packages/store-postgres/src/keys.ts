/**
 * Keys, handles and run ids as stored: any JavaScript string, kept as its JSON text (so NUL,
 * which Postgres text cannot hold, and lone surrogates, which UTF-8 cannot, round-trip too),
 * bounded so the primary-key index can hold it.
 */

/** The most UTF-8 bytes a stored key (its JSON text) may take: well under the btree limit (2704). */
export const maxKeyBytes = 2048;

/**
 * `key` as stored.
 * @throws {TypeError} for a key that is not a non-empty string
 * @throws {RangeError} for a key longer than `maxKeyBytes` stored
 */
export function encodeKey(operation: string, what: string, key: unknown): string {
  if (typeof key !== 'string' || key === '') {
    throw new TypeError(`${operation}: ${what} must be a non-empty string.`);
  }
  // A key of more code units than this is over the bound whatever it holds (each unit is 1 byte at least).
  if (key.length > maxKeyBytes) throw tooLong(operation, what, key.length);
  const stored = JSON.stringify(key);
  const bytes = Buffer.byteLength(stored, 'utf8');
  if (bytes > maxKeyBytes) throw tooLong(operation, what, bytes);
  return stored;
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
