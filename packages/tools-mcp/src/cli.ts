#!/usr/bin/env node
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { McpClient } from './client/mcp-client.js';
import { McpServers } from './client/mcp-servers.js';
import { generateToolTypes, type TypegenServer } from './typegen/typegen.js';

const usage = `Usage:
  agcore-mcp typegen --config <mcp.json> [--server <name>]... [--out <file.ts>] [--import-from <module>]
  agcore-mcp typegen [--name <server>] [--out <file.ts>] [--import-from <module>] -- <command> [args...]

Connects to the MCP server(s), lists their tools and writes a TypeScript module with an
argument interface per tool and a typed callTool wrapper (to stdout without --out).`;

interface Arguments {
  readonly config: string | undefined;
  readonly servers: readonly string[];
  readonly out: string | undefined;
  readonly importFrom: string | undefined;
  readonly name: string | undefined;
  readonly command: readonly string[];
}

/** A command line the CLI cannot run: exit code 2, with the usage. */
class UsageError extends Error {}

function parse(argv: readonly string[]): Arguments {
  let parsed: ReturnType<typeof parseTypegenArgs>;
  try {
    parsed = parseTypegenArgs(argv);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals, tokens } = parsed;
  const terminator = tokens.find((token) => token.kind === 'option-terminator');
  const command = terminator === undefined ? [] : argv.slice(terminator.index + 1);
  if (positionals.length > command.length) {
    throw new UsageError(`Unexpected argument '${positionals[0]}'; a command goes after '--'.`);
  }
  return {
    config: values.config,
    servers: values.server ?? [],
    out: values.out,
    importFrom: values['import-from'],
    name: values.name,
    command,
  };
}

function parseTypegenArgs(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: {
      config: { type: 'string' },
      server: { type: 'string', multiple: true },
      out: { type: 'string' },
      'import-from': { type: 'string' },
      name: { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
    tokens: true,
  });
}

async function collect(args: Arguments): Promise<TypegenServer[]> {
  if (args.config !== undefined) {
    const servers = await McpServers.fromFile(args.config);
    try {
      const { connected, failed } = await servers.connect();
      for (const failure of failed) process.stderr.write(`warning: ${failure.error.message}\n`);
      const wanted = args.servers.length > 0 ? args.servers : connected;
      const result: TypegenServer[] = [];
      for (const name of wanted) {
        const client = servers.get(name);
        if (client === undefined || !client.isConnected) {
          throw new Error(`Server '${name}' is not connected.`);
        }
        result.push({ serverName: name, tools: await client.listTools() });
      }
      return result;
    } finally {
      await servers.close();
    }
  }
  const [command, ...commandArgs] = args.command;
  if (command === undefined) throw new Error('Give --config <file> or -- <command...>.');
  const name = args.name ?? 'server';
  const client = new McpClient(name, {
    type: 'stdio',
    command,
    args: commandArgs,
    env: { ...process.env } as Record<string, string>,
  });
  try {
    await client.connect();
    return [{ serverName: name, tools: await client.listTools() }];
  } finally {
    await client.close();
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const [subcommand, ...rest] = argv;
  if (subcommand !== 'typegen') {
    process.stderr.write(`${usage}\n`);
    return subcommand === '--help' || subcommand === '-h' ? 0 : 2;
  }
  const args = parse(rest);
  const code = await generateToolTypes(
    await collect(args),
    args.importFrom === undefined ? {} : { importFrom: args.importFrom },
  );
  if (args.out === undefined) process.stdout.write(code);
  else {
    await writeFile(args.out, code);
    process.stderr.write(`wrote ${args.out}\n`);
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof UsageError) {
      process.stderr.write(`agcore-mcp: ${message}\n\n${usage}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`agcore-mcp: ${message}\n`);
    process.exitCode = 1;
  },
);
