import type { McpPrivateKeyJwt } from './types.js';

/** Web Crypto parameters of each JWS algorithm `privateKeyJwt` takes. */
const algorithms = {
  RS256: {
    import: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
    sign: { name: 'RSASSA-PKCS1-v1_5' },
  },
  PS256: {
    import: { name: 'RSA-PSS', hash: 'SHA-256' },
    sign: { name: 'RSA-PSS', saltLength: 32 },
  },
  ES256: {
    import: { name: 'ECDSA', namedCurve: 'P-256' },
    sign: { name: 'ECDSA', hash: 'SHA-256' },
  },
  ES384: {
    import: { name: 'ECDSA', namedCurve: 'P-384' },
    sign: { name: 'ECDSA', hash: 'SHA-384' },
  },
} as const;

/** A Web Crypto signing key and the `sign` parameters, as `crypto.subtle` types them. */
type SigningKey = Parameters<typeof crypto.subtle.sign>[1];
type SignParameters = Parameters<typeof crypto.subtle.sign>[0];

/** Base64url without padding. */
export function base64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** `count` random bytes as base64url. */
export function randomToken(count = 32): string {
  return base64Url(crypto.getRandomValues(new Uint8Array(count)));
}

/**
 * A client assertion (RFC 7523 §2.2, `private_key_jwt`) for `clientId`, for the audience
 * `audience`, valid 60 s, signed with Web Crypto (no JOSE library).
 *
 * @throws {Error} when the key cannot be imported for the algorithm.
 */
export async function signClientAssertion(
  key: McpPrivateKeyJwt,
  clientId: string,
  audience: string,
): Promise<string> {
  const parameters = algorithms[key.algorithm];
  const cryptoKey =
    typeof key.privateKey === 'string'
      ? await crypto.subtle.importKey('pkcs8', pemBytes(key.privateKey), parameters.import, false, [
          'sign',
        ])
      : await crypto.subtle.importKey(
          'jwk',
          { ...key.privateKey } as never,
          parameters.import,
          false,
          ['sign'],
        );
  const now = Math.floor(Date.now() / 1000);
  const header = {
    alg: key.algorithm,
    typ: 'JWT',
    ...(key.keyId === undefined ? {} : { kid: key.keyId }),
  };
  const claims = {
    iss: clientId,
    sub: clientId,
    aud: audience,
    jti: randomToken(16),
    iat: now,
    exp: now + 60,
  };
  return signJws(header, claims, cryptoKey, parameters.sign);
}

/** A compact JWS of `header` and `claims`, signed with Web Crypto. */
export async function signJws(
  header: Readonly<Record<string, unknown>>,
  claims: Readonly<Record<string, unknown>>,
  key: SigningKey,
  parameters: SignParameters,
): Promise<string> {
  const encoder = new TextEncoder();
  const input = `${base64Url(encoder.encode(JSON.stringify(header)))}.${base64Url(encoder.encode(JSON.stringify(claims)))}`;
  const signature = await crypto.subtle.sign(parameters, key, encoder.encode(input));
  return `${input}.${base64Url(new Uint8Array(signature))}`;
}

function pemBytes(pem: string): ArrayBuffer {
  const body = pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  const binary = atob(body);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes.buffer;
}
