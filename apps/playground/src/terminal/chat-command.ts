import { LlmCycle } from '@agcore/llm-cycle';
import type { PermissionConfig } from '@agcore/tools-permission';
import { ScriptedChatProvider, scriptedChatHelp } from '../core/chat-model.js';
import { createProvider, systemPrompt } from '../core/cycle-setup.js';
import { killNow } from '../core/interrupt.js';
import { describeModel, type ModelSettings } from '../core/model-settings.js';
import { type Terminal, wrap } from '../core/output.js';
import { ExitCode } from '../core/playground-error.js';
import { describePolicy } from '../core/policy.js';
import { PacedProvider } from '../core/scripted-model.js';
import { PlaygroundSession } from '../core/session.js';
import { openChatConsole } from './chat-console.js';
import { commandHelp, runSlashCommand } from './chat-slash-commands.js';
import type { ChatState } from './chat-state.js';
import { runChatTurn } from './chat-turn.js';
import { retryNotices } from './retry-notice.js';
import { allBundledServers } from './tools-command.js';

/** Options of `chat`. */
export interface ChatCommandOptions {
  readonly terminal: Terminal;
  readonly model: ModelSettings;
  readonly policy: PermissionConfig;
  /** The `--allow` / `--deny` lists the policy came from (chat's `/allow` and `/deny` extend them). */
  readonly allow: readonly string[];
  readonly deny: readonly string[];
  readonly mcpConfigPath?: string;
  readonly input?: NodeJS.ReadableStream;
}

/**
 * `agcore-playground chat`: an interactive session with every tool (built-in, bundled MCP
 * servers, mcp.json). Ctrl-C cancels the running turn (the history stays whole) and, at the
 * prompt, twice in a row quits; so does `/exit` or end of input. SIGTERM cancels the turn and
 * ends the session the same way. Resolves to 0, or 143 after SIGTERM.
 *
 * @throws {PlaygroundError} when a server does not start or mcp.json is malformed.
 */
export async function chatCommand(options: ChatCommandOptions): Promise<number> {
  const { terminal } = options;
  const c = terminal.colors;
  const session = await PlaygroundSession.open({
    servers: allBundledServers,
    policy: options.policy,
    ...(options.mcpConfigPath === undefined ? {} : { mcpConfigPath: options.mcpConfigPath }),
  });
  // Retries are told where the turn prints (above its progress bars), else as a line.
  const notify = (text: string): void => {
    if (state.turnTimeline === undefined) state.console.say(text);
    else state.turnTimeline.line(text);
  };
  const makeCycle = () => newConversation(options, session, notify);
  const state: ChatState = {
    terminal,
    model: options.model,
    session,
    console: openChatConsole(terminal, options.input ?? process.stdin),
    allow: [...options.allow],
    deny: [...options.deny],
    makeCycle,
    cycle: makeCycle(),
    turn: undefined,
    turnTimeline: undefined,
    promptInterrupts: 0,
    ended: false,
    terminated: false,
  };
  const { rl, say } = state.console;
  greet(state);

  const onInterrupt = () => interrupt(state);
  rl.on('SIGINT', onInterrupt);
  process.on('SIGINT', onInterrupt);
  // SIGTERM ends the session as /exit does (the running turn is cancelled, the servers are
  // stopped, the sandbox removed); a second one quits at once.
  const onTerm = () => terminate(state);
  process.on('SIGTERM', onTerm);

  try {
    await readLines(state);
  } finally {
    process.off('SIGINT', onInterrupt);
    rl.close();
    say(c.dim('bye'));
    await session.close();
    process.off('SIGTERM', onTerm);
  }
  return state.terminated ? ExitCode.terminated : ExitCode.ok;
}

/**
 * A new conversation on the chosen model (the scripted one paced on a terminal); each retry of
 * a request is told to `notify` as it happens.
 */
function newConversation(
  options: ChatCommandOptions,
  session: PlaygroundSession,
  notify: (text: string) => void,
): LlmCycle {
  const provider =
    options.model.kind === 'scripted'
      ? new PacedProvider(new ScriptedChatProvider(session.sandbox.dir), {
          delayMs: options.terminal.interactive ? 25 : 0,
          estimateUsage: true,
        })
      : createProvider(options.model, [], false).provider;
  return new LlmCycle({
    provider,
    model: options.model.kind === 'remote' ? options.model.model : 'scripted',
    systemPrompt,
    retry: retryNotices(
      { line: notify },
      options.terminal.colors,
      options.model.kind === 'remote' ? options.model.idleTimeoutMs : undefined,
    ),
  });
}

/** The banner: the model, the tools and servers, the policy, the commands. */
function greet(state: ChatState): void {
  const { session, model, terminal } = state;
  const { say } = state.console;
  const c = terminal.colors;
  // Each line wraps at the width (80 columns when piped), the rest of it indented.
  const wrapped = (text: string): string => wrap(text, terminal.columns, '  ');
  say(wrapped(`${c.bold('agcore playground chat')} ${c.dim(`· ${describeModel(model)}`)}`));
  const servers = session.clients.map((client) => client.serverName).join(', ');
  say(
    c.dim(
      wrapped(
        `${session.registry.size} tools (${servers} MCP servers running) · policy: ${describePolicy(session.checker.config)}`,
      ),
    ),
  );
  if (model.kind === 'scripted') say(c.dim(wrapped(scriptedChatHelp)));
  say(c.dim(wrapped(`${commandHelp} · Ctrl-C cancels a turn`)));
}

/** Ctrl-C: cancels the running turn; at the prompt, the second in a row ends the session. */
function interrupt(state: ChatState): void {
  const { say, rl, lineEditing } = state.console;
  const c = state.terminal.colors;
  if (state.turn !== undefined) {
    const note = c.yellow('⏹ Ctrl-C: cancelling this turn… (the session goes on)');
    if (state.turnTimeline === undefined) say(note);
    else state.turnTimeline.line(note);
    state.turn.abort(new Error('Cancelled with Ctrl-C.'));
    return;
  }
  state.promptInterrupts += 1;
  if (state.promptInterrupts >= 2) {
    state.ended = true;
    rl.close();
    return;
  }
  // readline leaves the cursor after its prompt; say() ends a prompt of its own.
  say(c.dim(`${lineEditing ? '\n' : ''}(Ctrl-C again, /exit or Ctrl-D to quit)`));
  state.console.prompt();
}

/** SIGTERM: cancels the running turn and ends the session; a second one quits at once. */
function terminate(state: ChatState): void {
  if (state.terminated) {
    killNow(state.session.serverPids());
    process.exit(ExitCode.terminated);
  }
  state.terminated = true;
  state.ended = true;
  state.turn?.abort(new Error('Terminated (SIGTERM).'));
  state.console.rl.close();
}

/** The prompt loop: each line is a slash command or a turn, until `/exit` or end of input. */
async function readLines(state: ChatState): Promise<void> {
  const { prompt, nextLine, echoRead } = state.console;
  prompt();
  for (let next = await nextLine(); next.done !== true; next = await nextLine()) {
    const raw = next.value;
    state.promptInterrupts = 0;
    echoRead(raw);
    const line = raw.trim();
    if (line !== '') {
      if (line.startsWith('/')) {
        if (!runSlashCommand(line, state)) break;
      } else {
        await runChatTurn(line, state);
      }
    }
    if (state.ended) break;
    prompt();
  }
}
