import { spawn } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToolTypes, McpClient, type McpToolInfo } from '../index.js';
import { everythingStdio, hostileServer, serverEntries } from '../test-support/servers.js';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = join(packageRoot, 'src', 'cli.ts');
  const tsx = join(packageRoot, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsx, cli, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('generateToolTypes', () => {
  let tools: readonly McpToolInfo[];
  beforeAll(async () => {
    const client = new McpClient('everything', everythingStdio());
    await client.connect();
    tools = await client.listTools();
    await client.close();
  });
  const workDir = join(packageRoot, '.typegen-test');
  afterAll(async () => {
    await rm(workDir, { recursive: true, force: true });
  });

  it('writes an interface per tool and a typed callTool that the compiler enforces', async () => {
    const code = await generateToolTypes([{ serverName: 'everything', tools }], {
      importFrom: join(packageRoot, 'src', 'index.js'),
    });
    expect(code).toMatch(/export interface EverythingGetSumArgs \{[^}]*a: number[^}]*b: number/s);
    expect(code).toContain('"get-sum": EverythingGetSumArgs;');
    expect(code).toContain('export function everythingTools(client: McpClient)');
    await mkdir(workDir, { recursive: true });
    await writeFile(join(workDir, 'everything.generated.ts'), code);
    await writeFile(
      join(workDir, 'usage.ts'),
      [
        "import type { McpClient } from '../src/index.js';",
        "import { everythingTools } from './everything.generated.js';",
        'export async function use(client: McpClient) {',
        '  const typed = everythingTools(client);',
        "  await typed.callTool<'get-sum'>('get-sum', { a: 1, b: 2 });",
        '  // @ts-expect-error b must be a number',
        "  await typed.callTool('get-sum', { a: 1, b: 'two' });",
        '  // @ts-expect-error no such tool',
        "  await typed.callTool('get-product', { a: 1 });",
        '}',
      ].join('\n'),
    );
    const program = ts.createProgram([join(workDir, 'usage.ts')], {
      strict: true,
      noEmit: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      skipLibCheck: true,
      types: ['node'],
    });
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .filter((diagnostic) => diagnostic.file?.fileName.includes('.typegen-test'))
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    expect(diagnostics).toEqual([]);
  });

  it('runs as the agcore-mcp typegen CLI against a command', async () => {
    const output = await runCli([
      'typegen',
      '--name',
      'everything',
      '--',
      process.execPath,
      serverEntries.everything,
      'stdio',
    ]);
    expect(output.code, output.stderr).toBe(0);
    expect(output.stdout).toContain('export interface EverythingEchoArgs');
    expect(output.stdout).toContain("from '@agcore/tools-mcp'");
  });

  it('runs as the agcore-mcp typegen CLI on an mcpServers file, writing --out', async () => {
    await mkdir(workDir, { recursive: true });
    const config = join(workDir, 'mcp.json');
    const out = join(workDir, 'from-config.generated.ts');
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          everything: { command: process.execPath, args: [serverEntries.everything, 'stdio'] },
          missing: { command: 'agcore-no-such-command-4711' },
        },
      }),
    );
    const output = await runCli(['typegen', '--config', config, '--out', out]);
    expect(output.code, output.stderr).toBe(0);
    expect(output.stdout).toBe('');
    expect(output.stderr).toMatch(/warning: .*'missing'.*ENOENT/);
    expect(output.stderr).toContain(`wrote ${out}`);
    const code = await readFile(out, 'utf8');
    expect(code).toContain('export interface EverythingGetSumArgs');
    expect(code).toContain('export function everythingTools(client: McpClient)');
  });

  it('reads its options with node:util parseArgs (--out=<file>), and refuses unknown ones with code 2', async () => {
    await mkdir(workDir, { recursive: true });
    const out = join(workDir, 'equals.generated.ts');
    const server = hostileServer('clock');
    const output = await runCli([
      'typegen',
      '--name=clock',
      `--out=${out}`,
      '--',
      server.command,
      ...(server.args ?? []),
    ]);
    expect(output.code, output.stderr).toBe(0);
    expect(await readFile(out, 'utf8')).toContain('export interface ClockSleepArgs');
    const unknown = await runCli(['typegen', '--bogus']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/'--bogus'[\s\S]*Usage:/);
  });

  it('explains its usage and fails with code 2 on a wrong command line', async () => {
    const output = await runCli(['frobnicate']);
    expect(output.code).toBe(2);
    expect(output.stderr).toMatch(/Usage:[\s\S]*agcore-mcp typegen --config/);
    const missing = await runCli(['typegen']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/--config <file> or -- <command/);
  });
});
