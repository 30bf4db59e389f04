/**
 * The string formats the compiler checks (others are annotations, as the JSON Schema spec
 * allows). `date-time`, `date`, `time`, `duration`, `email`, `uuid`, `ipv4` and `ipv6` follow
 * the JSON Schema Test Suite (draft 2020-12, `optional/format`) case for case, and so do
 * `hostname` (RFC 1123, A-labels decoded and checked: `hostname.ts`), `uri` and `uri-reference`
 * (RFC 3986: `uri.ts`). Every check is linear in the string's length: the regular expressions
 * here have no nested or overlapping repetition, and `\d` is ASCII only (no `u` flag).
 */
import { isHostname } from './hostname.js';
import { isIpv6, isUri, isUriReference } from './uri.js';

const date = /^(\d{4})-(\d{2})-(\d{2})$/;
/** RFC 3339 `partial-time time-offset`: the offset is `Z` or `±hh:mm`, never `±hh`. */
const time = /^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:(z)|([+-])(\d{2}):(\d{2}))$/i;
const daysInMonth = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isDate(text: string): boolean {
  const match = date.exec(text);
  if (match === null) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && !leap ? 28 : (daysInMonth[month - 1] as number));
}

/**
 * RFC 3339 `full-time`. A leap second (`:60`) is valid only at 23:59 UTC, the time less its
 * offset (`01:29:60+01:30` is one; `23:59:60+01:00` is not).
 */
function isTime(text: string): boolean {
  const match = time.exec(text);
  if (match === null) return false;
  const hour = Number(match[1]);
  const minute = Number(match[2]);
  const second = Number(match[3]);
  const offsetHour = match[4] === undefined ? Number(match[6]) : 0;
  const offsetMinute = match[4] === undefined ? Number(match[7]) : 0;
  if (hour > 23 || minute > 59 || second > 60 || offsetHour > 23 || offsetMinute > 59) {
    return false;
  }
  if (second < 60) return true;
  const sign = match[5] === '-' ? -1 : 1;
  const utc = hour * 60 + minute - sign * (offsetHour * 60 + offsetMinute);
  return ((utc % 1440) + 1440) % 1440 === 23 * 60 + 59;
}

function isDateTime(text: string): boolean {
  const separator = text.charAt(10);
  return (
    (separator === 'T' || separator === 't' || separator === ' ') &&
    isDate(text.slice(0, 10)) &&
    isTime(text.slice(11))
  );
}

/**
 * RFC 3339 Appendix A `duration`: `P` then a date (`Y` [`M` [`D`]], `M` [`D`] or `D`) with an
 * optional time, or a time alone (`T` then `H` [`M` [`S`]], `M` [`S`] or `S`), or weeks alone;
 * integers only. Each alternative starts with a different letter or is a run of digits
 * followed by one letter, so a match is linear.
 */
const durationTime = String.raw`T(?:\d+H(?:\d+M(?:\d+S)?)?|\d+M(?:\d+S)?|\d+S)`;
const durationDate = String.raw`(?:\d+D|\d+M(?:\d+D)?|\d+Y(?:\d+M(?:\d+D)?)?)`;
const duration = new RegExp(
  String.raw`^P(?:${durationDate}(?:${durationTime})?|${durationTime}|\d+W)$`,
);

const ipv4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** RFC 5321 `Quoted-string`: printable ASCII, with `"` and `\` escaped by `\`. */
const quotedLocalPart = /^"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"$/;
const dotAtomLocalPart = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/i;

/** RFC 5321 `address-literal` in brackets: an IPv4 address, or `IPv6:` and an IPv6 address. */
function isAddressLiteral(text: string): boolean {
  const inside = text.slice(1, -1);
  if (/^ipv6:/i.test(inside)) return isIpv6(inside.slice(5));
  return ipv4.test(inside);
}

/** RFC 5321 `Mailbox`: a dot-atom or quoted local part, `@`, a host name or an address literal. */
function isEmail(text: string): boolean {
  const at = text.lastIndexOf('@');
  if (at < 1 || at > 64 || text.length > 320) return false;
  const local = text.slice(0, at);
  const domain = text.slice(at + 1);
  if (!dotAtomLocalPart.test(local) && !quotedLocalPart.test(local)) return false;
  return domain.startsWith('[') && domain.endsWith(']')
    ? isAddressLiteral(domain)
    : isHostname(domain);
}

function isRegex(text: string): boolean {
  try {
    new RegExp(text, 'u');
    return true;
  } catch {
    return false;
  }
}

/** RFC 9562: 8-4-4-4-12 hex digits, nothing around them (no `urn:uuid:`, no braces). */
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The checks, by format name. */
export const formats: ReadonlyMap<string, (text: string) => boolean> = new Map([
  ['date', isDate],
  ['time', isTime],
  ['date-time', isDateTime],
  ['duration', (text: string) => duration.test(text)],
  ['hostname', isHostname],
  ['ipv4', (text: string) => ipv4.test(text)],
  ['ipv6', isIpv6],
  ['email', isEmail],
  ['uri', isUri],
  ['url', isUri],
  ['uri-reference', isUriReference],
  ['uuid', (text: string) => uuid.test(text)],
  ['regex', isRegex],
  ['json-pointer', (text: string) => /^(?:\/(?:[^~/]|~[01])*)*$/.test(text)],
  [
    'relative-json-pointer',
    (text: string) => /^(?:0|[1-9]\d*)(?:#|(?:\/(?:[^~/]|~[01])*)*)$/.test(text),
  ],
]);
