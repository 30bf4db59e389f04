#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { explainError } from './core/explain-error.js';
import { defaultFlowName, findFlow, flows } from './core/flows.js';
import { readMcpConfig } from './core/mcp-config.js';
import type { ModelSettings } from './core/model-settings.js';
import { type Observability, startObservability } from './core/observability.js';
import type { Terminal } from './core/output.js';
import { ExitCode, PlaygroundError } from './core/playground-error.js';
import { readRunFile } from './core/run-file.js';
import { callCommand } from './terminal/call-command.js';
import { chatCommand } from './terminal/chat-command.js';
import {
  type CommonOptions,
  common,
  type DecisionOptions,
  runSettings,
  withCommonOptions,
  withDecisionOptions,
  withModelOptions,
} from './terminal/cli-options.js';
import { defaultStateFile, runFlow } from './terminal/run-flow.js';
import { registerServeCommand } from './terminal/serve-command.js';
import { toolsCommand } from './terminal/tools-command.js';
import { webCommand } from './web/web-command.js';

interface FlowOptions extends DecisionOptions {
  readonly flow: string;
  readonly list?: boolean;
  readonly stateFile?: string;
}

/** What `--trace`, `--otlp` and `--audit` started, finished when the command ends. */
let observing: { observability: Observability; terminal: Terminal; json: boolean } | undefined;

/** Starts tracing and the audit file when asked (before any session opens). */
async function observe(
  options: CommonOptions,
  terminal: Terminal,
  model?: ModelSettings,
): Promise<void> {
  const apiKey = model?.kind === 'remote' ? model.apiKey : undefined;
  const mcpConfig =
    options.audit !== undefined && options.mcpConfig !== undefined
      ? await readMcpConfig(options.mcpConfig)
      : undefined;
  const observability = await startObservability(options, {
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(mcpConfig === undefined ? {} : { mcpConfig }),
  });
  if (observability !== undefined)
    observing = { observability, terminal, json: options.json === true };
}

/** The commands besides running a flow, for the message about an unknown one. */
const commandNames = ['chat', 'tools', 'call', 'resume', 'web'];

/** A word where a command was expected: says what exists, and `--flow` when it names a flow. */
function unknownCommand(word: string): PlaygroundError {
  if (findFlow(word) !== undefined) {
    return new PlaygroundError(
      `'${word}' is a flow, not a command: run it with --flow ${word} (--list shows every flow).`,
    );
  }
  const lower = word.toLowerCase();
  const close = commandNames.filter(
    (name) => name.startsWith(lower) || lower.startsWith(name) || name === `${lower}s`,
  );
  return new PlaygroundError(
    `Unknown command '${word}'.${close.length > 0 ? ` Did you mean '${close.join("' or '")}'?` : ''} Commands: ${commandNames.join(', ')}; with no command a flow runs (--flow NAME, --list shows them; --help for the rest).`,
  );
}

function listFlows(terminal: Terminal, json: boolean): void {
  if (json) {
    for (const flow of flows) {
      terminal.out.write(
        `${JSON.stringify({ name: flow.name, summary: flow.summary, default: flow.name === defaultFlowName })}\n`,
      );
    }
    return;
  }
  const c = terminal.colors;
  const width = Math.max(...flows.map((flow) => flow.name.length));
  terminal.out.write(`${c.bold('flows')} ${c.dim('(--flow NAME; the first is the default)')}\n`);
  for (const flow of flows) {
    terminal.out.write(`  ${c.cyan(flow.name.padEnd(width))}  ${flow.summary}\n`);
  }
}

let exitCode: number = ExitCode.ok;

const program = new Command()
  .name('agcore-playground')
  .description(
    'Try agcore from the terminal: the LLM tool loop with real tools and real MCP servers, on a scripted model (no API key) or any OpenAI-compatible endpoint.',
  )
  .version('0.1.0')
  .enablePositionalOptions()
  .showHelpAfterError('(run with --help for usage)')
  .exitOverride()
  .addHelpText(
    'after',
    `
Flows: ${flows.map((flow) => flow.name).join(', ')} (--list describes them).

Examples (at the repository root, \`pnpm playground\` runs agcore-playground):
  agcore-playground                        the default flow on the scripted model (no API key)
  agcore-playground --flow cancel          press Ctrl-C while the tool runs
  agcore-playground --flow filesystem --allow write
  agcore-playground --flow approve --approve yes    (on a terminal it asks y/n per call)
  agcore-playground --flow resume --state-file run.json && agcore-playground resume run.json --approve yes
  agcore-playground tools                  every tool, its source and permissions
  agcore-playground call get_weather '{"city": "Paris"}'
  agcore-playground chat                   talk to the tools (/help inside)
  agcore-playground --flow weather --base-url http://127.0.0.1:11434/v1 --model qwen2.5:7b
`,
  );

withDecisionOptions(withModelOptions(program))
  .option('-f, --flow <name>', `the flow to run (see --list)`, defaultFlowName)
  .option('-l, --list', 'list the flows with one line each')
  .option(
    '--state-file <file>',
    `where --flow resume writes the paused run (default: ${defaultStateFile})`,
  )
  .action(async (options: FlowOptions, command: Command) => {
    const [word] = command.args;
    if (word !== undefined) throw unknownCommand(word);
    const settings = runSettings(options);
    if (options.list === true) {
      listFlows(settings.terminal, options.json === true);
      return;
    }
    const flow = findFlow(options.flow);
    if (flow === undefined) {
      throw new PlaygroundError(
        `Unknown flow '${options.flow}'. Flows: ${flows.map((item) => item.name).join(', ')} (--list describes them).`,
      );
    }
    await observe(options, settings.terminal, settings.model);
    const given = {
      ...settings,
      ...(options.stateFile === undefined ? {} : { stateFile: options.stateFile }),
    };
    exitCode = flow.run === undefined ? await runFlow(flow, given) : await flow.run(given);
  });

withDecisionOptions(
  withModelOptions(
    program
      .command('resume')
      .description('go on with a paused run that --flow resume wrote to a file (another process)')
      .argument('<file>', 'the paused run (see --flow resume --state-file FILE)'),
  ),
).action(async (file: string, options: DecisionOptions) => {
  const settings = runSettings(options);
  const saved = await readRunFile(file);
  const flow = findFlow(saved.flow);
  if (flow === undefined) {
    throw new PlaygroundError(
      `${file} is a paused run of flow '${saved.flow}', which this playground does not have.`,
    );
  }
  await observe(options, settings.terminal, settings.model);
  exitCode = await runFlow(flow, { ...settings, resume: { path: file, state: saved.state } });
});

withModelOptions(
  program
    .command('chat')
    .description(
      'an interactive session with every tool; /tools /history /permissions /clear /exit',
    ),
).action(async (options: CommonOptions) => {
  if (options.json === true) {
    throw new PlaygroundError(
      'chat is interactive and has no --json output; for JSON lines run a flow (--flow NAME --json), tools --json or call --json.',
    );
  }
  const { terminal, policy, model } = common(options);
  await observe(options, terminal, model);
  exitCode = await chatCommand({
    terminal,
    model,
    policy,
    allow: options.allow ?? [],
    deny: options.deny ?? [],
    ...(options.mcpConfig === undefined ? {} : { mcpConfigPath: options.mcpConfig }),
  });
});

/** The flags of `web`. */
interface WebFlags {
  port: string;
  open: boolean;
  flow?: string;
  durable?: string;
}

withModelOptions(
  program
    .command('web')
    .description('the playground in a browser: a live timeline, approvals, the span tree')
    .option('--port <port>', 'the port on 127.0.0.1 (0 picks a free one)', '0')
    .option('--no-open', 'print the URL, do not open a browser')
    .option('-f, --flow <name>', 'the flow the page starts on')
    .option('--durable <url>', 'the durable view: the runs on this Postgres system database'),
).action(async (options: CommonOptions & WebFlags) => {
  const { terminal, policy, model, deny } = common(options);
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new PlaygroundError(`--port ${options.port}: give a port number (0 picks a free one).`);
  }
  exitCode = await webCommand({
    terminal,
    model,
    policy,
    deny,
    port,
    open: options.open,
    ...(options.flow === undefined ? {} : { flow: options.flow }),
    ...(options.durable === undefined ? {} : { durable: options.durable }),
    ...(options.mcpConfig === undefined ? {} : { mcpConfigPath: options.mcpConfig }),
  });
});

withCommonOptions(
  program
    .command('tools')
    .description('list every tool with its source, permissions and schema summary'),
).action(async (options: CommonOptions) => {
  const { terminal, policy } = common(options);
  await observe(options, terminal);
  exitCode = await toolsCommand({
    terminal,
    policy,
    json: options.json === true,
    ...(options.mcpConfig === undefined ? {} : { mcpConfigPath: options.mcpConfig }),
  });
});

withCommonOptions(
  program
    .command('call')
    .description(`call one tool directly, e.g. call get_weather '{"city": "Paris"}'`)
    .argument('<name>', 'the tool name (see the tools command)')
    .argument('[arguments]', 'the arguments as a JSON object (default {})')
    .option('--timeout <ms>', 'time limit of the call in milliseconds', '60000'),
).action(
  async (
    name: string,
    argumentText: string | undefined,
    options: CommonOptions & { timeout: string },
  ) => {
    const { terminal, policy } = common(options);
    const timeoutMs = Number(options.timeout);
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new PlaygroundError(
        `--timeout ${options.timeout}: give a positive number of milliseconds.`,
      );
    }
    await observe(options, terminal);
    exitCode = await callCommand(name, argumentText, {
      terminal,
      policy,
      timeoutMs,
      json: options.json === true,
      ...(options.mcpConfig === undefined ? {} : { mcpConfigPath: options.mcpConfig }),
    });
  },
);

registerServeCommand(program, (code) => {
  exitCode = code;
});

// A bare word after the program is reported by the flow action as an unknown command (set
// here, after the subcommands copied the strict default).
program.allowExcessArguments(true);

function finish(code: number): void {
  process.exitCode = code;
  // Exit even if a stray handle (a server that ignores its stdin closing) keeps the loop alive.
  setTimeout(() => process.exit(code), 1500).unref();
}

// A closed pipe (`| head`) is not an error worth a stack trace: stop quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? ExitCode.ok);
    throw error;
  });
}

/** Prints an unexpected error as one line (its stack only with AGCORE_DEBUG set) and exits 1. */
function crash(reason: unknown): never {
  process.stderr.write(`agcore-playground: ${explainError(reason).message}\n`);
  if (process.env.AGCORE_DEBUG !== undefined && reason instanceof Error && reason.stack) {
    process.stderr.write(`${reason.stack}\n`);
  }
  process.exit(ExitCode.failed);
}
process.on('unhandledRejection', crash);
process.on('uncaughtException', crash);

// A signal that no command handles right now (servers still starting, `tools` listing) ends
// the process at once; the session's exit hook stops the servers and removes the sandbox. While
// a command runs it listens too (SIGINT/SIGTERM then cancel cleanly), and this one stands back.
for (const [signal, code] of [
  ['SIGINT', ExitCode.interrupted],
  ['SIGTERM', ExitCode.terminated],
] as const) {
  process.on(signal, () => {
    if (process.listenerCount(signal) === 1) process.exit(code);
  });
}
// The terminal went away: nobody can read a cancellation report, so stop and clean up.
process.on('SIGHUP', () => process.exit(ExitCode.hangup));

/** Ends tracing and the audit file (prints the span tree). Never rejects. */
async function endObserving(): Promise<void> {
  const active = observing;
  observing = undefined;
  await active?.observability.finish(active.terminal, active.json);
}

try {
  await program.parseAsync(process.argv);
  await endObserving();
  finish(exitCode);
} catch (error) {
  await endObserving();
  if (error instanceof CommanderError) {
    // Commander printed the message (or the help/version) already.
    const helpOrVersion =
      error.code === 'commander.helpDisplayed' ||
      error.code === 'commander.version' ||
      error.code === 'commander.help';
    finish(helpOrVersion ? ExitCode.ok : ExitCode.usage);
  } else {
    const explained = explainError(error);
    process.stderr.write(`agcore-playground: ${explained.message}\n`);
    finish(explained.exitCode);
  }
}
