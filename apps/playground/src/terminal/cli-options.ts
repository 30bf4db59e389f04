import type { Permission } from '@agcore/tools-core';
import { type Command, Option } from 'commander';
import { resolveModelSettings } from '../core/model-settings.js';
import { processTerminal, type Terminal } from '../core/output.js';
import { buildPolicy, parsePermissionList } from '../core/policy.js';
import type { RunSettings } from './run-flow.js';

/** The options every command shares, as Commander parsed them. */
export interface CommonOptions {
  readonly color: boolean;
  readonly json?: boolean;
  readonly baseUrl?: string;
  readonly apiKey?: string;
  readonly model?: string;
  readonly idleTimeout?: string;
  readonly scripted?: boolean;
  readonly provider?: string;
  readonly mcpConfig?: string;
  readonly allow?: string[];
  readonly deny?: string[];
  readonly trace?: boolean;
  readonly otlp?: string;
  readonly audit?: string;
  readonly auditRedact?: string[];
}

/** The options of runs that may pause for a person. */
export interface DecisionOptions extends CommonOptions {
  readonly approve?: string;
  readonly answer?: string;
  readonly history?: boolean;
  readonly store?: string;
}

const collect = (value: string, previous: string[] | undefined): string[] => [
  ...(previous ?? []),
  value,
];

/** Adds the options of the commands that talk to a model (a flow, chat). */
export function withModelOptions(command: Command): Command {
  return withCommonOptions(
    command
      .addOption(
        new Option('--base-url <url>', 'OpenAI-compatible API root').env('OPENAI_BASE_URL'),
      )
      .addOption(
        new Option('--provider <name>', 'wire format (default from --base-url)')
          .choices(['anthropic', 'openai-compatible', 'openai-responses', 'gemini'])
          .env('AGCORE_PROVIDER'),
      )
      .addOption(
        new Option(
          '--api-key <key>',
          'API key (default ANTHROPIC_API_KEY, GEMINI_API_KEY or OPENAI_API_KEY)',
        ),
      )
      .addOption(new Option('--model <name>', 'model name at --base-url').env('AGCORE_MODEL'))
      .addOption(
        new Option(
          '--idle-timeout <ms>',
          'give up when --base-url sends nothing for this long (default 60000)',
        ).env('AGCORE_IDLE_TIMEOUT_MS'),
      )
      .option('--scripted', 'use the scripted model even when the environment names a real one'),
  );
}

/** Adds the options every command shares (`tools` and `call` use no model). */
export function withCommonOptions(command: Command): Command {
  return command
    .option('--json', 'print one JSON object per line (for scripts)')
    .option('--no-color', 'plain text (also: NO_COLOR=1, or any pipe)')
    .option('--mcp-config <file>', 'more MCP servers, from a mcp.json ({"mcpServers": {...}})')
    .option(
      '--allow <permissions>',
      'allow permissions (comma-separated, repeatable): read, write, delete, network, shell, filesystem',
      collect,
    )
    .option('--deny <permissions>', 'deny permissions (comma-separated, repeatable)', collect)
    .option('--trace', 'print the OpenTelemetry span tree after the run')
    .option(
      '--otlp <url>',
      'export the spans to an OTLP/HTTP collector (e.g. http://localhost:4318)',
    )
    .option('--audit <file>', 'append one JSON line per tool call to this file')
    .option(
      '--audit-redact <names>',
      'environment variables whose values --audit redacts (comma-separated, repeatable)',
      collect,
    );
}

/** Adds the options of runs that may pause for a person (flows, `resume`). */
export function withDecisionOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--approve <decision>',
        'when a call waits for approval and no terminal can ask: yes or no',
      ).choices(['yes', 'no']),
    )
    .option('--answer <text>', 'when a tool asks a question and no terminal can ask: the answer')
    .option('--history', 'print the message history at the end of every run')
    .option(
      '--store <url>',
      'a Postgres URL (postgres://…): resumes claim the run there, so one run file resumed twice, in any process, runs once',
    );
}

/** The run settings shared by a flow and `resume`. */
export function runSettings(
  options: DecisionOptions,
): Omit<RunSettings, 'showHistory'> & { showHistory: boolean } {
  const { terminal, policy, model, deny } = common(options);
  return {
    terminal,
    model,
    policy,
    deny,
    json: options.json === true,
    showHistory: options.history === true,
    decisions: {
      ...(options.approve === undefined ? {} : { approve: options.approve as 'yes' | 'no' }),
      ...(options.answer === undefined ? {} : { answer: options.answer }),
    },
    ...(options.mcpConfig === undefined ? {} : { mcpConfigPath: options.mcpConfig }),
    ...(options.store === undefined ? {} : { store: options.store }),
  };
}

/** The terminal, permission policy and model the options name. */
export function common(options: CommonOptions): {
  terminal: Terminal;
  policy: ReturnType<typeof buildPolicy>;
  model: ReturnType<typeof resolveModelSettings>;
  deny: Permission[];
} {
  const terminal = processTerminal({ color: options.color });
  const allow = parsePermissionList(options.allow ?? [], '--allow');
  const deny = parsePermissionList(options.deny ?? [], '--deny');
  // Commander already folded the environment variables into the options.
  const model = resolveModelSettings(
    {
      ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      ...(options.model === undefined ? {} : { model: options.model }),
      ...(options.idleTimeout === undefined ? {} : { idleTimeout: options.idleTimeout }),
      ...(options.scripted === undefined ? {} : { scripted: options.scripted }),
      ...(options.provider === undefined ? {} : { provider: options.provider }),
    },
    // The key of the chosen vendor, as its own SDK reads it (the provider is known only here).
    {
      ANTHROPIC_API_KEY: process.env.ANTHROPIC_API_KEY,
      GEMINI_API_KEY: process.env.GEMINI_API_KEY,
      OPENAI_API_KEY: process.env.OPENAI_API_KEY,
    },
  );
  return { terminal, policy: buildPolicy(allow, deny), model, deny };
}
