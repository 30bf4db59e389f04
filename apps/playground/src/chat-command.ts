import readline from 'node:readline';
import { LlmCycle } from '@agcore/llm-cycle';
import type { PermissionConfig } from '@agcore/tools-permission';
import { ScriptedChatProvider, scriptedChatHelp } from './chat-model.js';
import { type Ask, decide, decisionMap, describeDecision } from './decisions.js';
import { driveRun } from './drive-run.js';
import { explainError } from './explain-error.js';
import { killNow } from './interrupt.js';
import { describeModel, type ModelSettings } from './model-settings.js';
import { ExitCode } from './playground-error.js';
import { buildPolicy, describePolicy, parsePermissionList } from './policy.js';
import { conversationOf, renderHistory, summarize } from './report.js';
import { createProvider, outcomeOf, systemPrompt } from './run-flow.js';
import { createRunStats } from './run-stats.js';
import { PacedProvider } from './scripted-model.js';
import { PlaygroundSession } from './session.js';
import { formatDuration, type Terminal } from './terminal.js';
import { PrettyTimeline } from './timeline.js';
import { listTools } from './tool-listing.js';
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

const commandHelp =
  '/tools list the tools · /history show the conversation · /permissions show the policy · /allow PERM · /deny PERM · /clear start over · /exit quit';

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
  const allow = [...options.allow];
  const deny = [...options.deny];
  const paced = terminal.interactive;
  const makeCycle = (): LlmCycle => {
    const provider =
      options.model.kind === 'scripted'
        ? new PacedProvider(new ScriptedChatProvider(session.sandbox.dir), {
            delayMs: paced ? 25 : 0,
            estimateUsage: true,
          })
        : createProvider(options.model, [], false).provider;
    return new LlmCycle({
      provider,
      model: options.model.kind === 'remote' ? options.model.model : 'scripted',
      systemPrompt,
    });
  };
  let cycle = makeCycle();

  const input = options.input ?? process.stdin;
  const lineEditing = process.stdin.isTTY === true && terminal.interactive;
  const promptText = `${c.bold(c.cyan('you'))} ${c.dim('›')} `;
  const rl = readline.createInterface({
    input,
    output: terminal.out,
    terminal: lineEditing,
    prompt: promptText,
    historySize: 200,
  });
  // Piped input may end (and close readline) while a turn still runs; Node 22+ throws on a
  // prompt after close, so readline prompts only while open. Without line editing the prompt
  // is written directly and each line read is echoed after it (nothing else echoes it), so a
  // piped session reads as a transcript however fast its lines arrive.
  let inputClosed = false;
  rl.on('close', () => {
    inputClosed = true;
  });
  let promptShown = false;
  const prompt = () => {
    if (lineEditing) {
      if (!inputClosed) rl.prompt();
      return;
    }
    terminal.out.write(promptText);
    promptShown = true;
  };
  const say = (text: string) => {
    if (promptShown) terminal.out.write('\n');
    promptShown = false;
    terminal.out.write(`${text}\n`);
  };

  say(`${c.bold('agcore playground chat')} ${c.dim(`· ${describeModel(options.model)}`)}`);
  say(
    c.dim(
      `${session.registry.size} tools (${session.clients.map((client) => client.serverName).join(', ')} MCP servers running) · policy: ${describePolicy(session.checker.config)}`,
    ),
  );
  if (options.model.kind === 'scripted') say(c.dim(scriptedChatHelp));
  say(c.dim(`${commandHelp} · Ctrl-C cancels a turn`));

  let turn: AbortController | undefined;
  /** The running turn's timeline: notes go through it, above any live progress bar. */
  let turnTimeline: PrettyTimeline | undefined;
  let promptInterrupts = 0;
  let ended = false;
  const onInterrupt = () => {
    if (turn !== undefined) {
      const note = c.yellow('⏹ Ctrl-C: cancelling this turn… (the session goes on)');
      if (turnTimeline === undefined) say(note);
      else turnTimeline.line(note);
      turn.abort(new Error('Cancelled with Ctrl-C.'));
      return;
    }
    promptInterrupts += 1;
    if (promptInterrupts >= 2) {
      ended = true;
      rl.close();
      return;
    }
    // readline leaves the cursor after its prompt; say() ends a prompt of its own.
    say(c.dim(`${lineEditing ? '\n' : ''}(Ctrl-C again, /exit or Ctrl-D to quit)`));
    prompt();
  };
  rl.on('SIGINT', onInterrupt);
  process.on('SIGINT', onInterrupt);
  // SIGTERM ends the session as /exit does (the running turn is cancelled, the servers are
  // stopped, the sandbox removed); a second one quits at once.
  let terminated = false;
  const onTerm = () => {
    if (terminated) {
      killNow(session.serverPids());
      process.exit(ExitCode.terminated);
    }
    terminated = true;
    ended = true;
    turn?.abort(new Error('Terminated (SIGTERM).'));
    rl.close();
  };
  process.on('SIGTERM', onTerm);

  const runCommand = (line: string): boolean => {
    const [command = '', ...rest] = line.split(/\s+/);
    switch (command.toLowerCase()) {
      case '/exit':
      case '/quit':
        return false;
      case '/help':
        say(commandHelp);
        if (options.model.kind === 'scripted') say(scriptedChatHelp);
        return true;
      case '/tools':
        for (const tool of listTools(session)) {
          say(
            `  ${tool.allowed ? c.green('●') : c.red('○')} ${c.bold(tool.name)} ${c.dim(`[${tool.source}] ${tool.permissions.join(', ') || 'no permissions'}`)} ${tool.parameters}`,
          );
        }
        return true;
      case '/history': {
        const history = conversationOf(cycle.messages());
        if (history.length === 0) say(c.dim('(no messages yet)'));
        else say(renderHistory(history, c, Math.max(40, terminal.columns - 16)));
        return true;
      }
      case '/permissions': {
        say(`policy: ${describePolicy(session.checker.config)}`);
        const tools = listTools(session);
        const refused = tools.filter((tool) => !tool.allowed).map((tool) => tool.name);
        say(
          `  allowed: ${tools.length - refused.length} tools · refused: ${refused.length === 0 ? 'none' : refused.join(', ')}`,
        );
        return true;
      }
      case '/allow':
      case '/deny': {
        try {
          const list = parsePermissionList(rest, command);
          if (list.length === 0) {
            say(
              c.red(
                `usage: ${command} PERMISSION (read, write, delete, network, shell, filesystem)`,
              ),
            );
            return true;
          }
          if (command === '/allow') {
            allow.push(...list);
            for (const permission of list)
              deny.splice(0, deny.length, ...deny.filter((item) => item !== permission));
          } else {
            deny.push(...list);
          }
          session.setPolicy(
            buildPolicy(parsePermissionList(allow, '--allow'), parsePermissionList(deny, '--deny')),
          );
          say(`policy: ${describePolicy(session.checker.config)}`);
        } catch (error) {
          say(c.red(explainError(error).message));
        }
        return true;
      }
      case '/clear':
        cycle = makeCycle();
        say(c.dim('(history cleared; a new conversation starts)'));
        return true;
      default:
        say(c.red(`Unknown command ${command}. ${commandHelp}`));
        return true;
    }
  };

  // One reader of the input for the prompt and for the questions of a paused run: a line read
  // while a question was cancelled (Ctrl-C) goes to the next reader, never lost.
  const lines = rl[Symbol.asyncIterator]();
  let waitingLine: Promise<IteratorResult<string>> | undefined;
  const nextLine = (): Promise<IteratorResult<string>> => {
    waitingLine ??= lines.next().finally(() => {
      waitingLine = undefined;
    });
    return waitingLine;
  };
  /** Asks inline, at the chat's own prompt; Ctrl-C (the turn's abort) or the end of input: `undefined`. */
  const askInline =
    (signal: AbortSignal): Ask =>
    async (question) => {
      turnTimeline?.settle();
      terminal.out.write(question);
      const aborted = new Promise<undefined>((resolve) => {
        if (signal.aborted) resolve(undefined);
        signal.addEventListener('abort', () => resolve(undefined), { once: true });
      });
      const next = await Promise.race([nextLine(), aborted]);
      if (next === undefined || next.done === true) {
        terminal.out.write('\n');
        return undefined;
      }
      if (!lineEditing) terminal.out.write(`${next.value}\n`);
      return next.value;
    };

  const runTurn = async (prompt: string): Promise<void> => {
    const controller = new AbortController();
    turn = controller;
    const timeline = new PrettyTimeline(terminal);
    turnTimeline = timeline;
    const stats = createRunStats();
    let failure: unknown;
    try {
      const drive = await driveRun({
        cycle,
        registry: session.registry,
        signal: controller.signal,
        prompt,
        onEvent: (event) => timeline.event(event, stats),
        onPause: async (waiting) => {
          const decided = await decide(waiting, {}, askInline(controller.signal), c);
          for (const item of decided) timeline.line(describeDecision(item, c));
          return decisionMap(decided);
        },
      });
      failure = drive.failure;
    } finally {
      turn = undefined;
      turnTimeline = undefined;
      timeline.settle();
    }
    const outcome = outcomeOf(failure, controller.signal.aborted);
    if (outcome === 'cancelled') {
      say(
        c.yellow(
          `⏹ turn cancelled; the history is whole (${conversationOf(cycle.messages()).length} messages after the system prompt).${terminated ? '' : ' The session goes on.'}`,
        ),
      );
    } else if (failure !== undefined) {
      say(c.red(`✗ ${explainError(failure, options.model).message}`));
      if (outcome === 'permission_denied')
        say(c.cyan('hint: /permissions shows the policy; /allow PERM changes it.'));
    }
    const summary = summarize(stats, options.model.kind === 'scripted');
    const tokens =
      summary.tokens === 'none'
        ? ''
        : ` · ${summary.tokens === 'estimated' ? '~' : ''}${summary.promptTokens + summary.completionTokens} tokens`;
    say(
      c.dim(
        `(${summary.turns} turn${summary.turns === 1 ? '' : 's'} · ${summary.toolCalls} tool call${summary.toolCalls === 1 ? '' : 's'} · ${summary.failures} failed${tokens} · ${formatDuration(summary.wallTimeMs)})`,
      ),
    );
  };

  try {
    prompt();
    for (let next = await nextLine(); next.done !== true; next = await nextLine()) {
      const raw = next.value;
      promptInterrupts = 0;
      if (!lineEditing) {
        terminal.out.write(`${raw}\n`);
        promptShown = false;
      }
      const line = raw.trim();
      if (line !== '') {
        if (line.startsWith('/')) {
          if (!runCommand(line)) break;
        } else {
          await runTurn(line);
        }
      }
      if (ended) break;
      prompt();
    }
  } finally {
    process.off('SIGINT', onInterrupt);
    rl.close();
    say(c.dim('bye'));
    await session.close();
    process.off('SIGTERM', onTerm);
  }
  return terminated ? ExitCode.terminated : ExitCode.ok;
}
