import type { ToolRegistryOptions } from '@agcore/tools-registry';
import { AuditLog, auditSecrets } from './audit-log.js';
import type { McpConfigFile } from './mcp-config.js';
import type { Terminal } from './output.js';
import { PlaygroundError } from './playground-error.js';
import { renderSpanTree } from './span-tree.js';
import { otlpTracesUrl, type PlaygroundTracing, startTracing } from './tracing-setup.js';

/** `--trace`, `--otlp URL`, `--audit FILE`, `--audit-redact NAMES`, as the CLI parsed them. */
export interface ObservabilityOptions {
  readonly trace?: boolean;
  readonly otlp?: string;
  readonly audit?: string;
  readonly auditRedact?: readonly string[];
}

/** What a run observes: the tracing and the audit file, ended by `finish`. */
export interface Observability {
  /** Prints the span tree (`--trace`), flushes the exporter, closes the audit file. Never rejects. */
  finish(terminal: Terminal, json: boolean): Promise<void>;
}

/** The registry options of the running command (the audit hook), read by `PlaygroundSession`. */
let registryOptions: Pick<ToolRegistryOptions, 'onInvocation' | 'onInvocationError'> = {};

/** The registry options every session of this process uses (`{}` without `--audit`). */
export function observedRegistryOptions(): Pick<
  ToolRegistryOptions,
  'onInvocation' | 'onInvocationError'
> {
  return registryOptions;
}

/**
 * Starts what the options ask for: a tracer provider (the SDK is loaded only then), the audit
 * file. `undefined` when nothing is asked.
 * @throws {PlaygroundError} for a bad `--otlp` URL or an audit file that cannot be opened.
 */
export async function startObservability(
  options: ObservabilityOptions,
  secrets: { readonly apiKey?: string; readonly mcpConfig?: McpConfigFile },
): Promise<Observability | undefined> {
  const otlpUrl = options.otlp === undefined ? undefined : otlpTracesUrl(options.otlp);
  const keep = options.trace === true;
  if (options.auditRedact !== undefined && options.audit === undefined) {
    throw new PlaygroundError('--audit-redact names secrets for --audit FILE; give --audit too.');
  }
  const audit =
    options.audit === undefined
      ? undefined
      : AuditLog.open(
          options.audit,
          auditSecrets({
            ...(secrets.apiKey === undefined ? {} : { apiKey: secrets.apiKey }),
            ...(secrets.mcpConfig === undefined ? {} : { mcpServers: secrets.mcpConfig.servers }),
            redactEnv: (options.auditRedact ?? []).flatMap((list) =>
              list
                .split(',')
                .map((name) => name.trim())
                .filter((name) => name !== ''),
            ),
            environment: process.env,
          }),
        );
  let failures = 0;
  if (audit !== undefined) {
    registryOptions = { onInvocation: audit.onInvocation, onInvocationError: () => failures++ };
  }
  const tracing: PlaygroundTracing | undefined =
    keep || otlpUrl !== undefined
      ? await startTracing({ keep, ...(otlpUrl === undefined ? {} : { otlpUrl }) })
      : undefined;
  if (audit === undefined && tracing === undefined) return undefined;
  return {
    async finish(terminal, json) {
      // Read before shutting down: the in-memory exporter forgets its spans then.
      const spans = tracing?.spans() ?? [];
      const exportFailure = await tracing?.shutdown();
      const auditFailure = await audit?.close();
      registryOptions = {};
      const c = terminal.colors;
      if (keep) {
        if (json) terminal.out.write(`${JSON.stringify({ type: 'trace', spans })}\n`);
        else
          terminal.out.write(
            `\n${c.bold('trace')} ${c.dim(`(${spans.length} span${spans.length === 1 ? '' : 's'})`)}\n${renderSpanTree(spans, c, terminal.columns)}\n`,
          );
      }
      if (exportFailure !== undefined)
        terminal.err.write(`agcore-playground: --otlp: the export failed: ${exportFailure}\n`);
      if (auditFailure !== undefined || failures > 0)
        terminal.err.write(
          `agcore-playground: --audit ${options.audit}: ${auditFailure ?? `${failures} lines could not be written`}\n`,
        );
    },
  };
}
