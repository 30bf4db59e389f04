import { type ChatProvider, type Interruption, LlmCycle, type RunStore } from '@agcore/llm-cycle';
import type { PermissionConfig } from '@agcore/tools-permission';
import {
  createProvider,
  outcomeOf,
  type RunOutcome,
  restore,
  stateSecret,
  systemPrompt,
} from '../core/cycle-setup.js';
import { driveRun } from '../core/drive-run.js';
import type { Flow, FlowContext } from '../core/flows.js';
import { Interrupt, killNow } from '../core/interrupt.js';
import { readMcpConfig } from '../core/mcp-config.js';
import { describeModel } from '../core/model-settings.js';
import { type Terminal, wrap } from '../core/output.js';
import { ExitCode, PlaygroundError } from '../core/playground-error.js';
import { allowForFlow, describePolicy } from '../core/policy.js';
import type { RunSettings } from '../core/run-settings.js';
import { createRunStats } from '../core/run-stats.js';
import { PlaygroundSession } from '../core/session.js';
import { openSharedStores } from '../core/shared-store.js';
import { flowPauseHandler, type SavedRun } from './flow-pause.js';
import { reportFlowEnd } from './flow-report.js';
import { retryNotices } from './retry-notice.js';
import { JsonTimeline, PrettyTimeline, type Timeline } from './timeline.js';

export type { RunOutcome } from '../core/cycle-setup.js';
export type { RunSettings } from '../core/run-settings.js';
export { defaultStateFile } from './flow-pause.js';

/**
 * Runs one flow end to end (or goes on with a paused one): starts its MCP servers, streams the
 * loop's events to the timeline — getting a decision each time the run pauses, or writing the
 * paused run to a file for a flow that saves it — prints the outcome and the summary; stops
 * every server. Ctrl-C cancels the running request and tools.
 *
 * Resolves to the exit code: 0 when the flow ended as intended, 130 when cancelled, 2 when a
 * decision was needed and no flag gave it, 1 on an unexpected failure.
 * @throws {PlaygroundError} when mcp.json is unreadable or malformed, the session cannot
 * start, or a resumed run is not paused. @throws {LlmError} `state_mismatch` for a run file
 * whose state was altered.
 */
export async function runFlow(flow: Flow, settings: RunSettings): Promise<number> {
  const secret = stateSecret();
  const timeline = openTimeline(settings);
  const json = timeline instanceof JsonTimeline ? timeline : undefined;
  const policy =
    flow.allow === undefined
      ? settings.policy
      : allowForFlow(settings.policy, flow.allow, settings.deny);

  // A malformed mcp.json is reported before anything else is printed.
  const mcpConfig =
    settings.mcpConfigPath === undefined ? undefined : await readMcpConfig(settings.mcpConfigPath);
  // So is a --store that cannot be reached.
  const stores = settings.store === undefined ? undefined : await openSharedStores(settings.store);
  if (json === undefined) printBanner(flow, settings);

  try {
    const session = await PlaygroundSession.open({
      servers: flow.servers,
      policy,
      ...(mcpConfig === undefined ? {} : { mcpConfig }),
    });
    const controller = new AbortController();
    const interrupt = cancelOnInterrupt(settings.terminal, timeline, session, controller);
    try {
      const runStore = stores?.runStore;
      const run = { flow, settings, session, timeline, json, policy, secret, runStore };
      return await runInSession(run, controller.signal);
    } finally {
      await session.close();
      interrupt.uninstall();
    }
  } finally {
    await stores?.close();
  }
}
/** The timeline of a run: JSON lines with `--json`, else the pretty one. */
function openTimeline(settings: RunSettings): Timeline {
  const resumedAfterTurns = settings.resume?.state.pending?.turns;
  return settings.json
    ? new JsonTimeline(settings.terminal)
    : new PrettyTimeline(
        settings.terminal,
        resumedAfterTurns === undefined ? {} : { resumedAfterTurns },
      );
}

/** The first lines of a pretty run: the flow (and the file it resumes) and the model. */
function printBanner(flow: Flow, settings: RunSettings): void {
  const { terminal, resume } = settings;
  const c = terminal.colors;
  const from = resume === undefined ? '' : c.dim(` (resumed from ${resume.path})`);
  // Header lines wrap at the width (80 columns when piped), the rest of a line indented.
  const title = `${c.bold('agcore playground')} ${c.dim('·')} flow ${c.bold(c.cyan(flow.name))}${from} ${c.dim(`— ${flow.summary}`)}`;
  terminal.out.write(`${wrap(title, terminal.columns, '  ')}\n`);
  terminal.out.write(`${c.dim(wrap(describeModel(settings.model), terminal.columns, '  '))}\n`);
}

/**
 * Ctrl-C (or SIGTERM) aborts `controller`: the running request and tools are cancelled; a
 * second one quits at once, killing the servers. Installed; `uninstall()` it after the run.
 */
function cancelOnInterrupt(
  terminal: Terminal,
  timeline: Timeline,
  session: PlaygroundSession,
  controller: AbortController,
): Interrupt {
  const c = terminal.colors;
  return new Interrupt(
    () => {
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
}

/** One flow's run in its started session. */
interface FlowRun {
  readonly flow: Flow;
  readonly settings: RunSettings;
  readonly session: PlaygroundSession;
  readonly timeline: Timeline;
  readonly json: JsonTimeline | undefined;
  readonly policy: PermissionConfig;
  readonly secret: string | undefined;
  /** The run store of `--store`, or `undefined` for the process's own. */
  readonly runStore: RunStore | undefined;
}

/**
 * Runs the flow in its session: makes (or restores) the cycle, announces the run, drives it
 * to its end or a kept pause, and reports the outcome. Resolves to the exit code.
 */
async function runInSession(run: FlowRun, signal: AbortSignal): Promise<number> {
  const { flow, settings, session, timeline, json } = run;
  const { resume } = settings;
  const context: FlowContext = {
    sandboxDir: session.sandbox.dir,
    allows: (permissions) => session.checker.isAllowed(permissions),
    resuming: resume !== undefined,
  };
  const { provider, scripted } = createProvider(
    settings.model,
    flow.script(context),
    settings.terminal.interactive && !settings.json,
    resume?.state.pending?.turns ?? 0,
  );
  const cycle = openCycle(run, provider);
  const prompt = flow.prompt(context);
  announce(flow, settings, session, json, run.policy, prompt, cycle.interruptions());

  const stats = createRunStats();
  let saved: SavedRun | undefined;
  const drive = await driveRun({
    cycle,
    registry: session.registry,
    signal,
    prompt: resume === undefined ? prompt : undefined,
    onEvent: (event) => timeline.event(event, stats),
    onPause: flowPauseHandler({
      flow,
      settings,
      cycle,
      timeline,
      json,
      onSaved: (file) => {
        saved = file;
      },
    }),
  });
  timeline.settle();
  const outcome: RunOutcome = drive.paused ? 'paused' : outcomeOf(drive.failure, signal.aborted);
  return reportFlowEnd({
    flow,
    context,
    model: settings.model,
    terminal: settings.terminal,
    json,
    outcome,
    failure: drive.failure,
    stats,
    history: cycle.messages(),
    showHistory: settings.showHistory,
    scriptStepsLeft: scripted?.remaining(),
    ...(saved === undefined ? {} : { saved }),
  });
}

/**
 * The run's cycle: a new one with the system prompt, or the resumed run's state.
 * @throws {PlaygroundError} for a resumed run that is not paused or whose file was altered
 */
function openCycle(run: FlowRun, provider: ChatProvider): LlmCycle {
  const { flow, settings, secret, timeline, json } = run;
  const { resume } = settings;
  const retry = retryNotices(
    {
      line: (text) => timeline.line(text),
      ...(json === undefined ? {} : { record: (record) => json.write(record) }),
    },
    settings.terminal.colors,
    settings.model.kind === 'remote' ? settings.model.idleTimeoutMs : undefined,
  );
  const cycle = restore(
    resume?.path,
    () =>
      new LlmCycle({
        provider,
        model: settings.model.kind === 'remote' ? settings.model.model : 'scripted',
        retry,
        ...(resume === undefined ? { systemPrompt } : { state: resume.state }),
        ...(secret === undefined ? {} : { stateSecret: secret }),
        ...(run.runStore === undefined ? {} : { runStore: run.runStore }),
        ...(flow.maxTurns === undefined ? {} : { maxTurns: flow.maxTurns }),
        ...(flow.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: flow.toolTimeoutMs }),
        ...(flow.maxToolResultBytes === undefined
          ? {}
          : { maxToolResultBytes: flow.maxToolResultBytes }),
      }),
  );
  if (resume !== undefined && cycle.interruptions().length === 0) {
    throw new PlaygroundError(
      `The run in ${resume.path} is not paused: there is nothing to resume.`,
    );
  }
  return cycle;
}

/** The header of a run: `run_started` with `--json`, else the tools, the policy and the prompt. */
function announce(
  flow: Flow,
  settings: RunSettings,
  session: PlaygroundSession,
  json: JsonTimeline | undefined,
  policy: PermissionConfig,
  prompt: string,
  waiting: readonly Interruption[],
): void {
  const { terminal } = settings;
  const c = terminal.colors;
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
      policy,
      sandbox: session.sandbox.dir,
      prompt,
      ...(settings.resume === undefined ? {} : { resumedFrom: settings.resume.path, waiting }),
    });
    return;
  }
  const builtins = session.registry.findByCategory('built-in').length;
  const serverText = servers
    .map((server) => ` · ${server.name} (MCP, pid ${server.pid ?? '?'}): ${server.tools} tools`)
    .join('');
  const tools = `tools: ${builtins} built-in${serverText} · policy: ${describePolicy(policy)}`;
  terminal.out.write(`${c.dim(wrap(tools, terminal.columns, '  '))}\n`);
  if (flow.note !== undefined) terminal.out.write(`${c.yellow(flow.note)}\n`);
  if (settings.resume === undefined) {
    terminal.out.write(`\n${c.bold(c.cyan('you'))} ${c.dim('›')} ${prompt}\n`);
    return;
  }
  const calls = waiting.map(
    (item) => `${item.toolName} ${JSON.stringify(item.input)} (${item.callId})`,
  );
  terminal.out.write(`\n${c.yellow('⏸ the run waits on')} ${calls.join(', ')}\n`);
}
