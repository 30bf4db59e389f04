/**
 * Takes secrets out of text and errors. The one redaction helper of agcore: the LLM provider,
 * the MCP client and the playground's audit log all use it.
 */

/** What stands in for a secret. */
export const redactedMarker = '[redacted]';

/** Header names whose values are credentials (`Authorization`, Azure's `api-key`, `x-api-key`, ...). */
const credentialHeader = /authorization|api[-_]?key|token|secret|cookie|password/i;

/** A function that returns `text` with every known secret replaced by `[redacted]`. Never throws. */
export type Redactor = (text: string) => string;

/** Secrets shorter than this are not redacted: they would match ordinary words. */
const minimumSecretLength = 4;

/**
 * Makes a `Redactor` for `secrets`. A secret is found however a server may have escaped it:
 * as is, JSON-escaped (`\/`, `\"`, `\\`, `\u0053`, with any number of backslashes, so twice
 * encoded JSON too) or percent-encoded (`%2F`). Secrets under 4 characters are ignored.
 * Matching takes time linear in the text. Never throws.
 */
export function createRedactor(secrets: Iterable<string | undefined>): Redactor {
  const unique = new Set<string>();
  for (const secret of secrets) {
    if (typeof secret === 'string' && secret.length >= minimumSecretLength) unique.add(secret);
  }
  if (unique.size === 0) return identity;
  // Longest first, so a secret that contains another is replaced whole.
  const sorted = [...unique].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(sorted.map(escapedForms).join('|'), 'g');
  return (text: string): string => {
    if (typeof text !== 'string') return text;
    pattern.lastIndex = 0;
    return text.replace(pattern, redactedMarker);
  };
}

function identity(text: string): string {
  return text;
}

/** A pattern matching `secret` with each character in any of its escaped forms. */
function escapedForms(secret: string): string {
  let source = '';
  for (const character of secret) {
    const code = character.codePointAt(0) ?? 0;
    const forms = [literal(character)];
    if (code <= 0xffff) forms.push(`\\\\+u${hexPattern(code, 4)}`);
    else {
      // JSON writes astral characters as a surrogate pair of \u escapes.
      const high = 0xd800 + ((code - 0x10000) >> 10);
      const low = 0xdc00 + ((code - 0x10000) & 0x3ff);
      forms.push(`\\\\+u${hexPattern(high, 4)}\\\\+u${hexPattern(low, 4)}`);
    }
    if (character === '/' || character === '"' || character === '\\')
      forms.push(`\\\\+${literal(character)}`);
    if (code < 0x80) forms.push(`%${hexPattern(code, 2)}`);
    source += `(?:${forms.join('|')})`;
  }
  return source;
}

function literal(character: string): string {
  return character.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

/** A pattern for `code` as `digits` hex digits, either case. */
function hexPattern(code: number, digits: number): string {
  return [...code.toString(16).padStart(digits, '0')]
    .map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit))
    .join('');
}

/**
 * The secrets in a set of HTTP headers: the values of credential headers (`Authorization`,
 * `api-key`, `x-api-key`, anything with token, secret, cookie or password in its name), with and
 * without their `Bearer `/`Basic `/`Token ` scheme. With `everyHeader`, every value counts. Never throws.
 */
export function secretsOfHeaders(
  headers: Readonly<Record<string, string>> | undefined,
  everyHeader = false,
): string[] {
  const secrets: string[] = [];
  if (headers === undefined || headers === null || typeof headers !== 'object') return secrets;
  for (const name of Object.keys(headers)) {
    const value: unknown = headers[name];
    if (typeof value !== 'string' || (!everyHeader && !credentialHeader.test(name))) continue;
    secrets.push(value);
    const scheme = /^\S+\s+(\S.*)$/.exec(value);
    if (scheme?.[1] !== undefined) secrets.push(scheme[1]);
  }
  return secrets;
}

/**
 * The secrets in a URL: its user name, password and `user:password`, and its query values.
 * Never throws (a URL that does not parse yields itself).
 */
export function secretsOfUrl(url: string | URL | undefined): string[] {
  if (url === undefined) return [];
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    return [String(url)];
  }
  const secrets: string[] = [];
  for (const part of [parsed.username, parsed.password]) {
    if (part !== '') secrets.push(part, safeDecode(part));
  }
  if (parsed.username !== '' && parsed.password !== '')
    secrets.push(`${parsed.username}:${parsed.password}`);
  for (const value of parsed.searchParams.values()) secrets.push(value);
  return secrets;
}

/**
 * A URL as safe to print: no user name, password, query or fragment (they may hold tokens).
 * Never throws.
 */
export function redactUrl(url: string | URL): string {
  try {
    const parsed = new URL(String(url));
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * `error` with every secret taken out: for an `Error`, a copy with the same prototype (so
 * `instanceof`, brands and `code` still work) whose string fields, stack and causes (5 levels)
 * are redacted; a string is redacted; anything else is returned as is. Returns `error` itself
 * when nothing needed redacting. Never throws.
 */
export function redactError(error: unknown, redact: Redactor, depth = 0): unknown {
  if (redact === identity) return error;
  if (typeof error === 'string') return redact(error);
  if (!(error instanceof Error) || depth > 4) return error;
  try {
    let changed = false;
    const copy = Object.create(Object.getPrototypeOf(error) as object) as Error;
    for (const key of Reflect.ownKeys(error)) {
      let descriptor = Object.getOwnPropertyDescriptor(error, key);
      if (descriptor === undefined) continue;
      if (key === 'stack' && !('value' in descriptor)) {
        // Node 24 (V8 13) makes `stack` an own accessor reading the error's internal slot: on
        // the copy it would read undefined, so its value is copied (and redacted) instead.
        const { enumerable = false } = descriptor;
        descriptor = { value: error.stack, writable: true, enumerable, configurable: true };
      }
      if ('value' in descriptor) {
        const value: unknown = descriptor.value;
        const clean =
          typeof value === 'string'
            ? redact(value)
            : key === 'cause' || key === 'errors'
              ? redactNested(value, redact, depth + 1)
              : value;
        if (clean !== value) changed = true;
        Object.defineProperty(copy, key, { ...descriptor, value: clean });
      } else {
        Object.defineProperty(copy, key, descriptor);
      }
    }
    return changed ? copy : error;
  } catch {
    return error;
  }
}

function redactNested(value: unknown, redact: Redactor, depth: number): unknown {
  if (!Array.isArray(value)) return redactError(value, redact, depth);
  let changed = false;
  const copy = value.map((item: unknown) => {
    const clean = redactError(item, redact, depth);
    if (clean !== item) changed = true;
    return clean;
  });
  return changed ? copy : value;
}
