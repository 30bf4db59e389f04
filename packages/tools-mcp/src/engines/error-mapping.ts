import { type Redactor, redactError, ToolError } from '@agcore/tools-core';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { callerClockMs } from '../calls/call-plan.js';
import { describeTransport, type McpTransportConfig } from '../config/transport-config.js';
import { McpToolError } from '../mcp-tool-error.js';
import type { ProcessExit } from '../transport/stdio-process.js';
import { httpStatusOf } from '../transport/transports.js';
import { isStreamCut } from './stream-cut.js';

/** Who an error is about, and what it must never show. */
export interface ErrorScope {
  readonly serverName: string;
  readonly transport: McpTransportConfig;
  readonly redact: Redactor;
}

/** What a connection knows when one of its requests fails. */
export interface LinkState {
  /** The client closed the connection itself. */
  readonly closedByUs: boolean;
  /** The connect attempt ran out of time, and the client stopped it. */
  readonly timedOut: boolean;
  /** Why the connection is gone, once it is. */
  readonly lost: McpToolError | undefined;
  /** A stdio connection (a child process). */
  readonly isStdio: boolean;
  /** The tail of the server's stderr ('' when it wrote none). */
  stderrTail(): string;
  /** The error that says how the connection was lost, built from what is known now. */
  describeLoss(): McpToolError;
}

/** The request that failed. */
export type Operation =
  | { readonly kind: 'connect'; readonly timeoutMs: number }
  | { readonly kind: 'list'; readonly timeoutMs: number }
  /** A resources or prompts request (`resources/read`, say). */
  | { readonly kind: 'offering'; readonly method: string; readonly timeoutMs: number }
  | {
      readonly kind: 'call';
      readonly toolName: string;
      /** The client's limit of the call; `undefined` on the caller's clock. */
      readonly timeoutMs: number | undefined;
      readonly maxTotalTimeoutMs: number | undefined;
      /** The caller's signal aborted the call. */
      readonly aborted: boolean;
      /** Its abort reason, then. */
      readonly abortReason: unknown;
    };

/** How a connection ended, as far as the client saw it. */
export interface LossFacts {
  /** Stdio: how the process ended, once it has. */
  readonly exit: ProcessExit | undefined;
  /** Why the client stopped a server it could no longer talk to, when it did. */
  readonly fatal: { readonly error: Error; readonly what: string } | undefined;
  /** HTTP: why the server was found unreachable, when it was. */
  readonly unreachable: string | undefined;
  /** The tail of the server's stderr. */
  readonly stderr: string;
}

/** The error that says how a connection was lost: exit code or signal, stderr tail. Never throws. */
export function lossError(scope: ErrorScope, facts: LossFacts): McpToolError {
  const { exit, fatal, unreachable, stderr } = facts;
  let what: string;
  if (fatal !== undefined) {
    what = fatal.what;
    if (exit?.code !== null && exit?.code !== undefined)
      what += ` (it exited with code ${exit.code})`;
  } else if (exit !== undefined) {
    what =
      exit.signal !== null
        ? `was killed by signal ${exit.signal}`
        : `exited with code ${String(exit.code)}`;
  } else if (unreachable !== undefined) {
    what = `became unreachable (${unreachable})`;
  } else {
    what = 'closed the connection';
  }
  return new McpToolError(
    'mcp_error',
    `MCP server '${scope.serverName}' (${describeTransport(scope.transport)}) ${what}.${
      stderr === '' ? '' : ` Its stderr ended with: ${stderr}`
    }`,
    {
      serverName: scope.serverName,
      ...(exit === undefined ? {} : { exitCode: exit.code, signal: exit.signal }),
      ...(stderr === '' ? {} : { stderr }),
      ...(fatal === undefined ? {} : { cause: fatal.error }),
    },
  );
}

/** A request made after the server was lost, before `reconnect()`. Never throws. */
export function unavailableError(
  serverName: string,
  lost: McpToolError,
  toolName: string | undefined,
): McpToolError {
  return new McpToolError(
    'mcp_error',
    `${lost.message} It is unavailable: call reconnect() to connect again.`,
    {
      serverName,
      ...(toolName === undefined ? {} : { toolName }),
      ...(lost.exitCode === undefined ? {} : { exitCode: lost.exitCode }),
      ...(lost.signal === undefined ? {} : { signal: lost.signal }),
      ...(lost.stderr === undefined ? {} : { stderr: lost.stderr }),
      cause: lost,
    },
  );
}

/** What every error of one failed request carries. */
interface Failure {
  /** "Call to MCP tool 'x' on server 'y'", the start of each message. */
  readonly subject: string;
  readonly base: {
    readonly serverName: string;
    readonly cause: unknown;
    readonly toolName?: string;
  };
}

/**
 * The authenticating fetch's own verdict (`auth_required`, `auth_failed`) when an SDK wrapped
 * it as the cause of its error: the v2 SDK's version probe reports a throwing fetch as "Version
 * negotiation probe failed", which says less than the verdict it carries.
 */
function authVerdictIn(error: unknown): McpToolError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    current = current.cause;
    if (
      current instanceof McpToolError &&
      (current.code === 'auth_required' || current.code === 'auth_failed')
    ) {
      return current;
    }
  }
  return undefined;
}

/** Turns anything a request to the server threw into an `McpToolError`. Never throws. */
export function mapFailure(
  error: unknown,
  operation: Operation,
  scope: ErrorScope,
  link: LinkState,
): McpToolError {
  if (error instanceof McpToolError) return error;
  const verdict = authVerdictIn(error);
  if (verdict !== undefined) return verdict;
  const { serverName } = scope;
  const toolName = operation.kind === 'call' ? operation.toolName : undefined;
  const failure: Failure = {
    subject:
      operation.kind === 'call'
        ? `Call to MCP tool '${toolName}' on server '${serverName}'`
        : operation.kind === 'list'
          ? `Listing the tools of MCP server '${serverName}'`
          : operation.kind === 'offering'
            ? `The ${operation.method} request to MCP server '${serverName}'`
            : `Connecting to MCP server '${serverName}' (${describeTransport(scope.transport)})`,
    base: {
      serverName,
      cause: redactError(error, scope.redact),
      ...(toolName === undefined ? {} : { toolName }),
    },
  };
  if (operation.kind === 'call' && operation.aborted) {
    return stoppedByCaller(failure, operation.abortReason);
  }
  if (isStreamCut(error)) {
    return new McpToolError(
      'mcp_error',
      `${failure.subject} failed: the server's response stream closed before the result came, so the call may or may not have run. Retry it if running it twice is safe.`,
      { ...failure.base, recoverable: true },
    );
  }
  if (link.timedOut || (error instanceof McpError && error.code === ErrorCode.RequestTimeout)) {
    return outOfTime(failure, error, operation, link);
  }
  const closed = error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
  if (closed || (link.lost !== undefined && link.isStdio)) return connectionGone(failure, link);
  if (error instanceof McpError) return refusedByServer(failure, error, operation, scope);
  const reason = scope.redact(describeReason(error, scope.transport));
  const stderr = link.stderrTail();
  return new McpToolError(
    'mcp_error',
    `${failure.subject} failed: ${reason}.${stderr === '' ? '' : ` Its stderr ended with: ${stderr}`}`,
    { ...failure.base, ...(stderr === '' ? {} : { stderr }) },
  );
}

/** The caller's signal aborted: `timeout` for a time-limit reason, else `cancelled`. */
function stoppedByCaller({ subject, base }: Failure, reason: unknown): McpToolError {
  return isTimeUp(reason)
    ? new McpToolError(
        'timeout',
        `${subject} ran out of its caller's time limit and was stopped; the server was told to cancel it.`,
        base,
      )
    : new McpToolError('cancelled', `${subject} was cancelled.`, base);
}

/** The client's own limit ran out (the protocol link's): `mcp_timeout`. */
function outOfTime(
  { subject, base }: Failure,
  error: unknown,
  operation: Operation,
  link: LinkState,
): McpToolError {
  const maxTotal = operation.kind === 'call' ? operation.maxTotalTimeoutMs : undefined;
  if (maxTotal !== undefined && error instanceof McpError && hasMaxTotal(error.data)) {
    return new McpToolError(
      'mcp_timeout',
      `${subject} reported progress but did not finish within maxTotalTimeoutMs (${maxTotal} ms), the most a call whose limit progress restarts may take. Raise maxTotalTimeoutMs if the server is slow.`,
      base,
    );
  }
  const stderr = operation.kind === 'connect' ? link.stderrTail() : '';
  return new McpToolError(
    'mcp_timeout',
    `${subject} got no answer within ${operation.timeoutMs ?? callerClockMs} ms. Raise timeoutMs${
      operation.kind === 'connect' ? ' or connectTimeoutMs' : ''
    } if the server is slow, or check that it is healthy.${
      stderr === '' ? '' : ` Its stderr ended with: ${stderr}`
    }`,
    { ...base, ...(stderr === '' ? {} : { stderr }) },
  );
}

/** The connection closed under the request: how it was lost, or that the client closed it. */
function connectionGone({ subject, base }: Failure, link: LinkState): McpToolError {
  const lost = link.lost;
  if (link.closedByUs && lost === undefined) {
    return new McpToolError('mcp_error', `${subject} failed: the client was closed.`, base);
  }
  const loss = lost ?? link.describeLoss();
  return new McpToolError('mcp_error', `${subject} failed: ${loss.message}`, {
    ...base,
    ...(loss.exitCode === undefined ? {} : { exitCode: loss.exitCode }),
    ...(loss.signal === undefined ? {} : { signal: loss.signal }),
    ...(loss.stderr === undefined ? {} : { stderr: loss.stderr }),
  });
}

/** A JSON-RPC error, or a result the SDK refused. */
function refusedByServer(
  { subject, base }: Failure,
  error: McpError,
  operation: Operation,
  scope: ErrorScope,
): McpToolError {
  const reason = scope.redact(error.message);
  if (operation.kind !== 'call') {
    return new McpToolError('mcp_error', `${subject} failed: ${reason}`, base);
  }
  const broken = brokenOutput(error);
  if (broken !== undefined) {
    return new McpToolError(
      'execution_failed',
      `${subject} returned a result that breaks the tool's outputSchema (${scope.redact(broken)}). The server is at fault: report it to its authors.`,
      base,
    );
  }
  return new McpToolError(
    error.code === ErrorCode.InvalidParams ? 'invalid_arguments' : 'execution_failed',
    `${subject} failed: ${reason}`,
    base,
  );
}

/**
 * What the SDK found wrong with a result it checked against the tool's outputSchema, or
 * `undefined` for any other error. The SDK raises these itself (no server sent them), with
 * `InvalidParams`, which would otherwise read as the caller's bad arguments. SDK internals
 * (checked against 1.32.2): the message texts of `Client.callTool`; tool-listing.test.ts
 * fails if they change.
 */
function brokenOutput(error: McpError): string | undefined {
  const match =
    /(Structured content does not match the tool's output schema|Failed to validate structured content|has an output schema but did not return structured content)(?::\s*(.*))?$/s.exec(
      error.message,
    );
  if (match === null) return undefined;
  return match[2] ?? match[1];
}

/**
 * The error of a call that did not start: its signal had aborted, or its deadline had passed
 * (`reason` is then `'deadline'`). Never throws.
 */
export function notStartedError(
  serverName: string,
  toolName: string,
  reason: unknown,
): McpToolError {
  const subject = `Call to MCP tool '${toolName}' on server '${serverName}'`;
  const base = { serverName, toolName };
  if (reason === 'deadline') {
    return new McpToolError(
      'timeout',
      `${subject} did not start: its deadline (ToolContext.deadline) had already passed.`,
      base,
    );
  }
  return isTimeUp(reason)
    ? new McpToolError(
        'timeout',
        `${subject} did not start: its time limit had already run out.`,
        base,
      )
    : new McpToolError('cancelled', `${subject} was cancelled before it started.`, base);
}

/**
 * Whether an abort reason says a time limit ran out: the `timeout` `ToolError` a registry
 * aborts with, or the `TimeoutError` of `AbortSignal.timeout()`. Never throws.
 */
function isTimeUp(reason: unknown): boolean {
  try {
    if (reason === 'deadline') return true;
    if (ToolError.isInstance(reason)) return reason.code === 'timeout';
    return (
      typeof reason === 'object' &&
      reason !== null &&
      (reason as { name?: unknown }).name === 'TimeoutError'
    );
  } catch {
    return false;
  }
}

/** The SDK's `RequestTimeout` for a call past its `maxTotalTimeout` carries it in `data`. */
function hasMaxTotal(data: unknown): boolean {
  return typeof data === 'object' && data !== null && 'maxTotalTimeout' in data;
}

/** Says what went wrong below the protocol: a missing command, an HTTP status, a network error. */
function describeReason(error: unknown, transport: McpTransportConfig): string {
  const code = errorCodeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  if (transport.type === 'stdio' && code === 'ENOENT') {
    return `the command '${transport.command}' was not found (ENOENT); check it is installed and on PATH`;
  }
  if (transport.type === 'stdio' && code === 'EACCES') {
    return `the command '${transport.command}' is not executable (EACCES)`;
  }
  const status = httpStatusOf(error);
  if (status !== undefined) return `${message} (HTTP ${status})`;
  const cause =
    error instanceof Error ? (error.cause as { message?: unknown } | undefined) : undefined;
  if (cause !== undefined && typeof cause.message === 'string' && cause.message !== '') {
    return `${message} (${cause.message})`;
  }
  return message;
}

/** The string `code` of an error (`ENOENT`, `EPIPE`, ...), or `undefined`. Never throws. */
export function errorCodeOf(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}
