// The official conformance suite's 2026-07-28 client scenarios (@modelcontextprotocol/conformance
// 0.2, which needs Node 22: run through `npx -y node@22`, fetched from the registry), with the
// agcore client on protocol: 'auto', run by the Node of the test (so on every leg of CI: 20,
// 22 and 24, as issue 20 asks).
import { spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { testDist } from './test-support/test-dist.js';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const client = join(packageRoot, 'src', 'test-support', 'conformance-client.mjs');
const baseline = join(packageRoot, 'conformance-baseline-2026.yml');

/**
 * npm's `npx-cli.js`, for `npx -y node@22 <npx-cli.js> ...` (the conformance runner under Node
 * 22): beside this Node when it came with npm, else in npm's global root (a Node fetched with
 * `npx node@24`, as CI's other legs run, has no npm of its own).
 */
function findNpxCli(): string {
  const beside = join(
    dirname(process.execPath),
    '..',
    'lib',
    'node_modules',
    'npm',
    'bin',
    'npx-cli.js',
  );
  if (existsSync(beside)) return beside;
  // The `npm` on PATH is a link to npm's own bin/npm-cli.js; npx-cli.js is beside it.
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    const npm = join(folder, 'npm');
    if (!existsSync(npm)) continue;
    const cli = join(dirname(realpathSync(npm)), 'npx-cli.js');
    if (existsSync(cli)) return cli;
  }
  throw new Error('npx-cli.js not found: no npm on PATH');
}

/**
 * Runs the suite's client scenarios (all of them, 39 clients at once, or the one `scenario`
 * alone) against the agcore conformance client; resolves to the runner's exit code and output.
 */
function runConformance(scenario?: string): Promise<{ code: number | null; output: string }> {
  const npxCli = findNpxCli();
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
        ...(scenario === undefined
          ? ['--requirements', '2026-07-28', '--expected-failures', baseline]
          : ['--scenario', scenario]),
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

/** The scenarios the runner lists under "Unexpected failures (not in baseline)". */
function unexpectedFailures(output: string): string[] {
  const start = output.indexOf('Unexpected failures (not in baseline):');
  if (start < 0) return [];
  const names: string[] = [];
  for (const line of output.slice(start).split('\n').slice(1)) {
    const match = /^\s*✗ ([\w/.-]+)/.exec(line);
    if (match === null) break;
    names.push(match[1] ?? '');
  }
  return names;
}

describe('official MCP conformance suite 0.2 (2026-07-28 client scenarios), protocol: auto', () => {
  it('passes every scenario but the ones conformance-baseline-2026.yml lists with their reasons', {
    timeout: 400_000,
  }, async () => {
    const { code, output } = await runConformance();
    // The whole suite starts its 39 clients at once; on a loaded 2-core machine a scenario's
    // timing checks can fail for the load alone. A scenario that failed unexpectedly is run
    // again, alone, once: it counts as passing only when every one of its checks passes then
    // (the client's own exit code aside: sep-2322's last call fails by design, see the README).
    const retried = new Map<string, string>();
    for (const scenario of unexpectedFailures(output)) {
      const alone = await runConformance(scenario);
      const passed = /Passed: (\d+)\/\1, 0 failed, 0 warnings/.test(alone.output);
      expect(
        passed,
        `${scenario} failed in the whole run and alone:\n${alone.output.slice(-3000)}`,
      ).toBe(true);
      retried.set(scenario, alone.output);
    }
    for (const scenario of [
      'tools_call',
      'request-metadata',
      'http-standard-headers',
      'http-invalid-tool-headers',
      'http-custom-headers',
      'sep-2322-client-request-state',
      'json-schema-ref-no-deref',
      'auth/metadata-default',
      'auth/scope-step-up',
      'auth/token-endpoint-auth-basic',
      'auth/iss-wrong-issuer',
      'auth/resource-mismatch',
      'auth/client-credentials-basic',
      // The extension scenarios (dpop*, wif-jwt-bearer, enterprise-managed-authorization): the
      // runner reports them but does not score them against the baseline, so they are asserted
      // here; and the scenario that left the baseline with them.
      'auth/dpop',
      'auth/dpop-nonce',
      'auth/wif-jwt-bearer',
      'auth/enterprise-managed-authorization',
      'auth/authorization-server-migration',
    ]) {
      if (retried.has(scenario)) continue;
      expect(output).toMatch(new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed\\n`));
    }
    expect(output).not.toMatch(/Stale baseline entries/);
    if (retried.size === 0) expect(code, output.slice(-3000)).toBe(0);
  });
});
