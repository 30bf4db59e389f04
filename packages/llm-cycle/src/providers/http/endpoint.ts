import {
  createRedactor,
  type Redactor,
  redactUrl,
  secretsOfHeaders,
  secretsOfUrl,
} from '@agcore/tools-core';

/** Where requests go and with which credentials, resolved once per provider. */
export interface Endpoint {
  /** The URL requests are sent to: the base URL's path + the format's path, its query kept, no user info. */
  readonly url: string;
  /** The URL as error messages show it: no user info, no query. */
  readonly shown: string;
  /** The request headers, credentials included. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Takes every credential out of a text, in any escaping; texts shorter than the shortest
   * secret are returned at once (most streamed pieces are), so it is cheap to call per delta.
   */
  readonly redact: Redactor;
  /** Whether there is any secret to take out (else `redact` returns its input). */
  readonly hasSecrets: boolean;
  /** The base URL's host name (`''` when the base URL does not parse), for a dialect keyed to it. */
  readonly hostname: string;
}

/** What an endpoint is made of. */
export interface EndpointOptions {
  readonly baseURL: string;
  readonly apiKey?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** What is appended to the base URL's path (`/chat/completions`, `/v1/messages`; default none). */
  readonly path?: string;
}

/**
 * Resolves the endpoint: `path` appended to the base URL's path (an Azure
 * `?api-version=` query stays at the end), user info turned into `Authorization: Basic` (fetch
 * refuses URLs with credentials) unless an API key or an `Authorization` header is given, and
 * the secrets gathered: the API key, credential header values, the base URL's credentials and
 * query values (but `api-version`). Never throws: a base URL that does not parse is used as
 * is, and fails when the first request is sent.
 */
export function resolveEndpoint(options: EndpointOptions): Endpoint {
  const apiKey = options.apiKey === '' ? undefined : options.apiKey;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...(options.headers ?? {}),
  };
  const hasAuthorization = Object.keys(headers).some(
    (name) => name.toLowerCase() === 'authorization',
  );
  const path = options.path ?? '';
  let url = `${options.baseURL.replace(/\/+$/, '')}${path}`;
  let shown = '(invalid base URL)';
  let hostname = '';
  let parsed: URL | undefined;
  try {
    parsed = new URL(options.baseURL);
  } catch {
    parsed = undefined;
  }
  if (parsed !== undefined) {
    const user = safeDecode(parsed.username);
    const password = safeDecode(parsed.password);
    if ((user !== '' || password !== '') && apiKey === undefined && !hasAuthorization)
      headers.authorization = `Basic ${base64(`${user}:${password}`)}`;
    parsed.username = '';
    parsed.password = '';
    parsed.pathname = `${parsed.pathname.replace(/\/+$/, '')}${path}`;
    url = parsed.toString();
    shown = redactUrl(parsed);
    hostname = parsed.hostname;
  }
  if (apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`;
  const secrets = [
    ...new Set(
      [apiKey, ...secretsOfHeaders(headers), ...urlSecrets(options.baseURL)].filter(
        (secret): secret is string => secret !== undefined && secret.length >= 4,
      ),
    ),
  ].sort((a, b) => b.length - a.length);
  return {
    url,
    shown,
    headers,
    redact: scrubber(secrets),
    hasSecrets: secrets.length > 0,
    hostname,
  };
}

/**
 * tools-core's redactor, with cheap ways out for the texts of a stream (it runs per delta).
 * Every spelling of a secret starts with its first character, a backslash (JSON escapes) or a
 * percent sign (URL encoding): a short text with none of these holds no secret, which a loop
 * over its characters tells faster than any search. A text without `\\` or `%` can only hold
 * a secret spelled as is, which `includes` finds faster than the pattern of every escaping.
 */
function scrubber(secrets: readonly string[]): Redactor {
  const redactor = createRedactor(secrets);
  if (secrets.length === 0) return redactor;
  const shortest = secrets[secrets.length - 1]?.length ?? 0;
  // A text without `sk-x` cannot hold `Bearer sk-x`: only the secrets holding no other count.
  const minimal = secrets.filter(
    (secret) => !secrets.some((other) => other !== secret && secret.includes(other)),
  );
  const starts = new Uint8Array(128);
  starts[92] = 1; // \
  starts[37] = 1; // %
  let asciiStarts = true;
  for (const secret of minimal) {
    const code = secret.charCodeAt(0);
    if (code < 128) starts[code] = 1;
    else asciiStarts = false;
  }
  return (text) => {
    if (text.length < shortest) return text;
    if (asciiStarts && text.length <= 64 && !mayStart(text, starts)) return text;
    if (text.indexOf('\\') === -1 && text.indexOf('%') === -1) {
      let found = false;
      for (const secret of minimal) found ||= text.includes(secret);
      if (!found) return text;
    }
    return redactor(text);
  };
}

/** Whether `text` has a character flagged in `starts` (ASCII only). */
function mayStart(text: string, starts: Uint8Array): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 128 && starts[code] === 1) return true;
  }
  return false;
}

/** The credentials of a URL: user info and the values of query parameters that may hold one. */
export function urlSecrets(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return secretsOfUrl(url);
  }
  const harmless = new Set<string>();
  for (const [name, value] of parsed.searchParams) {
    if (!isSecretQueryParameter(name)) harmless.add(value);
  }
  return secretsOfUrl(parsed).filter((secret) => !harmless.has(secret));
}

/**
 * Whether a query parameter of the base URL may hold a credential. Azure OpenAI's
 * `api-version` (learn.microsoft.com/azure/ai-services/openai/reference) is not one: redacting
 * its value would blank every date in error messages.
 */
function isSecretQueryParameter(name: string): boolean {
  return name.toLowerCase() !== 'api-version';
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function base64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}
