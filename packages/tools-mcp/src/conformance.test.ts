import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { testDist } from './test-support/test-dist.js';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const conformance = join(
  packageRoot,
  'node_modules',
  '@modelcontextprotocol',
  'conformance',
  'dist',
  'index.js',
);
const client = join(packageRoot, 'src', 'test-support', 'conformance-client.mjs');
const baseline = join(packageRoot, 'conformance-baseline.yml');

function run(script: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: packageRoot,
      // The conformance runner passes its environment on to the client it starts.
      env: { ...process.env, AGCORE_MCP_ENTRY: pathToFileURL(join(testDist, 'index.js')).href },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('official MCP conformance suite (@modelcontextprotocol/conformance 0.1.13), client side', () => {
  // The conformance client runs on the package as the global setup bundled it (testDist).
  // sse-retry checks the reconnect delay against a 200 ms tolerance; on a loaded machine one
  // retry keeps that timing check from failing the run for a reason that is not ours.
  it('passes the core suite, OAuth included; only the baseline (an issuer mismatch) fails', {
    timeout: 240_000,
    retry: 1,
  }, async () => {
    const { code, output } = await run(conformance, [
      'client',
      '--command',
      `${process.execPath} ${client}`,
      '--suite',
      'core',
      '--expected-failures',
      baseline,
      '--timeout',
      '60000',
    ]);
    for (const scenario of [
      'initialize',
      'tools_call',
      'elicitation-sep1034-client-defaults',
      'sse-retry',
      'auth/metadata-default',
      'auth/basic-cimd',
      'auth/scope-step-up',
      'auth/scope-retry-limit',
      'auth/token-endpoint-auth-basic',
      'auth/pre-registration',
    ]) {
      expect(output).toMatch(new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed\\n`));
    }
    expect(output).not.toMatch(/Unexpected failures|Stale baseline entries/);
    expect(code, output.slice(-3000)).toBe(0);
  });
});
