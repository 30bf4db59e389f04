/**
 * The stable codes of `ToolError`. Match on these, never on messages.
 *
 * | code | meaning | recoverable |
 * |---|---|---|
 * | `not_found` | no tool of that name is registered | no |
 * | `execution_failed` | the tool ran and failed | yes |
 * | `invalid_arguments` | the arguments do not match the tool's schema | yes |
 * | `permission_denied` | the permission policy refused the tool | no |
 * | `timeout` | the tool outlived its time limit | yes |
 * | `cancelled` | the caller aborted the call | no |
 * | `mcp_error` | the MCP server or its transport failed | no |
 * | `mcp_not_initialized` | the MCP client is not connected | no |
 * | `mcp_timeout` | the MCP server did not answer in time | no |
 * | `io` | an input/output failure in the environment | no |
 * | `other` | anything else | yes |
 * | `denied` | a person (or the approval policy) refused to let the call run | yes |
 * | `loop_detected` | the same call was made too often in one run and was not run again | yes |
 * | `auth_required` | the server wants credentials the client was not configured with | no |
 * | `auth_failed` | the authorization server or the server refused the credentials | no |
 */
export type ToolErrorCode =
  | 'not_found'
  | 'execution_failed'
  | 'invalid_arguments'
  | 'permission_denied'
  | 'timeout'
  | 'cancelled'
  | 'mcp_error'
  | 'mcp_not_initialized'
  | 'mcp_timeout'
  | 'io'
  | 'other'
  | 'denied'
  | 'loop_detected'
  | 'auth_required'
  | 'auth_failed';

/** Every `ToolErrorCode`: the design's error table, then the codes added since. */
export const toolErrorCodes: readonly ToolErrorCode[] = Object.freeze([
  'not_found',
  'execution_failed',
  'invalid_arguments',
  'permission_denied',
  'timeout',
  'cancelled',
  'mcp_error',
  'mcp_not_initialized',
  'mcp_timeout',
  'io',
  'other',
  'denied',
  'loop_detected',
  'auth_required',
  'auth_failed',
]);

const recoverableCodes: ReadonlySet<ToolErrorCode> = new Set<ToolErrorCode>([
  'execution_failed',
  'invalid_arguments',
  'timeout',
  'other',
  'denied',
  'loop_detected',
]);

/** Options of the `ToolError` constructor. */
export interface ToolErrorOptions {
  /** The tool the error is about. */
  readonly toolName?: string;
  /** The underlying error. */
  readonly cause?: unknown;
}

/** The plain-object form of a `ToolError`, as `JSON.stringify` writes it. */
export interface ToolErrorJson {
  readonly name: 'ToolError';
  readonly code: ToolErrorCode;
  readonly message: string;
  readonly toolName?: string;
  readonly recoverable: boolean;
}

const brand = Symbol.for('@agcore/tools-core.ToolError');

/**
 * The one error class of the tool system, with a stable `code`.
 *
 * `instanceof ToolError` and `ToolError.isInstance(value)` hold for errors made by any copy
 * of this package in the same process (two versions in one install, say).
 */
export class ToolError extends Error {
  /** What went wrong, as a stable code. */
  readonly code: ToolErrorCode;
  /** The tool the error is about, when there is one. */
  readonly toolName?: string;

  /** Makes an error; prefer a message that names the tool and says what to do. */
  constructor(code: ToolErrorCode, message: string, options: ToolErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolError';
    this.code = code;
    Object.defineProperty(this, brand, { value: true });
    if (options.toolName !== undefined) this.toolName = options.toolName;
  }

  /**
   * Whether a model could do better next time: `execution_failed`, `invalid_arguments`,
   * `timeout`, `other`, `denied` and `loop_detected` are recoverable (the loop sends them back
   * to the model); the rest end the loop.
   */
  isRecoverable(): boolean {
    return recoverableCodes.has(this.code);
  }

  /** The JSON form: name, code, message, toolName and whether it is recoverable. */
  toJSON(): ToolErrorJson {
    return {
      name: 'ToolError',
      code: this.code,
      message: this.message,
      ...(this.toolName === undefined ? {} : { toolName: this.toolName }),
      recoverable: this.isRecoverable(),
    };
  }

  /**
   * Tells whether `value` is a `ToolError` from any copy of this package. Never throws, even for
   * a proxy whose traps throw (that is no `ToolError`).
   */
  static isInstance(value: unknown): value is ToolError {
    if (typeof value !== 'object' || value === null) return false;
    try {
      return (value as { [brand]?: unknown })[brand] === true;
    } catch {
      return false;
    }
  }

  /** Makes `instanceof` hold across copies of the package; subclasses keep the usual rule. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class right of instanceof (maybe a subclass).
    if (this !== ToolError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return ToolError.isInstance(value);
  }

  /**
   * Turns anything a tool threw into a `ToolError`: a `ToolError` is returned as is, anything
   * else becomes `execution_failed` with the original as `cause`. Never throws: the thrown value
   * is read defensively (a proxy whose traps throw, a throwing `message` getter or `toJSON`, an
   * object without `toString` all give a message).
   */
  static from(error: unknown, toolName?: string): ToolError {
    if (ToolError.isInstance(error)) return error;
    const subject = toolName === undefined ? 'The tool' : `Tool '${toolName}'`;
    return new ToolError('execution_failed', `${subject} failed: ${describeThrown(error)}`, {
      cause: error,
      ...(toolName === undefined ? {} : { toolName }),
    });
  }
}

/**
 * A one-line description of anything thrown, read without letting it throw: the message of an
 * `Error`, a string as is, otherwise its JSON or `String()` form. Never throws.
 */
export function describeThrown(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    if (value instanceof Error) return String(value.message);
  } catch {
    // Not readable as an Error (a proxy whose traps throw): try the generic forms below.
  }
  try {
    const json = JSON.stringify(value);
    if (json !== undefined) return json;
  } catch {
    // A throwing toJSON or getter, a BigInt, a cycle: String() below.
  }
  try {
    return String(value);
  } catch {
    return 'a value that cannot be printed';
  }
}
