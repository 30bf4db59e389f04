// A resource server's check of a DPoP proof (RFC 9449 §4.3, §7.1), with jose: the signature
// by the key in its header, typ, htm, htu, iat, a jti never seen before, the nonce the server
// gave, ath = the presented token's hash, and the key's thumbprint = the token's cnf.jkt.
import { createHash } from 'node:crypto';
import {
  calculateJwkThumbprint,
  decodeProtectedHeader,
  importJWK,
  type JWK,
  jwtVerify,
} from 'jose';

/** What a proof is checked against. */
export interface DpopExpectation {
  readonly method: string;
  /** The request URL as the server sees it (its query is not part of `htu`). */
  readonly url: string;
  readonly accessToken: string;
  /** The token's `cnf.jkt`. */
  readonly jkt: string | undefined;
  /** The nonce the server requires now, when it requires one. */
  readonly nonce?: string;
  /** The `jti`s seen so far (the check adds this one). */
  readonly seen: Set<string>;
}

/** The verdict: `ok`, or the `error` a 401 names (`use_dpop_nonce` for a missing or old nonce). */
export type DpopVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly error: string; readonly description: string };

const bad = (description: string): DpopVerdict => ({
  ok: false,
  error: 'invalid_dpop_proof',
  description,
});

/** Checks `proof` (the `DPoP` header) as RFC 9449 §4.3 orders. Never throws. */
export async function verifyDpopProof(
  proof: string | undefined,
  expected: DpopExpectation,
): Promise<DpopVerdict> {
  if (proof === undefined || proof.includes(',')) return bad('one DPoP proof is required');
  let payload: Record<string, unknown>;
  let jwk: JWK;
  try {
    const header = decodeProtectedHeader(proof);
    if (header.typ !== 'dpop+jwt' || header.alg !== 'ES256' || header.jwk === undefined)
      return bad('typ dpop+jwt, alg ES256 and a jwk header are required');
    jwk = header.jwk;
    if ('d' in jwk) return bad('the jwk header holds a private key');
    ({ payload } = await jwtVerify(proof, await importJWK(jwk, 'ES256'), { typ: 'dpop+jwt' }));
  } catch (error) {
    return bad(`the proof does not verify: ${error instanceof Error ? error.message : 'bad'}`);
  }
  const url = new URL(expected.url);
  if (payload.htm !== expected.method) return bad(`htm ${String(payload.htm)} is not the method`);
  if (payload.htu !== `${url.origin}${url.pathname}`)
    return bad(`htu ${String(payload.htu)} is not the URL`);
  const iat = Number(payload.iat);
  if (!Number.isFinite(iat) || Math.abs(Date.now() / 1000 - iat) > 300) return bad('iat is off');
  if (typeof payload.jti !== 'string' || expected.seen.has(payload.jti))
    return bad('jti missing or replayed');
  expected.seen.add(payload.jti);
  const ath = createHash('sha256').update(expected.accessToken).digest('base64url');
  if (payload.ath !== ath) return bad('ath is not the hash of the access token');
  if (expected.jkt === undefined || (await calculateJwkThumbprint(jwk)) !== expected.jkt)
    return bad("the proof key is not the token's cnf.jkt");
  if (expected.nonce !== undefined && payload.nonce !== expected.nonce) {
    return { ok: false, error: 'use_dpop_nonce', description: 'a fresh nonce is required' };
  }
  return { ok: true };
}
