import type { ToolProgress } from '@agcore/tools-core';
import type { PermissionConfig } from '@agcore/tools-permission';
import type { ToolInvocation, ToolOutput } from '@agcore/tools-registry';
import { Interrupt, killNow } from '../core/interrupt.js';
import { formatDuration, type Terminal } from '../core/output.js';
import { ExitCode, PlaygroundError } from '../core/playground-error.js';
import { PlaygroundSession } from '../core/session.js';
import { ProgressDisplay } from './progress-display.js';
import { allBundledServers } from './tools-command.js';

/** Options of `call`. */
export interface CallCommandOptions {
  readonly terminal: Terminal;
  readonly json: boolean;
  readonly policy: PermissionConfig;
  readonly mcpConfigPath?: string;
  readonly timeoutMs: number;
}

/**
 * Parses the arguments given to `call` (a JSON object; none means `{}`).
 *
 * @throws {PlaygroundError} (exit 2) when they are not JSON or not an object.
 */
export function parseCallArguments(text: string | undefined): unknown {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new PlaygroundError(
      `The arguments are not valid JSON (${error instanceof Error ? error.message : String(error)}). Quote them for the shell, for example: call everything__get-sum '{"a": 1, "b": 2}'`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new PlaygroundError(
      'The arguments must be a JSON object, such as \'{"city": "Paris"}\'.',
    );
  }
  return value;
}

/**
 * `agcore-playground call NAME '{json}'`: calls one tool through the registry (permission
 * check, schema validation, time limit) and prints the result, like a small MCP inspector.
 * Exit codes: 0 on success, 1 when the tool failed or was refused, 2 for an unknown tool or
 * bad JSON, 130 on Ctrl-C.
 *
 * @throws {PlaygroundError} for bad JSON or when a server does not start.
 */
export async function callCommand(
  name: string,
  argumentText: string | undefined,
  options: CallCommandOptions,
): Promise<number> {
  const args = parseCallArguments(argumentText);
  const session = await PlaygroundSession.open({
    servers: allBundledServers,
    policy: options.policy,
    ...(options.mcpConfigPath === undefined ? {} : { mcpConfigPath: options.mcpConfigPath }),
  });
  const { terminal } = options;
  const controller = new AbortController();
  const display = terminal.interactive && !options.json ? new ProgressDisplay(terminal) : undefined;
  const interrupt = cancelOnInterrupt(terminal, session, controller, display);
  try {
    if (!session.registry.has(name)) throw unknownTool(name, session.registry.listTools());
    display?.start('call', name);
    const invocation = await session.registry.invoke(name, args, {
      timeoutMs: options.timeoutMs,
      signal: controller.signal,
      context: { progress: progressReporter(name, options, display) },
    });
    display?.stop();
    printInvocation(name, args, invocation, options, session);
    return exitCodeOf(invocation.output);
  } finally {
    display?.stop();
    await session.close();
    interrupt.uninstall();
  }
}

/**
 * Ctrl-C (or SIGTERM) aborts `controller`, cancelling the call; a second one quits at once,
 * killing the servers. Installed; `uninstall()` it after the call.
 */
function cancelOnInterrupt(
  terminal: Terminal,
  session: PlaygroundSession,
  controller: AbortController,
  display: ProgressDisplay | undefined,
): Interrupt {
  const c = terminal.colors;
  return new Interrupt(
    () => {
      display?.stop();
      terminal.err.write(
        `${c.yellow('⏹ Ctrl-C: cancelling the call… (press again to quit at once)')}\n`,
      );
      controller.abort(new Error('Cancelled with Ctrl-C.'));
    },
    () => {
      display?.stop();
      terminal.err.write(`${c.yellow('⏹ Ctrl-C again: quitting at once, MCP servers killed.')}\n`);
      killNow(session.serverPids());
      process.exit(ExitCode.interrupted);
    },
  ).install();
}

/** The error for a tool the registry does not have, naming up to four close names. */
function unknownTool(name: string, names: readonly string[]): PlaygroundError {
  const close =
    name.trim().length < 2
      ? []
      : names
          .filter((candidate) => candidate.includes(name) || name.includes(candidate))
          .slice(0, 4);
  return new PlaygroundError(
    `Unknown tool '${name}'.${close.length > 0 ? ` Did you mean ${close.map((item) => `'${item}'`).join(' or ')}?` : ''} The tools command lists all ${names.length}.`,
  );
}

/** Shows the call's progress: a JSON line, the live bar, or (not a terminal) a plain line. */
function progressReporter(
  name: string,
  options: CallCommandOptions,
  display: ProgressDisplay | undefined,
): (update: ToolProgress) => void {
  const { terminal } = options;
  let lastPlainProgress: number | undefined;
  return (update) => {
    if (options.json) {
      terminal.out.write(
        `${JSON.stringify({ type: 'progress', toolName: name, progress: update })}\n`,
      );
    } else if (display !== undefined) {
      display.update('call', name, update);
    } else {
      // Not a terminal: at most one line a second (and always the last), as in the flows.
      const now = performance.now();
      const done = update.total !== undefined && update.progress >= update.total;
      if (lastPlainProgress !== undefined && now - lastPlainProgress < 1000 && !done) return;
      lastPlainProgress = now;
      const total = update.total === undefined ? '' : `/${update.total}`;
      terminal.out.write(
        `… progress ${update.progress}${total}${update.message === undefined ? '' : ` ${update.message}`}\n`,
      );
    }
  };
}

/** Prints the call's result: a JSON line, or the value (stdout) or the error and a hint (stderr). */
function printInvocation(
  name: string,
  args: unknown,
  invocation: ToolInvocation,
  options: CallCommandOptions,
  session: PlaygroundSession,
): void {
  const { terminal } = options;
  const c = terminal.colors;
  const { output } = invocation;
  if (options.json) {
    terminal.out.write(
      `${JSON.stringify({ type: 'result', toolName: name, input: args, durationMs: invocation.durationMs, ...(output.ok ? { output: output.value } : { error: output.error }) })}\n`,
    );
  } else if (output.ok) {
    terminal.out.write(
      `${c.green('✓')} ${c.bold(name)} ${c.dim(formatDuration(invocation.durationMs))}\n`,
    );
    // A text result (what most MCP tools return) is shown as text, anything else as JSON.
    const value = output.value;
    terminal.out.write(`${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}\n`);
  } else {
    terminal.err.write(
      `${c.red('✗')} ${c.bold(name)} ${c.dim(formatDuration(invocation.durationMs))} ${c.red(`${output.error.code}: ${output.error.message}`)}\n`,
    );
    const hint = failureHint(name, output, options.timeoutMs, session);
    if (hint !== undefined) terminal.err.write(`${c.cyan('hint')}: ${hint}\n`);
  }
}

/** What the user can do about a failed call, if anything. */
function failureHint(
  name: string,
  output: Extract<ToolOutput, { ok: false }>,
  timeoutMs: number,
  session: PlaygroundSession,
): string | undefined {
  if (output.awaitingInput !== undefined) {
    return `${name} asks a person: ${output.awaitingInput.prompt} A call answers that only in a run: --flow ask-back, or chat.`;
  }
  if (output.error.code === 'permission_denied') {
    return `allow what it needs with --allow (e.g. --allow ${session.permissionsOf(name).join(',')}).`;
  }
  if (output.error.code === 'timeout') {
    // The registry's message names the library option; here the knob is the CLI flag.
    return `give it more time with --timeout MS (this call had ${timeoutMs} ms).`;
  }
  return undefined;
}

/** 0 on success, 130 when cancelled, 2 for arguments the schema refused, else 1. */
function exitCodeOf(output: ToolOutput): number {
  if (output.ok) return ExitCode.ok;
  if (output.error.code === 'cancelled') return ExitCode.interrupted;
  if (output.error.code === 'invalid_arguments') return ExitCode.usage;
  return ExitCode.failed;
}
