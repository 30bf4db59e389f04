/*
 * The `uri` and `uri-reference` formats: RFC 3986 §3 and §4.1, component by component, each
 * component one linear regular expression (ASCII only: an IRI with other characters is not a
 * URI). IPv6 literals are checked as the `ipv6` format checks them.
 */

const unreserved = String.raw`A-Za-z0-9\-._~`;
const subDelims = `!$&'()*+,;=`;
const pct = `%[0-9A-Fa-f]{2}`;
const pchar = `(?:[${unreserved}${subDelims}:@]|${pct})`;

const scheme = /^[A-Za-z][A-Za-z0-9+.-]*$/;
const queryOrFragment = new RegExp(`^(?:${pchar}|[/?])*$`);
const userinfo = new RegExp(`^(?:[${unreserved}${subDelims}:]|${pct})*$`);
const regName = new RegExp(`^(?:[${unreserved}${subDelims}]|${pct})*$`);
const ipvFuture = new RegExp(String.raw`^v[0-9A-Fa-f]+\.[${unreserved}${subDelims}:]+$`, 'i');
const port = /^[0-9]*$/;
/** `path-abempty`: `/`-led segments, each any number of `pchar`. */
const pathAbempty = new RegExp(`^(?:/${pchar}*)*$`);
/** A path of `pchar` segments (rootless, or absolute when it starts with `/` but not `//`). */
const pathSegments = new RegExp(`^${pchar}*(?:/${pchar}*)*$`);

/** A URI's or reference's parts, split at the first `#`, then the first `?`. */
interface Parts {
  readonly beforeQuery: string;
  readonly query: string | undefined;
  readonly fragment: string | undefined;
}

function partsOf(text: string): Parts {
  const hash = text.indexOf('#');
  const fragment = hash < 0 ? undefined : text.slice(hash + 1);
  const rest = hash < 0 ? text : text.slice(0, hash);
  const question = rest.indexOf('?');
  return {
    beforeQuery: question < 0 ? rest : rest.slice(0, question),
    query: question < 0 ? undefined : rest.slice(question + 1),
    fragment,
  };
}

/** RFC 3986 `authority`: `[userinfo@]host[:port]`. */
function isAuthority(authority: string): boolean {
  const at = authority.lastIndexOf('@');
  if (at >= 0 && !userinfo.test(authority.slice(0, at))) return false;
  const hostPort = authority.slice(at + 1);
  let host = hostPort;
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    if (close < 0) return false;
    host = hostPort.slice(0, close + 1);
  } else {
    const colon = hostPort.lastIndexOf(':');
    if (colon >= 0) host = hostPort.slice(0, colon);
  }
  const rest = hostPort.slice(host.length);
  if (rest !== '' && !(rest.startsWith(':') && port.test(rest.slice(1)))) return false;
  if (!host.startsWith('[')) return regName.test(host);
  const literal = host.slice(1, -1);
  return ipvFuture.test(literal) || isIpv6(literal);
}

/** An IPv6 address (RFC 4291 §2.2, an IPv4 tail allowed), as WHATWG URL's parser reads one. */
export function isIpv6(text: string): boolean {
  if (text.length > 45 || !/^[0-9a-f:.]+$/i.test(text)) return false;
  try {
    return new URL(`http://[${text}]/`).hostname.length > 2;
  } catch {
    return false;
  }
}

/**
 * `hier-part` / `relative-part` (what comes before the query): `//authority path-abempty`,
 * else a path; in a relative reference the first segment of a path may hold no `:`.
 */
function isHierPart(part: string, relative: boolean): boolean {
  if (part.startsWith('//')) {
    const slash = part.indexOf('/', 2);
    const authority = slash < 0 ? part.slice(2) : part.slice(2, slash);
    return isAuthority(authority) && (slash < 0 || pathAbempty.test(part.slice(slash)));
  }
  if (relative) {
    const slash = part.indexOf('/');
    const first = slash < 0 ? part : part.slice(0, slash);
    if (first.includes(':')) return false;
  }
  return pathSegments.test(part);
}

function isTail(parts: Parts): boolean {
  return (
    (parts.query === undefined || queryOrFragment.test(parts.query)) &&
    (parts.fragment === undefined || queryOrFragment.test(parts.fragment))
  );
}

/** RFC 3986 `URI`: `scheme ":" hier-part ["?" query] ["#" fragment]`. */
export function isUri(text: string): boolean {
  const parts = partsOf(text);
  const colon = parts.beforeQuery.indexOf(':');
  if (colon < 1 || !scheme.test(parts.beforeQuery.slice(0, colon))) return false;
  return isHierPart(parts.beforeQuery.slice(colon + 1), false) && isTail(parts);
}

/** RFC 3986 `URI-reference`: a `URI` or a `relative-ref`. */
export function isUriReference(text: string): boolean {
  if (isUri(text)) return true;
  const parts = partsOf(text);
  return isHierPart(parts.beforeQuery, true) && isTail(parts);
}
