import { type IdempotencyStore, serveTools } from '@agcore/tools-mcp-server';
import type { PermissionConfig } from '@agcore/tools-permission';
import type { Command } from 'commander';
import type { Terminal } from '../core/output.js';
import { ExitCode, PlaygroundError } from '../core/playground-error.js';
import { describePolicy } from '../core/policy.js';
import { PlaygroundSession } from '../core/session.js';
import { openSharedStores } from '../core/shared-store.js';
import { type CommonOptions, common, withCommonOptions } from './cli-options.js';

/** Options of `serve`. */
export interface ServeCommandOptions {
  readonly terminal: Terminal;
  readonly policy: PermissionConfig;
  /** The port on 127.0.0.1; `0` picks a free one. */
  readonly port: number;
  readonly json: boolean;
  /** `--store`: a Postgres URL whose idempotency store keeps keyed results (shared by every server on it). */
  readonly store?: string;
}

/**
 * `agcore-playground serve`: serves the playground's built-in tools, in its registry under its
 * permission policy, as a stateless MCP server (`serveTools`, both protocol eras) on 127.0.0.1
 * until SIGINT or SIGTERM. Prints the endpoint and the `mcp.json` entry another playground
 * reaches it with. With `--store`, a keyed call (`_meta` idempotency key) is answered from the
 * Postgres idempotency store when any server on it committed it. Resolves to the exit code (0 on
 * SIGINT, 143 on SIGTERM).
 *
 * @throws {PlaygroundError} when the port cannot be listened on, or the store cannot be reached.
 */
export async function serveCommand(options: ServeCommandOptions): Promise<number> {
  const stores = options.store === undefined ? undefined : await openSharedStores(options.store);
  try {
    return await serveOn(options, stores?.idempotencyStore);
  } finally {
    await stores?.close();
  }
}

async function serveOn(
  options: ServeCommandOptions,
  idempotencyStore: IdempotencyStore | undefined,
): Promise<number> {
  const session = await PlaygroundSession.open({ servers: [], policy: options.policy });
  const served = serveTools(session.registry, {
    serverInfo: { name: 'agcore-playground', version: '0.1.0' },
    ...(idempotencyStore === undefined ? {} : { idempotencyStore }),
  });
  try {
    const listening = await served.listen({ port: options.port }).catch((error: unknown) => {
      throw new PlaygroundError(
        `Cannot listen on 127.0.0.1:${options.port}: ${error instanceof Error ? error.message : String(error)} (try another --port, or --port 0).`,
      );
    });
    const { terminal } = options;
    const entry = { mcpServers: { playground: { url: listening.url, trustAnnotations: true } } };
    if (options.json) {
      terminal.out.write(`${JSON.stringify({ url: listening.url, mcpConfig: entry })}\n`);
    } else {
      const c = terminal.colors;
      const tools = session.registry.definitions().map(({ function: tool }) => tool.name);
      terminal.out.write(
        `${c.bold('agcore playground serve')} ${c.dim('· Ctrl-C stops it')}\n${listening.url}\n` +
          `${c.dim(`${tools.length} tools: ${tools.join(', ')}`)}\n` +
          `${c.dim(`policy: ${describePolicy(options.policy)}`)}\n` +
          `${c.dim('reach it from another playground with --mcp-config FILE, FILE holding:')}\n` +
          `${JSON.stringify(entry)}\n`,
      );
    }
    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'));
      process.once('SIGTERM', () => resolve('SIGTERM'));
    });
    return signal === 'SIGTERM' ? 143 : ExitCode.ok;
  } finally {
    await served.close();
    await session.close();
  }
}

/** Adds `serve` to the CLI; `done` receives its exit code. */
export function registerServeCommand(program: Command, done: (exitCode: number) => void): void {
  withCommonOptions(
    program
      .command('serve')
      .description('serve the built-in tools over MCP (Streamable HTTP) on 127.0.0.1')
      .option('--port <port>', 'the port on 127.0.0.1 (0 picks a free one)', '8080')
      .option(
        '--store <url>',
        'a Postgres URL (postgres://…): keyed calls are answered from it, so a retry on any server sharing it runs once',
      ),
  ).action(async (options: CommonOptions & { port: string; store?: string }) => {
    const { terminal, policy } = common(options);
    const port = Number(options.port);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) {
      throw new PlaygroundError(`--port ${options.port}: give a port number (0 picks a free one).`);
    }
    const store = options.store === undefined ? {} : { store: options.store };
    done(await serveCommand({ terminal, policy, port, json: options.json === true, ...store }));
  });
}
