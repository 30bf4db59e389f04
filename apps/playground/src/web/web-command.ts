import { spawn } from 'node:child_process';
import { DurableRuns } from '@agcore/durable-dbos';
import { describeThrown, type Permission } from '@agcore/tools-core';
import type { PermissionConfig } from '@agcore/tools-permission';
import { DBOSClient } from '@dbos-inc/dbos-sdk';
import type { ModelSettings } from '../core/model-settings.js';
import type { Terminal } from '../core/output.js';
import { ExitCode, PlaygroundError } from '../core/playground-error.js';
import { startTracing } from '../core/tracing-setup.js';
import { webFlows } from './web-flows.js';
import { startWebServer } from './web-server.js';

/** What `pnpm playground web` was given. */
export interface WebCommandOptions {
  readonly terminal: Terminal;
  readonly model: ModelSettings;
  readonly policy: PermissionConfig;
  readonly deny: readonly Permission[];
  readonly mcpConfigPath?: string;
  /** `--port`: 0 picks a free one. */
  readonly port: number;
  /** `--no-open` makes it `false`: print the URL, start no browser. */
  readonly open: boolean;
  /** `--flow NAME`: the flow the page starts on. */
  readonly flow?: string;
  /** `--durable URL`: the page is the durable view of the runs on that system database. */
  readonly durable?: string;
}

/**
 * Serves the page until SIGINT or SIGTERM: prints the URL (with its token), opens it in the
 * default browser unless `--no-open`. Resolves to the exit code (0 on SIGINT, 143 on SIGTERM).
 * @throws {PlaygroundError} for an unknown `--flow`, a bad `--port` or a port in use
 */
export async function webCommand(options: WebCommandOptions): Promise<number> {
  if (options.flow !== undefined && !webFlows.some((flow) => flow.name === options.flow)) {
    throw new PlaygroundError(
      `Unknown flow '${options.flow}'. Flows: ${webFlows.map((flow) => flow.name).join(', ')}.`,
    );
  }
  const durable = options.durable === undefined ? undefined : await connectDurable(options.durable);
  const tracing = await startTracing({ keep: true });
  const server = await startWebServer({
    ...(durable === undefined ? {} : { durable: durable.runs }),
    flows: webFlows,
    model: options.model,
    policy: options.policy,
    deny: options.deny,
    tracing,
    port: options.port,
    ...(options.flow === undefined ? {} : { initialFlow: options.flow }),
    ...(options.mcpConfigPath === undefined ? {} : { mcpConfigPath: options.mcpConfigPath }),
  }).catch((error: unknown) => {
    throw new PlaygroundError(
      `Cannot listen on 127.0.0.1:${options.port}: ${error instanceof Error ? error.message : String(error)} (try another --port, or --port 0).`,
    );
  });
  const c = options.terminal.colors;
  options.terminal.out.write(
    `${c.bold('agcore playground web')} ${c.dim('· Ctrl-C stops it')}\n${server.url}\n`,
  );
  if (options.open) openInBrowser(server.url, options.terminal);
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  await server.close();
  await durable?.client.destroy();
  await tracing.shutdown();
  return signal === 'SIGTERM' ? 143 : ExitCode.ok;
}

/** A client of the system database at `url`; a `PlaygroundError` (password hidden) when it does not answer. */
async function connectDurable(url: string): Promise<{ client: DBOSClient; runs: DurableRuns }> {
  let client: DBOSClient | undefined;
  try {
    client = await DBOSClient.create({ systemDatabaseUrl: url });
    const runs = new DurableRuns(client);
    await runs.agents(); // reaches the database now, not on the page's first request
    return { client, runs };
  } catch (error) {
    await client?.destroy().catch(() => undefined);
    const password = safeUrl(url)?.password ?? '';
    let reason = describeThrown(error);
    if (password !== '') reason = reason.replaceAll(password, '***');
    throw new PlaygroundError(`--durable: Postgres is not reachable (${reason}).`, {
      exitCode: ExitCode.failed,
    });
  }
}

function safeUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** Starts the platform's URL opener, detached; says so when there is none. Never throws. */
function openInBrowser(url: string, terminal: Terminal): void {
  const [command, ...args] =
    process.platform === 'darwin'
      ? ['open', url]
      : process.platform === 'win32'
        ? ['cmd', '/c', 'start', '""', url]
        : ['xdg-open', url];
  try {
    const child = spawn(command ?? 'xdg-open', args, { detached: true, stdio: 'ignore' });
    child.on('error', () => {
      terminal.err.write(`agcore-playground: could not open a browser; open the URL above.\n`);
    });
    child.unref();
  } catch {
    terminal.err.write(`agcore-playground: could not open a browser; open the URL above.\n`);
  }
}
