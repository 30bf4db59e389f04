// Standalone and light: what the README shows works with tools-mcp alone; the HTTP transports
// and the typegen compiler load only when used. These run the package as bundled for the
// tests (`testDist`, built by the global setup as `pnpm build` builds dist/).
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './test-support/servers.js';
import { testDist } from './test-support/test-dist.js';

const here = dirname(fileURLToPath(import.meta.url));
const packageRoot = join(here, '..');
const dist = testDist;
const traceModules = join(here, 'test-support', 'trace-modules.mjs');

function run(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', pathToFileURL(traceModules).href, ...args], {
      cwd: packageRoot,
      env: { PATH: process.env.PATH ?? '', ...env },
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

let dir: { path: string; remove(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir('standalone');
});
afterAll(async () => {
  await dir.remove();
});

describe('the README', () => {
  it('imports only from @agcore/tools-mcp, and everything it imports is exported', async () => {
    const readme = await readFile(join(packageRoot, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
    const imports = blocks.flatMap((block) => [
      ...block.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+'([^']+)'/g),
    ]);
    expect(imports.length).toBeGreaterThan(1);
    const entry = (await import(pathToFileURL(join(dist, 'index.js')).href)) as Record<
      string,
      unknown
    >;
    for (const [, typeOnly, names, from] of imports) {
      if (from?.startsWith('./')) continue; // a file the typegen CLI writes
      expect(from).toBe('@agcore/tools-mcp');
      for (const raw of names?.split(',') ?? []) {
        const name = raw.trim().replace(/^type\s+/, '');
        if (name === '' || typeOnly !== undefined || raw.trim().startsWith('type ')) continue;
        expect(entry[name], `README imports ${name}`).toBeDefined();
      }
    }
  });
});

describe('import cost', () => {
  it('does not load the HTTP transports, the schema compiler or typegen until they are used', async () => {
    const trace = join(dir.path, 'stdio.trace');
    const script = `const { McpClient } = await import(${JSON.stringify(pathToFileURL(join(dist, 'index.js')).href)});
      new McpClient('x', { type: 'stdio', command: 'node' });`;
    const result = await run(['--input-type=module', '-e', script], { TRACE_FILE: trace });
    expect(result.code, result.stderr).toBe(0);
    const loaded = await readFile(trace, 'utf8');
    expect(loaded).toMatch(/sdk\/dist\/esm\/client\/index\.js/);
    expect(loaded).not.toMatch(/client\/(streamableHttp|sse)\.js/);
    expect(loaded).not.toMatch(/eventsource/);
    expect(loaded).not.toMatch(/json-schema-to-typescript/);
    // The schema compiler loads with the first listing.
    expect(loaded).not.toMatch(/tools-core\/dist\/schema\//);
  });
});

describe('agcore-mcp typegen without json-schema-to-typescript', () => {
  it('says what to install, and exits 1', async () => {
    const server = join(here, 'test-support', 'hostile-server.mjs');
    const result = await run(
      [join(dist, 'cli.js'), 'typegen', '--name', 'clock', '--', process.execPath, server, 'clock'],
      { HIDE_MODULES: 'json-schema-to-typescript' },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /typegen \(generateToolTypes\) needs json-schema-to-typescript.*npm install --save-dev json-schema-to-typescript/s,
    );
    expect(result.stderr).not.toMatch(/at .*\.js:\d+/); // a message, not a stack
  });

  it('is an optional peer dependency, not a dependency of the adapter', async () => {
    const manifest = JSON.parse(await readFile(join(packageRoot, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    };
    expect(manifest.dependencies?.['json-schema-to-typescript']).toBeUndefined();
    expect(manifest.peerDependencies?.['json-schema-to-typescript']).toBeDefined();
    expect(manifest.peerDependenciesMeta?.['json-schema-to-typescript']?.optional).toBe(true);
  });
});

describe('@opentelemetry/api, an optional peer dependency (trace context in _meta)', () => {
  const callScript = (
    fakeProvider: boolean,
  ) => `${fakeProvider ? "globalThis[Symbol.for('opentelemetry.js.api.1')] = { version: '1.9.1', trace: {} };" : ''}
      const { McpClient } = await import(${JSON.stringify(pathToFileURL(join(dist, 'index.js')).href)});
      const client = new McpClient('x', { type: 'stdio', command: process.execPath, args: [${JSON.stringify(join(packageRoot, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js'))}, 'stdio'] });
      await client.connect();
      const result = await client.callTool('echo', { message: 'hi' });
      await client.close();
      console.log(JSON.stringify(result.value));`;

  it('is never loaded without a registered tracer provider', async () => {
    const trace = join(dir.path, 'otel-off.trace');
    const result = await run(['--input-type=module', '-e', callScript(false)], {
      TRACE_FILE: trace,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Echo: hi');
    expect(await readFile(trace, 'utf8')).not.toMatch(/@opentelemetry/);
  });

  it("never loads the v2 SDK (@modelcontextprotocol/client) with protocol: 'legacy'", async () => {
    const trace = join(dir.path, 'legacy-v2.trace');
    const result = await run(['--input-type=module', '-e', callScript(false)], {
      TRACE_FILE: trace,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Echo: hi');
    const loaded = await readFile(trace, 'utf8');
    expect(loaded).toMatch(/@modelcontextprotocol\/sdk/);
    expect(loaded).not.toMatch(/@modelcontextprotocol[+/](client|core)/);
  });

  it('when it cannot be resolved, calls work as before, even with a provider registered', async () => {
    const trace = join(dir.path, 'otel-hidden.trace');
    const result = await run(['--input-type=module', '-e', callScript(true)], {
      TRACE_FILE: trace,
      HIDE_MODULES: '@opentelemetry/api',
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Echo: hi');
  });
});

describe('@modelcontextprotocol/client (the v2 SDK), an optional peer dependency', () => {
  it("when it cannot be resolved, protocol: 'auto' fails with mcp_error naming the install command", async () => {
    const script = `const { McpClient } = await import(${JSON.stringify(pathToFileURL(join(dist, 'index.js')).href)});
      const client = new McpClient('x', { type: 'stdio', command: process.execPath, args: ['-e', ''] }, { protocol: 'auto' });
      const error = await client.connect().catch((caught) => caught);
      console.log(JSON.stringify({ code: error.code, message: error.message }));`;
    const result = await run(['--input-type=module', '-e', script], {
      HIDE_MODULES: '@modelcontextprotocol/client',
    });
    expect(result.code, result.stderr).toBe(0);
    const error = JSON.parse(result.stdout) as { code: string; message: string };
    expect(error.code).toBe('mcp_error');
    expect(error.message).toContain('npm install @modelcontextprotocol/client@^2.4.0');
  });

  it('is an optional peer dependency, not a dependency', async () => {
    const manifest = JSON.parse(await readFile(join(packageRoot, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    };
    expect(manifest.dependencies?.['@modelcontextprotocol/client']).toBeUndefined();
    expect(manifest.peerDependenciesMeta?.['@modelcontextprotocol/client']?.optional).toBe(true);
  });
});
