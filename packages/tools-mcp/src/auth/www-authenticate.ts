/** The parameters of a `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3, RFC 9728 §5.1). */
export interface BearerChallenge {
  readonly error?: string;
  readonly errorDescription?: string;
  /** Space separated scopes the server asks for. */
  readonly scope?: string;
  /** The URL of the protected resource metadata. */
  readonly resourceMetadata?: string;
}

/**
 * Reads the Bearer challenge of a `WWW-Authenticate` header, or its DPoP challenge (RFC 9449
 * §7.1, same parameters) when it has no Bearer one (other schemes are skipped; quoted and bare
 * values). Returns an empty challenge for a missing or unreadable header. Never throws.
 */
export function parseBearerChallenge(header: string | null): BearerChallenge {
  if (header === null) return {};
  return readChallenge(header, 'bearer') ?? readChallenge(header, 'dpop') ?? {};
}

/** The DPoP challenge of a `WWW-Authenticate` header only (its `error`: `use_dpop_nonce`?). */
export function parseDpopChallenge(header: string | null): BearerChallenge {
  return header === null ? {} : (readChallenge(header, 'dpop') ?? {});
}

function readChallenge(header: string, scheme: 'bearer' | 'dpop'): BearerChallenge | undefined {
  const start = header.search(new RegExp(`(^|[\\s,])${scheme}(\\s|$)`, 'i'));
  if (start < 0) return undefined;
  const rest = header.slice(start).replace(new RegExp(`^[\\s,]*${scheme}`, 'i'), '');
  const params: Record<string, string> = Object.create(null);
  const pattern = /\s*,?\s*([A-Za-z0-9_.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]*))/y;
  for (let match = pattern.exec(rest); match !== null; match = pattern.exec(rest)) {
    const key = (match[1] as string).toLowerCase();
    // A second scheme starts where a bare word is not followed by '='.
    params[key] ??= match[2] === undefined ? (match[3] ?? '') : match[2].replace(/\\(.)/g, '$1');
  }
  return {
    ...(params.error === undefined ? {} : { error: params.error }),
    ...(params.error_description === undefined
      ? {}
      : { errorDescription: params.error_description }),
    ...(params.scope === undefined ? {} : { scope: params.scope }),
    ...(params.resource_metadata === undefined
      ? {}
      : { resourceMetadata: params.resource_metadata }),
  };
}
