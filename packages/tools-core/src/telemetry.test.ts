import { afterEach, describe, expect, it } from 'vitest';
import {
  boundAttribute,
  defaultMaxAttributeBytes,
  isTracerProviderRegistered,
  optionalImport,
} from './telemetry.js';

const key = Symbol.for('opentelemetry.js.api.1');
const global = globalThis as { [key]?: unknown };

describe('isTracerProviderRegistered', () => {
  afterEach(() => {
    delete global[key];
  });

  it('reads the API global: true only once a tracer provider is registered', () => {
    expect(isTracerProviderRegistered()).toBe(false);
    global[key] = { version: '1.9.1', diag: {} };
    expect(isTracerProviderRegistered()).toBe(false);
    global[key] = { version: '1.9.1', trace: {} };
    expect(isTracerProviderRegistered()).toBe(true);
  });

  it('says false for a hostile global instead of throwing', () => {
    global[key] = new Proxy(
      {},
      {
        get: () => {
          throw new Error('trap');
        },
      },
    );
    expect(isTracerProviderRegistered()).toBe(false);
    global[key] = null;
    expect(isTracerProviderRegistered()).toBe(false);
  });
});

describe('optionalImport', () => {
  it('loads once and keeps the module', async () => {
    let imports = 0;
    const lazy = optionalImport(async () => {
      imports++;
      return { name: 'module' };
    });
    expect(lazy.module).toBeUndefined();
    expect(lazy.settled).toBe(false);
    const [first, second] = await Promise.all([lazy.load(), lazy.load()]);
    expect(first).toEqual({ name: 'module' });
    expect(second).toBe(first);
    expect(lazy.module).toBe(first);
    expect(lazy.settled).toBe(true);
    expect(imports).toBe(1);
  });

  it('stays without the module, for good, when the import fails or throws', async () => {
    let imports = 0;
    const missing = optionalImport<object>(() => {
      imports++;
      return import('@agcore/no-such-package' as string);
    });
    expect(await missing.load()).toBeUndefined();
    expect(await missing.load()).toBeUndefined();
    expect(missing.settled).toBe(true);
    expect(imports).toBe(1);
    const throwing = optionalImport<object>(() => {
      throw new Error('sync throw');
    });
    expect(await throwing.load()).toBeUndefined();
  });
});

describe('boundAttribute', () => {
  it('leaves a short value alone and cuts a long one to the limit, with the marker', () => {
    expect(boundAttribute('short')).toBe('short');
    const long = 'é'.repeat(50_000);
    const bounded = boundAttribute(long);
    expect(Buffer.byteLength(bounded)).toBeLessThanOrEqual(defaultMaxAttributeBytes);
    expect(bounded).toMatch(/…\[truncated: \d+ of 100000 bytes cut\]$/);
    expect(bounded).not.toContain('\uFFFD');
  });

  it('takes a smaller limit and falls back to the default on a nonsense one', () => {
    expect(Buffer.byteLength(boundAttribute('x'.repeat(1000), 100))).toBeLessThanOrEqual(100);
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(Buffer.byteLength(boundAttribute('x'.repeat(100_000), bad))).toBeLessThanOrEqual(
        defaultMaxAttributeBytes,
      );
    }
  });

  it('counts against totalBytes when the value is only the start of a longer text', () => {
    const start = 'x'.repeat(200);
    const bounded = boundAttribute(start, 100, 5_000_000);
    expect(Buffer.byteLength(bounded)).toBeLessThanOrEqual(100);
    const kept = bounded.indexOf('\n…');
    expect(bounded).toContain(`[truncated: ${5_000_000 - kept} of 5000000 bytes cut]`);
    // A whole short text with a total beyond the limit is cut too; within it, left alone.
    expect(boundAttribute('abc', 100, 500)).toMatch(/^abc\n…\[truncated: 497 of 500 bytes cut\]$/);
    expect(boundAttribute('abc', 100, 3)).toBe('abc');
  });
});
