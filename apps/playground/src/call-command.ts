import type { ToolProgress } from '@agcore/tools-core';
import type { PermissionConfig } from '@agcore/tools-permission';
import { Interrupt, killNow } from './interrupt.js';
import { ExitCode, PlaygroundError } from './playground-error.js';
import { ProgressDisplay } from './progress-display.js';
import { PlaygroundSession } from './session.js';
import { formatDuration, type Terminal } from './terminal.js';
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
  const c = terminal.colors;
  const controller = new AbortController();
  const display = terminal.interactive && !options.json ? new ProgressDisplay(terminal) : undefined;
  const interrupt = new Interrupt(
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
  try {
    if (!session.registry.has(name)) {
      const names = session.registry.listTools();
      const close =
        name.trim().length < 2
          ? []
          : names
              .filter((candidate) => candidate.includes(name) || name.includes(candidate))
              .slice(0, 4);
      throw new PlaygroundError(
        `Unknown tool '${name}'.${close.length > 0 ? ` Did you mean ${close.map((item) => `'${item}'`).join(' or ')}?` : ''} The tools command lists all ${names.length}.`,
      );
    }
    let lastPlainProgress: number | undefined;
    const progress = (update: ToolProgress) => {
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
    display?.start('call', name);
    const invocation = await session.registry.invoke(name, args, {
      timeoutMs: options.timeoutMs,
      signal: controller.signal,
      context: { progress },
    });
    display?.stop();
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
      if (output.awaitingInput !== undefined) {
        terminal.err.write(
          `${c.cyan('hint')}: ${name} asks a person: ${output.awaitingInput.prompt} A call answers that only in a run: --flow ask-back, or chat.\n`,
        );
      } else if (output.error.code === 'permission_denied') {
        terminal.err.write(
          `${c.cyan('hint')}: allow what it needs with --allow (e.g. --allow ${session.permissionsOf(name).join(',')}).\n`,
        );
      } else if (output.error.code === 'timeout') {
        // The registry's message names the library option; here the knob is the CLI flag.
        terminal.err.write(
          `${c.cyan('hint')}: give it more time with --timeout MS (this call had ${options.timeoutMs} ms).\n`,
        );
      }
    }
    if (output.ok) return ExitCode.ok;
    if (output.error.code === 'cancelled') return ExitCode.interrupted;
    if (output.error.code === 'invalid_arguments') return ExitCode.usage;
    return ExitCode.failed;
  } finally {
    display?.stop();
    await session.close();
    interrupt.uninstall();
  }
}
