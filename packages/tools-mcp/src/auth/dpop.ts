import { base64Url, randomToken, signJws } from './jwt.js';
import type { McpDpopOption } from './types.js';

/** The Web Crypto key types, as `crypto.subtle` declares them. */
type SubtleKey = Parameters<typeof crypto.subtle.sign>[1];

const ecdsa = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const signParameters = { name: 'ECDSA', hash: 'SHA-256' } as const;

/** The key a prover signs with and the public JWK its proofs carry. */
interface ProofKey {
  readonly privateKey: SubtleKey;
  readonly jwk: Readonly<Record<string, string>>;
}

/**
 * The `htu` of a proof (RFC 9449 §4.2): the request URL without its query and fragment.
 *
 * @throws {TypeError} for a string that is no absolute URL.
 */
export function htuOf(url: string | URL): string {
  const parsed = new URL(String(url));
  parsed.search = '';
  parsed.hash = '';
  return parsed.href;
}

/** base64url(SHA-256(accessToken)): the `ath` claim of a proof sent with the token. */
export async function accessTokenHash(accessToken: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(accessToken));
  return base64Url(new Uint8Array(digest));
}

/**
 * DPoP proofs (RFC 9449) of one OAuth session: one key pair (made on first use unless the
 * option gives one), a fresh proof per request, and the latest `DPoP-Nonce` of each origin.
 */
export class DpopProver {
  private key: Promise<ProofKey> | undefined;
  private readonly nonces = new Map<string, string>();

  constructor(private readonly option: McpDpopOption) {}

  /**
   * A proof for `method` on `url`; with `accessToken`, bound to it by `ath`. Carries the
   * nonce last seen from the URL's origin.
   *
   * @throws {Error} when the configured key is not an ECDSA P-256 key pair that can sign.
   */
  async proof(method: string, url: string | URL, accessToken?: string): Promise<string> {
    const key = await this.keyPair();
    const nonce = this.nonces.get(new URL(String(url)).origin);
    const claims = {
      jti: randomToken(16),
      htm: method.toUpperCase(),
      htu: htuOf(url),
      iat: Math.floor(Date.now() / 1000),
      ...(nonce === undefined ? {} : { nonce }),
      ...(accessToken === undefined ? {} : { ath: await accessTokenHash(accessToken) }),
    };
    return signJws(
      { typ: 'dpop+jwt', alg: 'ES256', jwk: key.jwk },
      claims,
      key.privateKey,
      signParameters,
    );
  }

  /** Keeps `nonce` (a `DPoP-Nonce` header) as the latest of `url`'s origin; whether there was one. */
  remember(url: string | URL, nonce: string | null | undefined): boolean {
    if (nonce === null || nonce === undefined || nonce === '') return false;
    this.nonces.set(new URL(String(url)).origin, nonce);
    return true;
  }

  private keyPair(): Promise<ProofKey> {
    if (this.key !== undefined) return this.key;
    const key = makeKey(this.option);
    this.key = key;
    // A key that failed is tried again on the next request, not remembered.
    key.catch(() => {
      if (this.key === key) this.key = undefined;
    });
    return key;
  }
}

async function makeKey(option: McpDpopOption): Promise<ProofKey> {
  const given = option === true ? undefined : option.key;
  const pair =
    given === undefined
      ? await crypto.subtle.generateKey(ecdsa, false, ['sign', 'verify'])
      : (given as unknown as { publicKey: SubtleKey; privateKey: SubtleKey });
  const algorithm = pair.privateKey.algorithm as { name?: string; namedCurve?: string };
  if (algorithm.name !== 'ECDSA' || algorithm.namedCurve !== 'P-256') {
    throw new Error('dpop.key must be an ECDSA P-256 key pair (ES256)');
  }
  const { kty, crv, x, y } = await crypto.subtle.exportKey('jwk', pair.publicKey);
  if (kty === undefined || crv === undefined || x === undefined || y === undefined) {
    throw new Error('dpop.key has no exportable EC public key');
  }
  return { privateKey: pair.privateKey, jwk: { kty, crv, x, y } };
}
