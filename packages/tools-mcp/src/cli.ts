#!/usr/bin/env node
import { writeFile } from 'node:fs/promises';
import { McpClient } from './mcp-client.js';
import { McpServers } from './mcp-servers.js';
import { generateToolTypes, type TypegenServer } from './typegen.js';

const usage = `Usage:
  agcore-mcp typegen --config <mcp.json> [--server <name>]... [--out <file.ts>] [--import-from <module>]
  agcore-mcp typegen [--name <server>] [--out <file.ts>] [--import-from <module>] -- <command> [args...]

Connects to the MCP server(s), lists their tools and writes a TypeScript module with an
argument interface per tool and a typed callTool wrapper (to stdout without --out).`;

interface Arguments {
  config?: string;
  servers: string[];
  out?: string;
  importFrom?: string;
  name?: string;
  command: string[];
}

function parse(argv: readonly string[]): Arguments {
  const result: Arguments = { servers: [], command: [] };
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    const value = (): string => {
      const next = argv[++index];
      if (next === undefined) throw new Error(`${arg} needs a value.`);
      return next;
    };
    if (arg === '--') {
      result.command = argv.slice(index + 1);
      break;
    } else if (arg === '--config') result.config = value();
    else if (arg === '--server') result.servers.push(value());
    else if (arg === '--out') result.out = value();
    else if (arg === '--import-from') result.importFrom = value();
    else if (arg === '--name') result.name = value();
    else throw new Error(`Unknown option '${arg}'.`);
  }
  return result;
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
        if (client === undefined || !client.isConnected)
          throw new Error(`Server '${name}' is not connected.`);
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
    process.stderr.write(`agcore-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
