import { createHash, createHmac } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';

// `@noble/hashes`' SHA-256, counted: where the host has no `node:crypto`, the hashes are its.
const calls = vi.hoisted(() => ({ hash: 0, create: 0 }));
vi.mock('@noble/hashes/sha2.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('@noble/hashes/sha2.js')>();
  const counted = (message: Uint8Array): Uint8Array => {
    calls.hash++;
    return original.sha256(message);
  };
  const create: typeof original.sha256.create = () => {
    calls.create++;
    return original.sha256.create();
  };
  return {
    ...original,
    sha256: Object.assign(counted, {
      outputLen: original.sha256.outputLen,
      blockLen: original.sha256.blockLen,
      create,
    }),
  };
});

/** The module fresh, in a host whose `process` has no `getBuiltinModule` (a browser, workerd). */
async function withoutNativeCrypto(): Promise<typeof import('./sha256.js')> {
  vi.resetModules();
  vi.stubGlobal('process', { ...process, getBuiltinModule: undefined });
  const module = await import('./sha256.js');
  // The host is looked at on the first call.
  module.sha256Hex('');
  vi.unstubAllGlobals();
  calls.hash = 0;
  calls.create = 0;
  return module;
}

afterEach(() => {
  vi.unstubAllGlobals();
  calls.hash = 0;
  calls.create = 0;
});

describe('SHA-256 where the host has no node:crypto', () => {
  it('hashes with @noble/hashes, giving what node:crypto gives', async () => {
    const { sha256Hex, hmacSha256Hex } = await withoutNativeCrypto();
    const text = 'é😀中 \uD800 a paused run';
    expect(sha256Hex(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
    expect(calls.hash).toBe(1);
    const key = 'k'.repeat(100);
    expect(hmacSha256Hex(key, text)).toBe(createHmac('sha256', key).update(text).digest('hex'));
    expect(calls.create).toBeGreaterThan(0);
  });

  it('keeps the native fast path where the host has one', async () => {
    vi.resetModules();
    const { sha256Hex, hmacSha256Hex } = await import('./sha256.js');
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(hmacSha256Hex('Jefe', 'what do ya want for nothing?')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
    expect(calls).toEqual({ hash: 0, create: 0 });
  });
});
