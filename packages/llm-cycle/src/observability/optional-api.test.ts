import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// `@opentelemetry/api` is an optional peer dependency of llm-cycle and tools-registry, which
// never import it (they read what the application registered through tools-core's view): these
// tests run a tool loop in a child process whose module loader logs (and can refuse) every
// resolution of an @opentelemetry package.
const run = promisify(execFile);
const probe = fileURLToPath(new URL('../test-support/otel-probe/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'agcore-otel-probe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface ProbeResult {
  readonly answer: string;
  readonly streamed: number;
  readonly spans: number;
  readonly unhandled: string[];
  /** The resolutions of @opentelemetry packages the loader saw. */
  readonly resolved: { specifier: string; byAgcore: boolean }[];
}

async function probeLoop(mode: string, deny: 'none' | 'agcore' | 'all'): Promise<ProbeResult> {
  const log = join(dir, `${mode}-${deny}.log`);
  writeFileSync(log, '');
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', '--import', join(probe, 'register.mjs'), join(probe, 'child.ts'), mode],
    {
      env: { ...process.env, OTEL_PROBE_LOG: log, OTEL_PROBE_DENY: deny },
      timeout: 60_000,
    },
  );
  const resolved = readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { specifier: string; byAgcore: boolean });
  return { ...(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as ProbeResult), resolved };
}

describe('@opentelemetry/api is optional', () => {
  it('without a registered tracer provider, agcore never even resolves it', async () => {
    const result = await probeLoop('off', 'none');
    expect(result.answer).toBe('done');
    expect(result.streamed).toBeGreaterThan(0);
    expect(result.resolved).toEqual([]);
    expect(result.unhandled).toEqual([]);
  });

  it('with the SDK registered, spans are made, and still agcore resolves nothing of it', async () => {
    const result = await probeLoop('sdk', 'none');
    expect(result.answer).toBe('done');
    expect(result.resolved.filter((resolution) => resolution.byAgcore)).toEqual([]);
    expect(result.spans).toBeGreaterThanOrEqual(6);
  });

  it('when agcore could not resolve it (a bundle, another copy), the SDK the app registered still gets the spans', async () => {
    const result = await probeLoop('sdk', 'agcore');
    expect(result.answer).toBe('done');
    expect(result.unhandled).toEqual([]);
    expect(result.spans).toBeGreaterThanOrEqual(6);
  });

  it('when it cannot be resolved at all, the loop works as before, with or without a provider registered', async () => {
    for (const mode of ['off', 'fake-global'] as const) {
      const result = await probeLoop(mode, 'all');
      expect(result.answer, mode).toBe('done');
      expect(result.streamed, mode).toBeGreaterThan(0);
      expect(result.unhandled, mode).toEqual([]);
      expect(result.spans, mode).toBe(0);
    }
  });
});
