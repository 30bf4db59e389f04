// Issue 31 §7: the package is ESM-only; a CommonJS consumer loads it with require() (Node 20.19+
// and 22.12+ need no flag). Checked on the running Node, in a child process, against the built
// dist (the test builds nothing: `pnpm build` runs first, as for every consumer).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const made: string[] = [];

afterAll(async () => {
  for (const directory of made) await rm(directory, { recursive: true, force: true });
});

function runNode(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
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

describe('CommonJS consumers', () => {
  it("require('@agcore/tools-mcp-server') works from a .cjs file on the running Node", {
    timeout: 60_000,
  }, async () => {
    expect(existsSync(join(packageRoot, 'dist', 'index.js')), 'run pnpm build first').toBe(true);
    // Inside the package (dist/ is not committed), so the name resolves to this package
    // (self-reference through exports).
    const directory = await mkdtemp(join(packageRoot, 'dist', 'require-test-'));
    made.push(directory);
    const file = join(directory, 'probe.cjs');
    await writeFile(
      file,
      [
        "const server = require('@agcore/tools-mcp-server');",
        "const stdio = require('@agcore/tools-mcp-server/stdio');",
        'console.log(JSON.stringify({',
        '  serveTools: typeof server.serveTools,',
        '  serveToolsStdio: typeof stdio.serveToolsStdio,',
        '}));',
      ].join('\n'),
    );
    const { code, stdout, stderr } = await runNode(file);
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout.trim()), stderr).toEqual({
      serveTools: 'function',
      serveToolsStdio: 'function',
    });
  });

  it('the README says how CommonJS loads the package (require() from Node 20.19 / 22.12, or import())', async () => {
    const readme = await readFile(join(packageRoot, 'README.md'), 'utf8');
    expect(readme).toMatch(/From CommonJS, `require\(\)` loads/);
    expect(readme).toMatch(/Node 20\.19\+ \(20\.x\) and 22\.12\+/);
    expect(readme).toMatch(/`import\(\)`/);
  });
});
