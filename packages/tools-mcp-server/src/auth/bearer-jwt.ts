import type { JsonValue } from '@agcore/tools-core';
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from 'jose';
import type { McpCaller } from '../types.js';

/** Options of `verifyBearerJwt`. */
export interface VerifyBearerJwtOptions {
  /** The JWKS URL of the token issuer (e.g. `https://issuer.example/.well-known/jwks.json`). */
  readonly jwksUrl: string | URL;
  /** The `iss` the token must carry, when given. */
  readonly issuer?: string | readonly string[];
  /** The `aud` the token must carry (this server's resource identifier), when given. */
  readonly audience?: string | readonly string[];
  /** Accepted signing algorithms; default `jose`'s (those of the JWKS keys). */
  readonly algorithms?: readonly string[];
}

/**
 * An `authenticate` hook for `serveTools`: verifies `Authorization: Bearer <JWT>` against the
 * keys of a JWKS URL (fetched and cached by `jose`) and names the caller by its `sub` claim,
 * with `scope` (space-separated) as its scopes and every claim in `claims`. A missing, malformed,
 * expired or wrongly signed token, or one without `sub`, answers `undefined` (the server then
 * answers `401`).
 */
export function verifyBearerJwt(
  options: VerifyBearerJwtOptions,
): (request: Request) => Promise<McpCaller | undefined> {
  const keys = createRemoteJWKSet(new URL(options.jwksUrl));
  return async (request) => {
    const header = request.headers.get('authorization');
    const match = header === null ? null : /^Bearer\s+([A-Za-z0-9._~+/-]+=*)$/i.exec(header);
    const token = match?.[1];
    if (token === undefined) return undefined;
    try {
      const { payload } = await jwtVerify(token, keys, {
        ...(options.issuer === undefined ? {} : { issuer: [options.issuer].flat() }),
        ...(options.audience === undefined ? {} : { audience: [options.audience].flat() }),
        ...(options.algorithms === undefined ? {} : { algorithms: [...options.algorithms] }),
      });
      return callerOfPayload(payload);
    } catch {
      return undefined;
    }
  };
}

function callerOfPayload(payload: JWTPayload): McpCaller | undefined {
  if (typeof payload.sub !== 'string' || payload.sub.length === 0) return undefined;
  const scope = payload.scope;
  const scopes =
    typeof scope === 'string' ? scope.split(' ').filter((item) => item.length > 0) : [];
  return {
    id: payload.sub,
    scopes,
    claims: JSON.parse(JSON.stringify(payload)) as Record<string, JsonValue>,
  };
}
