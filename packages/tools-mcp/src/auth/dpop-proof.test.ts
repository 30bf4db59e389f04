// The contents of a DPoP proof (RFC 9449 §4.2), checked with jose, and htu normalisation.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { decodeJwt, decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { DpopProver, htuOf } from './dpop.js';

describe('DPoP proofs', () => {
  it('typ dpop+jwt, the public jwk, htm, htu without query or fragment, iat, a unique jti, ath', async () => {
    const prover = new DpopProver(true);
    const url = 'https://mcp.example.com/mcp?session=1#frag';
    const first = await prover.proof('post', url, 'the-access-token');
    const second = await prover.proof('POST', url, 'the-access-token');
    const header = decodeProtectedHeader(first);
    expect(header).toMatchObject({ typ: 'dpop+jwt', alg: 'ES256' });
    expect(Object.keys(header.jwk ?? {}).sort()).toEqual(['crv', 'kty', 'x', 'y']);
    const { payload } = await jwtVerify(first, await importJWK(header.jwk ?? {}, 'ES256'), {
      typ: 'dpop+jwt',
    });
    expect(payload.htm).toBe('POST');
    expect(payload.htu).toBe('https://mcp.example.com/mcp');
    expect(Math.abs(Number(payload.iat) - Date.now() / 1000)).toBeLessThan(120);
    expect(payload.ath).toBe(createHash('sha256').update('the-access-token').digest('base64url'));
    expect(payload.nonce).toBeUndefined();
    expect(decodeJwt(second).jti).not.toBe(payload.jti);
    expect(decodeProtectedHeader(second).jwk).toEqual(header.jwk);
  });

  it('a token request proof has no ath; the nonce of the origin is carried, not of another', async () => {
    const prover = new DpopProver(true);
    expect(prover.remember('https://as.example.com/token', 'n-1')).toBe(true);
    expect(prover.remember('https://as.example.com/token', null)).toBe(false);
    const proof = decodeJwt(await prover.proof('POST', 'https://as.example.com/token'));
    expect(proof.ath).toBeUndefined();
    expect(proof.nonce).toBe('n-1');
    expect(
      decodeJwt(await prover.proof('POST', 'https://rs.example.com/mcp')).nonce,
    ).toBeUndefined();
  });

  it("the session's private key cannot be exported; a given key pair is used as it is", async () => {
    const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, [
      'sign',
      'verify',
    ]);
    expect(pair.privateKey.extractable).toBe(false);
    const given = await crypto.subtle.exportKey('jwk', pair.publicKey);
    const proof = await new DpopProver({ key: pair }).proof('GET', 'https://rs.example.com/mcp');
    expect(decodeProtectedHeader(proof).jwk).toMatchObject({ x: given.x, y: given.y });
    const rsa = await crypto.subtle.generateKey(
      {
        name: 'RSASSA-PKCS1-v1_5',
        modulusLength: 2048,
        publicExponent: new Uint8Array([1, 0, 1]),
        hash: 'SHA-256',
      },
      false,
      ['sign', 'verify'],
    );
    await expect(
      new DpopProver({ key: rsa }).proof('GET', 'https://rs.example.com/'),
    ).rejects.toThrow(/ECDSA P-256/);
  });

  it('htu never carries a query or a fragment, and keeps origin and path (property, fixed seed)', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (raw) => {
        const url = new URL(raw);
        const htu = htuOf(raw);
        expect(htu).not.toMatch(/[?#]/);
        expect(htu).toBe(`${url.origin}${url.pathname}`);
      }),
      { seed: 9449, numRuns: 500 },
    );
  });
});
