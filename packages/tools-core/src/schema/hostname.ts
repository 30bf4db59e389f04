/*
 * The `hostname` format: RFC 1123 labels of letters, digits and inner hyphens, at most 63
 * characters each and 253 in all; a label starting `xn--` is an A-label, decoded (RFC 3492
 * Punycode) and its U-label held to the rules of RFC 5891 §4.2 and RFC 5892 (IDNA2008). Not
 * checked: the Bidi rule (RFC 5893), and whether the A-label is the canonical encoding of its
 * U-label (it is not encoded again to compare).
 */
import { dualJoining, inRanges, leftJoining, rightJoining, viramas } from './idna-tables.js';

const label = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

/** Whether `text` is a host name (RFC 1123), its A-labels valid (RFC 5891, 5892). */
export function isHostname(text: string): boolean {
  if (text.length === 0 || text.length > 253) return false;
  return text.split('.').every((part) => label.test(part) && isAceOk(part));
}

/** An LDH label is fine; one starting `xn--` must decode to a valid U-label. */
function isAceOk(part: string): boolean {
  if (!/^xn--/i.test(part)) return true;
  // DNS names are case-insensitive: `XN--BCHER-KVA` is `xn--bcher-kva`.
  const decoded = decodePunycode(part.slice(4).toLowerCase());
  return decoded !== undefined && isULabel(decoded);
}

const base = 36;
const tMin = 1;
const tMax = 26;
const skew = 38;
const damp = 700;

function digitOf(unit: number): number {
  if (unit >= 0x30 && unit <= 0x39) return unit - 22; // 0-9: 26-35
  if (unit >= 0x41 && unit <= 0x5a) return unit - 0x41; // A-Z: 0-25
  if (unit >= 0x61 && unit <= 0x7a) return unit - 0x61; // a-z: 0-25
  return base;
}

function adapt(delta: number, points: number, first: boolean): number {
  let scaled = first ? Math.floor(delta / damp) : delta >> 1;
  scaled += Math.floor(scaled / points);
  let k = 0;
  while (scaled > ((base - tMin) * tMax) >> 1) {
    scaled = Math.floor(scaled / (base - tMin));
    k += base;
  }
  return k + Math.floor(((base - tMin + 1) * scaled) / (scaled + skew));
}

/**
 * RFC 3492 §6.2: the code points that `input` (the part after `xn--`) encodes, or `undefined`
 * when it is not valid Punycode (a non-basic character, a digit run cut short, an overflow).
 */
export function decodePunycode(input: string): number[] | undefined {
  const delimiter = input.lastIndexOf('-');
  const output: number[] = [];
  for (let index = 0; index < Math.max(0, delimiter); index++) {
    const unit = input.charCodeAt(index);
    if (unit >= 0x80) return undefined;
    output.push(unit);
  }
  let n = 0x80;
  let i = 0;
  let bias = 72;
  for (let at = delimiter < 0 ? 0 : delimiter + 1; at < input.length; ) {
    const before = i;
    let weight = 1;
    for (let k = base; ; k += base) {
      if (at >= input.length) return undefined;
      const digit = digitOf(input.charCodeAt(at++));
      if (digit >= base) return undefined;
      i += digit * weight;
      if (i > 0x7fffffff) return undefined;
      const t = k <= bias ? tMin : k >= bias + tMax ? tMax : k - bias;
      if (digit < t) break;
      weight *= base - t;
      if (weight > 0x7fffffff) return undefined;
    }
    bias = adapt(i - before, output.length + 1, before === 0);
    n += Math.floor(i / (output.length + 1));
    i %= output.length + 1;
    if (n > 0x10ffff) return undefined;
    output.splice(i, 0, n);
    i++;
  }
  return output;
}

/** RFC 5892 §2.6 Exceptions (F): PVALID, CONTEXTO and DISALLOWED code points. */
const exceptionsValid = new Set([0xdf, 0x3c2, 0x6fd, 0x6fe, 0xf0b, 0x3007]);
const exceptionsContext = new Set([0xb7, 0x375, 0x5f3, 0x5f4, 0x30fb]);
const exceptionsDisallowed = new Set([
  0x640, 0x7fa, 0x302e, 0x302f, 0x3031, 0x3032, 0x3033, 0x3034, 0x3035, 0x303b,
]);

const unassigned = /^\p{Cn}$/u;
const letterDigit = /^[\p{Ll}\p{Lu}\p{Lo}\p{Nd}\p{Lm}\p{Mn}\p{Mc}]$/u;
const ignorable = /^[\p{Default_Ignorable_Code_Point}\p{White_Space}\p{Noncharacter_Code_Point}]$/u;
const mark = /^\p{M}$/u;

/** RFC 5892 §2.7–2.9 blocks: symbols' combining marks, musical notation, old Hangul jamo. */
function inDisallowedBlock(point: number): boolean {
  return (
    (point >= 0x20d0 && point <= 0x20ff) ||
    (point >= 0x1d100 && point <= 0x1d24f) ||
    (point >= 0x1100 && point <= 0x11ff) ||
    (point >= 0xa960 && point <= 0xa97f) ||
    (point >= 0xd7b0 && point <= 0xd7ff)
  );
}

type Property = 'PVALID' | 'CONTEXTJ' | 'CONTEXTO' | 'DISALLOWED';

/**
 * RFC 5892 §3 derived property of `point`, computed from the platform's Unicode data (Unstable
 * as "NFKC, then lower case, changes it", for NFKC_Casefold).
 */
function propertyOf(point: number): Property {
  if (exceptionsValid.has(point)) return 'PVALID';
  if (exceptionsContext.has(point) || (point >= 0x660 && point <= 0x669)) return 'CONTEXTO';
  if (point >= 0x6f0 && point <= 0x6f9) return 'CONTEXTO';
  if (exceptionsDisallowed.has(point)) return 'DISALLOWED';
  const char = String.fromCodePoint(point);
  if (unassigned.test(char)) return 'DISALLOWED';
  if (point === 0x2d || (point >= 0x30 && point <= 0x39) || (point >= 0x61 && point <= 0x7a))
    return 'PVALID';
  if (point === 0x200c || point === 0x200d) return 'CONTEXTJ';
  if (char.normalize('NFKC').toLowerCase() !== char) return 'DISALLOWED';
  if (ignorable.test(char) || inDisallowedBlock(point)) return 'DISALLOWED';
  return letterDigit.test(char) ? 'PVALID' : 'DISALLOWED';
}

/** RFC 5891 §4.2: NFC, no `--` in the 3rd and 4th places, no leading mark, each code point allowed. */
function isULabel(points: readonly number[]): boolean {
  const text = String.fromCodePoint(...points);
  if (points.length === 0 || points.every((point) => point < 0x80)) return false;
  if (text.normalize('NFC') !== text) return false;
  if (points[2] === 0x2d && points[3] === 0x2d) return false;
  if (points[0] === 0x2d || points.at(-1) === 0x2d) return false;
  if (mark.test(String.fromCodePoint(points[0] as number))) return false;
  return points.every((point, index) => {
    const property = propertyOf(point);
    if (property === 'PVALID') return true;
    if (property === 'CONTEXTJ') return contextJ(points, index);
    if (property === 'CONTEXTO') return contextO(points, index);
    return false;
  });
}

const transparent = /^[\p{Mn}\p{Me}\p{Cf}]$/u;

/** Joining_Type: T approximated as general category Mn, Me or Cf (as Unicode defaults it). */
function joiningType(point: number | undefined): 'D' | 'L' | 'R' | 'T' | 'U' {
  if (point === undefined) return 'U';
  if (inRanges(dualJoining, point)) return 'D';
  if (inRanges(rightJoining, point)) return 'R';
  if (inRanges(leftJoining, point)) return 'L';
  return transparent.test(String.fromCodePoint(point)) ? 'T' : 'U';
}

/** RFC 5892 Appendix A.1 (ZERO WIDTH NON-JOINER) and A.2 (ZERO WIDTH JOINER). */
function contextJ(points: readonly number[], index: number): boolean {
  const before = points[index - 1];
  if (before !== undefined && inRanges(viramas, before)) return true;
  if (points[index] === 0x200d) return false;
  let left = index - 1;
  while (joiningType(points[left]) === 'T') left--;
  let right = index + 1;
  while (joiningType(points[right]) === 'T') right++;
  const leftType = joiningType(points[left]);
  const rightType = joiningType(points[right]);
  return (leftType === 'L' || leftType === 'D') && (rightType === 'R' || rightType === 'D');
}

const greek = /^\p{Script=Greek}$/u;
const hebrew = /^\p{Script=Hebrew}$/u;
const kana = /^[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]$/u;

function scriptIs(script: RegExp, point: number | undefined): boolean {
  return point !== undefined && script.test(String.fromCodePoint(point));
}

/** RFC 5892 Appendix A.3–A.9: the CONTEXTO rules. */
function contextO(points: readonly number[], index: number): boolean {
  const point = points[index] as number;
  const before = points[index - 1];
  const after = points[index + 1];
  if (point === 0xb7) return before === 0x6c && after === 0x6c;
  if (point === 0x375) return scriptIs(greek, after);
  if (point === 0x5f3 || point === 0x5f4) return scriptIs(hebrew, before);
  if (point === 0x30fb) return points.some((other) => scriptIs(kana, other));
  if (point >= 0x660 && point <= 0x669) return !points.some((p) => p >= 0x6f0 && p <= 0x6f9);
  return !points.some((p) => p >= 0x660 && p <= 0x669);
}
