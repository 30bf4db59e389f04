import { closeSync, createWriteStream, openSync, type WriteStream } from 'node:fs';
import {
  createRedactor,
  type JsonValue,
  type Redactor,
  secretsOfHeaders,
  secretsOfUrl,
  toJsonPreview,
} from '@agcore/tools-core';
import type { ToolEntry, ToolInvocation } from '@agcore/tools-registry';
import { PlaygroundError } from './playground-error.js';

/** How much of the arguments and the result a line keeps. */
const previewLimits = { maxStringLength: 2000, maxItems: 50, maxDepth: 12, maxValues: 500 };
/** The longest line written; past it, arguments and result are cut as text. */
const maxLineLength = 64 * 1024;

/**
 * `--audit FILE`: one JSON line per tool invocation, written by the registry's `onInvocation`
 * hook. Fields: `time`, `tool`, `category` (`built-in` or `mcp:SERVER`), `callId`,
 * `sessionId`, `traceId`, `arguments`, `outcome` (`ok`, `error`, or `awaiting_input` for a tool
 * that asks back), `result`, `error` (`{ code, message }`) or `question` (`{ prompt, data? }`),
 * `durationMs`. Every string is redacted with the named secrets; hostile
 * arguments (cycles, proxies, huge values) are written as far as they can be read, bounded.
 */
export class AuditLog {
  readonly #stream: WriteStream;
  readonly #redact: Redactor;
  #failure: string | undefined;
  #lines = 0;

  private constructor(stream: WriteStream, redact: Redactor) {
    this.#stream = stream;
    this.#redact = redact;
    stream.on('error', (error) => {
      this.#failure ??= error.message;
    });
  }

  /**
   * Opens `path` for appending.
   * @throws {PlaygroundError} when the file cannot be opened (missing directory, no permission).
   */
  static open(path: string, secrets: Iterable<string | undefined>): AuditLog {
    let fd: number;
    try {
      fd = openSync(path, 'a');
    } catch (error) {
      throw new PlaygroundError(
        `--audit ${path}: cannot open the file (${(error as Error).message}). Give a writable path.`,
        { cause: error },
      );
    }
    try {
      return new AuditLog(createWriteStream('', { fd }), createRedactor(secrets));
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** How many lines were written. */
  get lines(): number {
    return this.#lines;
  }

  /** The registry hook. Never throws. */
  readonly onInvocation = (invocation: ToolInvocation, entry: ToolEntry | undefined): void => {
    if (this.#stream.destroyed) return;
    this.#stream.write(`${this.line(invocation, entry)}\n`);
    this.#lines++;
  };

  /** The line of one invocation (no newline). Never throws. */
  line(invocation: ToolInvocation, entry: ToolEntry | undefined): string {
    return auditLine(invocation, entry, this.#redact);
  }

  /** Closes the file; resolves to why writing failed, if it did. Never rejects. */
  close(): Promise<string | undefined> {
    return new Promise((resolve) => {
      if (this.#stream.closed) {
        resolve(this.#failure);
        return;
      }
      this.#stream.end(() => resolve(this.#failure));
      this.#stream.once('error', () => resolve(this.#failure));
    });
  }
}

/**
 * The audit line of one invocation (no newline), every string redacted by `redact`: what
 * `--audit FILE` writes and what the page shows. Never throws.
 */
export function auditLine(
  invocation: ToolInvocation,
  entry: ToolEntry | undefined,
  redact: Redactor,
): string {
  const { output } = invocation;
  const clean = (value: unknown) => redactStrings(toJsonPreview(value, previewLimits), redact);
  const record = (args: JsonValue, result: JsonValue | undefined): Record<string, JsonValue> => ({
    time: new Date().toISOString(),
    tool: invocation.toolName,
    ...(entry === undefined ? {} : { category: entry.category }),
    callId: invocation.callId ?? null,
    sessionId: invocation.sessionId ?? null,
    traceId: invocation.traceId ?? null,
    arguments: args,
    outcome: output.ok ? 'ok' : output.awaitingInput !== undefined ? 'awaiting_input' : 'error',
    ...(output.ok
      ? { result: result ?? null }
      : output.awaitingInput !== undefined
        ? { question: clean(output.awaitingInput) }
        : { error: { code: output.error.code, message: clean(output.error.message) } }),
    durationMs: Math.round(invocation.durationMs * 1000) / 1000,
  });
  const args = clean(invocation.input);
  const result = output.ok ? clean(output.value) : undefined;
  const line = JSON.stringify(record(args, result));
  if (line.length <= maxLineLength) return line;
  const cut = (value: JsonValue | undefined) => {
    const text = JSON.stringify(value ?? null);
    return text.length <= maxLineLength / 4
      ? text
      : `${text.slice(0, maxLineLength / 4)}…[${text.length - maxLineLength / 4} more characters]`;
  };
  return JSON.stringify(record(cut(args), cut(result)));
}

function redactStrings(value: JsonValue, redact: Redactor): JsonValue {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, redact));
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, JsonValue> = {};
  for (const [key, item] of Object.entries(value)) copy[redact(key)] = redactStrings(item, redact);
  return copy;
}

/** What `--audit-redact` and the run name as secrets. */
export interface AuditSecretSources {
  /** The API key of the model, when one is used. */
  readonly apiKey?: string;
  /** The `mcpServers` table of `--mcp-config`, as written. */
  readonly mcpServers?: Readonly<Record<string, unknown>>;
  /** Names of environment variables whose values are secrets (`--audit-redact`). */
  readonly redactEnv: readonly string[];
  readonly environment: Readonly<Record<string, string | undefined>>;
}

/**
 * The secrets an audit line must not hold: the API key; from `--mcp-config`, the values of
 * the environment variables it references (`${NAME}`, `${env:NAME}`), its credential-like
 * `env` and `headers` values, and the user info and query values of its URLs; and the values
 * of the variables named by `--audit-redact`.
 */
export function auditSecrets(sources: AuditSecretSources): string[] {
  const secrets: string[] = [];
  if (sources.apiKey !== undefined) secrets.push(sources.apiKey);
  for (const name of sources.redactEnv) {
    const value = sources.environment[name];
    if (value !== undefined) secrets.push(value);
  }
  for (const raw of Object.values(sources.mcpServers ?? {})) {
    if (raw === null || typeof raw !== 'object') continue;
    const entry = raw as { env?: unknown; headers?: unknown; url?: unknown };
    const text = JSON.stringify(raw) ?? '';
    for (const match of text.matchAll(/\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g)) {
      const value = sources.environment[match[1] as string];
      if (value !== undefined) secrets.push(value);
    }
    for (const table of [entry.env, entry.headers]) {
      if (table !== null && typeof table === 'object')
        secrets.push(...secretsOfHeaders(table as Record<string, string>));
    }
    if (typeof entry.url === 'string') secrets.push(...secretsOfUrl(entry.url));
  }
  return secrets;
}
