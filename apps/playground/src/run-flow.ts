import {
  type ChatProvider,
  createOpenAICompatibleProvider,
  LlmCycle,
  LlmError,
} from '@agcore/llm-cycle';
import type { ScriptedProvider } from '@agcore/llm-cycle/testing';
import type { PermissionConfig } from '@agcore/tools-permission';
import { explainError } from './explain-error.js';
import type { Flow, FlowContext, FlowExpectation } from './flows.js';
import { Interrupt, killNow } from './interrupt.js';
import { readMcpConfig } from './mcp-config.js';
import { describeModel, type ModelSettings } from './model-settings.js';
import { ExitCode } from './playground-error.js';
import { describePolicy } from './policy.js';
import { conversationOf, renderHistory, renderSummary, summarize } from './report.js';
import { createRunStats } from './run-stats.js';
import { createScriptedModel } from './scripted-model.js';
import { PlaygroundSession } from './session.js';
import type { Terminal } from './terminal.js';
import { JsonTimeline, PrettyTimeline, type Timeline } from './timeline.js';

/** The system prompt every flow (and `chat`) uses with a real model. */
export const systemPrompt =
  'You are the agcore playground assistant. Use the tools you are given to answer; call several at once when they are independent. Keep answers short.';

/** How the CLI asked a flow to run. */
export interface RunSettings {
  readonly model: ModelSettings;
  readonly terminal: Terminal;
  readonly json: boolean;
  readonly policy: PermissionConfig;
  readonly mcpConfigPath?: string;
  /** Print the history even when the run ended normally. */
  readonly showHistory: boolean;
}

/** How a run ended. */
export type RunOutcome = Exclude<FlowExpectation, 'any'> | 'failed';

/** Makes the provider for the settings (the flow's script for the scripted model). */
export function createProvider(
  settings: ModelSettings,
  script: Parameters<typeof createScriptedModel>[0],
  paced: boolean,
): { provider: ChatProvider; scripted?: ScriptedProvider } {
  if (settings.kind === 'scripted') {
    const { provider, script: scripted } = createScriptedModel(script, {
      delayMs: paced ? 25 : 0,
      estimateUsage: true,
    });
    return { provider, scripted };
  }
  return {
    provider: createOpenAICompatibleProvider({
      baseURL: settings.baseURL,
      ...(settings.apiKey === undefined ? {} : { apiKey: settings.apiKey }),
      ...(settings.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: settings.idleTimeoutMs }),
    }),
  };
}

/** Classifies how the loop ended. Never throws. */
export function outcomeOf(error: unknown, cancelled: boolean): RunOutcome {
  if (error === undefined) return 'complete';
  if (cancelled) return 'cancelled';
  if (!LlmError.isInstance(error)) return 'failed';
  if (error.code === 'cancelled') return 'cancelled';
  if (error.code === 'max_turns_exceeded') return 'max_turns_exceeded';
  const cause = error.cause as { code?: unknown } | undefined;
  if (error.code === 'tool_error' && cause?.code === 'permission_denied')
    return 'permission_denied';
  return 'failed';
}

/**
 * Runs one flow end to end: starts its MCP servers, streams the loop's events to the
 * timeline, prints the outcome, the history when the loop did not end normally, and the
 * summary; stops every server. Ctrl-C cancels the running request and tools.
 *
 * Resolves to the exit code: 0 when the flow ended as intended, 130 when cancelled, 1 on an
 * unexpected failure. @throws {PlaygroundError} when mcp.json is unreadable or malformed, or
 * the session cannot start.
 */
export async function runFlow(flow: Flow, settings: RunSettings): Promise<number> {
  const { terminal } = settings;
  const c = terminal.colors;
  const timeline: Timeline = settings.json
    ? new JsonTimeline(terminal)
    : new PrettyTimeline(terminal);
  const json = timeline instanceof JsonTimeline ? timeline : undefined;

  // A malformed mcp.json is reported before anything else is printed.
  const mcpConfig =
    settings.mcpConfigPath === undefined ? undefined : await readMcpConfig(settings.mcpConfigPath);
  if (json === undefined) {
    terminal.out.write(
      `${c.bold('agcore playground')} ${c.dim('·')} flow ${c.bold(c.cyan(flow.name))} ${c.dim(`— ${flow.summary}`)}\n`,
    );
    terminal.out.write(`${c.dim(describeModel(settings.model))}\n`);
  }

  const session = await PlaygroundSession.open({
    servers: flow.servers,
    policy: settings.policy,
    ...(mcpConfig === undefined ? {} : { mcpConfig }),
  });
  const controller = new AbortController();
  let cancelled = false;
  const interrupt = new Interrupt(
    () => {
      cancelled = true;
      timeline.line(
        c.yellow(
          '⏹ Ctrl-C: cancelling the running request and tools… (press again to quit at once)',
        ),
      );
      controller.abort(new Error('Cancelled with Ctrl-C.'));
    },
    () => {
      // Quit at once: put the terminal back (cursor, line wrap), kill the servers; the
      // session's exit hook removes the sandbox.
      timeline.settle();
      terminal.err.write(`${c.yellow('⏹ Ctrl-C again: quitting at once, MCP servers killed.')}\n`);
      killNow(session.serverPids());
      process.exit(ExitCode.interrupted);
    },
  ).install();

  try {
    const context: FlowContext = {
      sandboxDir: session.sandbox.dir,
      allows: (permissions) => session.checker.isAllowed(permissions),
    };
    const { provider, scripted } = createProvider(
      settings.model,
      flow.script(context),
      terminal.interactive && !settings.json,
    );
    const cycle = new LlmCycle({
      provider,
      model: settings.model.kind === 'remote' ? settings.model.model : 'scripted',
      systemPrompt,
      ...(flow.maxTurns === undefined ? {} : { maxTurns: flow.maxTurns }),
      ...(flow.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: flow.toolTimeoutMs }),
      ...(flow.maxToolResultBytes === undefined
        ? {}
        : { maxToolResultBytes: flow.maxToolResultBytes }),
    });
    const prompt = flow.prompt(context);
    const servers = session.clients.map((client) => ({
      name: client.serverName,
      pid: client.pid,
      tools: session.registry.findByCategory(`mcp:${client.serverName}`).length,
    }));

    if (json !== undefined) {
      json.write({
        type: 'run_started',
        flow: flow.name,
        model: settings.model.kind === 'scripted' ? 'scripted' : settings.model.model,
        scripted: settings.model.kind === 'scripted',
        tools: session.registry.listTools(),
        servers,
        policy: settings.policy,
        sandbox: session.sandbox.dir,
        prompt,
      });
    } else {
      const builtins = session.registry.findByCategory('built-in').length;
      const serverText = servers
        .map((server) => ` · ${server.name} (MCP, pid ${server.pid ?? '?'}): ${server.tools} tools`)
        .join('');
      terminal.out.write(
        `${c.dim(`tools: ${builtins} built-in${serverText} · policy: ${describePolicy(settings.policy)}`)}\n`,
      );
      if (flow.note !== undefined) terminal.out.write(`${c.yellow(flow.note)}\n`);
      terminal.out.write(`\n${c.bold(c.cyan('you'))} ${c.dim('›')} ${prompt}\n`);
    }

    const stats = createRunStats();
    let failure: unknown;
    try {
      const events = cycle.submitStreamWithTools(prompt, session.registry, {
        signal: controller.signal,
      });
      for await (const event of events) timeline.event(event, stats);
    } catch (error) {
      failure = error;
    }
    timeline.settle();
    const outcome = outcomeOf(failure, cancelled);
    const expected = flow.expects(context);
    // The scripted model follows the flow's script, so its ending is known. A real model
    // decides for itself (it may answer without the refused call, or stop before maxTurns):
    // any ending but a failure is what the flow shows then.
    const followsScript = settings.model.kind === 'scripted';
    const asIntended =
      outcome === 'cancelled'
        ? false
        : expected === 'any' || outcome === expected || (!followsScript && outcome !== 'failed');
    const exitCode =
      outcome === 'cancelled' ? ExitCode.interrupted : asIntended ? ExitCode.ok : ExitCode.failed;
    const summary = summarize(stats, settings.model.kind === 'scripted');
    const history = cycle.messages();
    const conversation = conversationOf(history);
    const hint = flow.hint?.(context, outcome);
    const explained = failure === undefined ? undefined : explainError(failure, settings.model);

    if (json !== undefined) {
      json.write({
        type: 'run_finished',
        flow: flow.name,
        outcome,
        expected,
        exitCode,
        ...(explained === undefined ? {} : { error: toJsonError(failure, explained.message) }),
        ...(hint === undefined ? {} : { hint }),
        summary,
        ...(scripted === undefined ? {} : { scriptStepsLeft: scripted.remaining() }),
        history,
      });
      return exitCode;
    }

    terminal.out.write('\n');
    if (outcome === 'complete') {
      terminal.out.write(`${c.green('✔ done')}\n`);
    } else if (outcome === 'cancelled') {
      terminal.out.write(
        `${c.yellow('⏹ cancelled')}: the request and the running tools were stopped; the history below is whole.\n`,
      );
    } else if (asIntended) {
      // The ending this flow demonstrates is its normal output (exit 0), so it goes to stdout.
      terminal.out.write(
        `${c.yellow('● ended as this flow shows')}: ${explained?.message ?? String(failure)}\n`,
      );
    } else {
      terminal.err.write(`${c.red('✗ failed')}: ${explained?.message ?? String(failure)}\n`);
    }
    if (hint !== undefined) terminal.out.write(`${c.cyan('hint')}: ${hint}\n`);
    if (conversation.length > 0 && (settings.showHistory || outcome !== 'complete')) {
      terminal.out.write(
        `\n${c.bold('history')} ${c.dim(`(${conversation.length} messages after the system prompt; cycle.messages() has them all)`)}\n`,
      );
      terminal.out.write(
        `${renderHistory(conversation, c, Math.max(40, terminal.columns - 16))}\n`,
      );
    }
    // A run that failed before the model answered once (a wrong key, an unknown model) has
    // nothing to sum up; the error above says it all.
    if (outcome !== 'failed' || summary.turns > 0 || summary.toolCalls > 0) {
      terminal.out.write(
        `\n${c.bold('summary')}\n${renderSummary(summary, c, terminal.columns)}\n`,
      );
    }
    if (settings.model.kind === 'scripted' && outcome === 'complete' && flow.name === 'tour') {
      terminal.out.write(
        `${c.dim('next: --list shows every flow · tools lists the tools · chat talks to them · --help for the rest')}\n`,
      );
    }
    return exitCode;
  } finally {
    await session.close();
    interrupt.uninstall();
  }
}

function toJsonError(error: unknown, message: string): object {
  if (LlmError.isInstance(error)) return { ...error.toJSON(), explanation: message };
  return { message };
}
