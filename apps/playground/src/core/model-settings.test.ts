import { describe, expect, it } from 'vitest';
import { createRemoteProvider, resolveModelSettings } from './model-settings.js';
import { PlaygroundError } from './playground-error.js';

describe('--provider', () => {
  it('defaults from the base URL: api.anthropic.com speaks anthropic, with ANTHROPIC_API_KEY', () => {
    const env = { ANTHROPIC_API_KEY: 'sk-ant-1', OPENAI_API_KEY: 'sk-openai' };
    expect(
      resolveModelSettings(
        { baseUrl: 'https://api.anthropic.com', model: 'claude-haiku-4-5' },
        env,
      ),
    ).toMatchObject({ kind: 'remote', provider: 'anthropic', apiKey: 'sk-ant-1' });
    expect(
      resolveModelSettings({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen' }, env),
    ).toMatchObject({ provider: 'openai-compatible', apiKey: 'sk-openai' });
  });

  it('--provider anthropic alone goes to api.anthropic.com; an unknown name is refused', () => {
    expect(
      resolveModelSettings({ provider: 'anthropic', model: 'claude-haiku-4-5' }, {}),
    ).toMatchObject({ provider: 'anthropic', baseURL: 'https://api.anthropic.com' });
    expect(() => resolveModelSettings({ provider: 'bedrock', model: 'x' }, {})).toThrow(
      PlaygroundError,
    );
  });

  it('makes the provider of the wire format, and says what is missing', () => {
    const anthropic = resolveModelSettings({ provider: 'anthropic', model: 'claude' }, {});
    if (anthropic.kind !== 'remote') throw new Error('expected remote settings');
    expect(() => createRemoteProvider(anthropic)).toThrow(/ANTHROPIC_API_KEY/);
    expect(typeof createRemoteProvider({ ...anthropic, apiKey: 'sk-ant-1' }).chat).toBe('function');
    expect(typeof createRemoteProvider({ ...anthropic, provider: 'openai-responses' }).chat).toBe(
      'function',
    );
  });

  it('--provider gemini goes to generativelanguage.googleapis.com with GEMINI_API_KEY, and needs a key', () => {
    const env = { GEMINI_API_KEY: 'AIza-1', OPENAI_API_KEY: 'sk-openai' };
    expect(
      resolveModelSettings({ provider: 'gemini', model: 'gemini-3-flash-preview' }, env),
    ).toMatchObject({
      kind: 'remote',
      provider: 'gemini',
      baseURL: 'https://generativelanguage.googleapis.com/v1beta',
      apiKey: 'AIza-1',
    });
    expect(
      resolveModelSettings(
        { baseUrl: 'https://generativelanguage.googleapis.com/v1beta', model: 'gemini-2.5-flash' },
        env,
      ),
    ).toMatchObject({ provider: 'gemini', apiKey: 'AIza-1' });
    const keyless = resolveModelSettings({ provider: 'gemini', model: 'gemini' }, {});
    if (keyless.kind !== 'remote') throw new Error('expected remote settings');
    expect(() => createRemoteProvider(keyless)).toThrow(/GEMINI_API_KEY/);
    expect(typeof createRemoteProvider({ ...keyless, apiKey: 'AIza-1' }).chat).toBe('function');
  });
});
