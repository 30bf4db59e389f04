// The official conformance suite's 2026-07-28 client scenarios (@modelcontextprotocol/conformance
// 0.2, which needs Node 22: run through `npx -y node@22`, fetched from the registry), with the
// agcore client on protocol: 'auto'. A service test: under CI it runs only where .ci/run sets
// AGCORE_SERVICE_TESTS=1 (the Node 20 leg).
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { testDist } from './test-support/test-dist.js';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const client = join(packageRoot, 'src', 'test-support', 'conformance-client.mjs');
const baseline = join(packageRoot, 'conformance-baseline-2026.yml');
const skip = process.env.CI !== undefined && process.env.AGCORE_SERVICE_TESTS !== '1';

function runConformance(): Promise<{ code: number | null; output: string }> {
  // `npx -y node@22 <npx-cli.js> ...`: the conformance runner under Node 22.
  const npxCli = join(
    dirname(process.execPath),
    '..',
    'lib',
    'node_modules',
    'npm',
    'bin',
    'npx-cli.js',
  );
  return new Promise((resolve, reject) => {
    const child = spawn(
      'npx',
      [
        '-y',
        'node@22',
        npxCli,
        '-y',
        '@modelcontextprotocol/conformance@0.2.0-alpha.12',
        'client',
        '--command',
        `${process.execPath} ${client}`,
        '--requirements',
        '2026-07-28',
        '--expected-failures',
        baseline,
        '--timeout',
        '60000',
      ],
      {
        cwd: packageRoot,
        env: {
          ...process.env,
          AGCORE_MCP_ENTRY: pathToFileURL(join(testDist, 'index.js')).href,
          AGCORE_MCP_PROTOCOL: 'auto',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
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

describe.skipIf(skip)(
  'official MCP conformance suite 0.2 (2026-07-28 client scenarios), protocol: auto',
  () => {
    it('passes every scenario but the ones conformance-baseline-2026.yml lists with their reasons', {
      timeout: 400_000,
    }, async () => {
      const { code, output } = await runConformance();
      for (const scenario of [
        'tools_call',
        'request-metadata',
        'http-standard-headers',
        'http-invalid-tool-headers',
        'json-schema-ref-no-deref',
        'auth/metadata-default',
        'auth/scope-step-up',
        'auth/token-endpoint-auth-basic',
        'auth/iss-wrong-issuer',
        'auth/resource-mismatch',
        'auth/client-credentials-basic',
      ]) {
        expect(output).toMatch(new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed\\n`));
      }
      expect(output).not.toMatch(/Unexpected failures|Stale baseline entries/);
      expect(code, output.slice(-3000)).toBe(0);
    });
  },
);
