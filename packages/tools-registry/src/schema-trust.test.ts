import type { AnyTool, JsonSchema } from '@agcore/tools-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ToolRegistry } from './tool-registry.js';

// Issue 18 §5: schemas with lookaround register; how their patterns are checked follows the
// tool's schemaTrust. The patterns are those zod 4 emits for z.hostname() and z.iso.duration()
// (copied from z.toJSONSchema; tools-core's tests run zod itself).
const hostname =
  '^(?=.{1,253}\\.?$)[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\\.[a-zA-Z0-9](?:[-0-9a-zA-Z]{0,61}[0-9a-zA-Z])?)*\\.?$';
const duration =
  '^P(?:(\\d+W)|(?!.*W)(?=\\d|T\\d)(\\d+Y)?(\\d+M)?(\\d+D)?(T(?=\\d)(\\d+H)?(\\d+M)?(\\d+([.,]\\d+)?S)?)?)$';

const parameters: JsonSchema = {
  type: 'object',
  properties: {
    host: { type: 'string', pattern: hostname },
    period: { type: 'string', pattern: duration },
  },
  required: ['host', 'period'],
};

function tool(name: string, schemaTrust?: 'trusted' | 'untrusted'): AnyTool {
  return {
    name,
    description: 'echoes',
    parameters,
    ...(schemaTrust === undefined ? {} : { schemaTrust }),
    execute: async (args) => args as never,
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('schemaTrust at register', () => {
  it('checks the lookaround patterns of a trusted tool (the default)', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const registry = new ToolRegistry().register(tool('local'));
    const good = await registry.invoke('local', { host: 'example.com', period: 'PT5M' });
    expect(good.output.ok).toBe(true);
    const bad = await registry.invoke('local', { host: 'example.com', period: 'P1W2D' });
    expect(bad.output.ok).toBe(false);
    expect(bad.output.ok ? '' : bad.output.error.code).toBe('invalid_arguments');
    expect(bad.output.ok ? '' : bad.output.error.message).toMatch(/period must match pattern/);
    expect(warn).not.toHaveBeenCalled();
  });

  it('registers an untrusted tool, leaves those patterns unchecked, warns once per registry', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const registry = new ToolRegistry().register(tool('remote', 'untrusted'));
    registry.register(tool('remote_two', 'untrusted'));
    const loose = await registry.invoke('remote', { host: '-x-', period: 'P1W2D' });
    expect(loose.output.ok).toBe(true);
    const missing = await registry.invoke('remote', { host: 'example.com' });
    expect(missing.output.ok).toBe(false);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/tool 'remote'.*not checked/);
    expect(warn.mock.calls[0]?.[1]).toMatchObject({ code: 'AGCORE_SCHEMA_PATTERN_UNCHECKED' });
    new ToolRegistry().register(tool('elsewhere', 'untrusted'));
    expect(warn).toHaveBeenCalledTimes(2);
  });

  it('refuses a schemaTrust that is neither word', () => {
    const odd = { ...tool('odd'), schemaTrust: 'maybe' } as unknown as AnyTool;
    expect(() => new ToolRegistry().register(odd)).toThrow(/schemaTrust is neither/);
  });
});
