/*
 * Unicode data the A-label checks of `hostname` need and JavaScript's regular expressions do
 * not offer: Joining_Type (for the ZERO WIDTH NON-JOINER rule of RFC 5892 Appendix A.1) and
 * Canonical_Combining_Class Virama (A.1 and A.2). Generated from the Unicode Character
 * Database (DerivedJoiningType as Python's `idna` 3.13 ships it; Virama from Unicode 14.0's
 * UnicodeData), as ranges of hex code points.
 */

/** A sorted list of inclusive code point ranges, flattened: `[from0, to0, from1, to1, ...]`. */
export type CodePointRanges = readonly number[];

function ranges(text: string): CodePointRanges {
  const flat: number[] = [];
  for (const part of text.split(',')) {
    const [from = '', to = from] = part.split('-');
    flat.push(Number.parseInt(from, 16), Number.parseInt(to, 16));
  }
  return flat;
}

/** Whether `codePoint` is in `table` (binary search). */
export function inRanges(table: CodePointRanges, codePoint: number): boolean {
  let low = 0;
  let high = table.length / 2 - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (codePoint < (table[middle * 2] as number)) high = middle - 1;
    else if (codePoint > (table[middle * 2 + 1] as number)) low = middle + 1;
    else return true;
  }
  return false;
}

/** Joining_Type D */
export const dualJoining = ranges(
  [
    '620,626,628,62a-62e,633-63f,641-647,649-64a,66e-66f,678-687,69a-6bf,6c1-6c2,6cc,6ce,6d0-6d',
    '1,6fa-6fc,6ff,712-714,71a-71d,71f-727,729,72b,72d-72e,74e-758,75c-76a,76d-770,772,775-777,',
    '77a-77f,7ca-7ea,841-845,848,84a-853,855,860,862-865,868,886,889-88d,88f,8a0-8a9,8af-8b0,8b',
    '3-8b8,8ba-8c8,1807,1820-1878,1887-18a8,18aa,a840-a871,10ac0-10ac4,10ad3-10ad6,10ad8-10adc,',
    '10ade-10ae0,10aeb-10aee,10b80,10b82,10b86-10b88,10b8a-10b8b,10b8d,10b90,10bad-10bae,10d01-',
    '10d21,10d23,10ec3-10ec4,10ec6-10ec7,10f30-10f32,10f34-10f44,10f51-10f53,10f70-10f73,10f76-',
    '10f81,10fb0,10fb2-10fb3,10fb8,10fbb-10fbc,10fbe-10fbf,10fc1,10fc4,10fca,1e900-1e943',
  ].join(''),
);

/** Joining_Type R */
export const rightJoining = ranges(
  [
    '622-625,627,629,62f-632,648,671-673,675-677,688-699,6c0,6c3-6cb,6cd,6cf,6d2-6d3,6d5,6ee-6e',
    'f,710,715-719,71e,728,72a,72c,72f,74d,759-75b,76b-76c,771,773-774,778-779,840,846-847,849,',
    '854,856-858,867,869-86a,870-882,88e,8aa-8ac,8ae,8b1-8b2,8b9,10ac5,10ac7,10ac9-10aca,10ace-',
    '10ad2,10add,10ae1,10ae4,10aef,10b81,10b83-10b85,10b89,10b8c,10b8e-10b8f,10b91,10ba9-10bac,',
    '10d22,10ec2,10f33,10f54,10f74-10f75,10fb4-10fb6,10fb9-10fba,10fbd,10fc2-10fc3,10fc9',
  ].join(''),
);

/** Joining_Type L */
export const leftJoining = ranges('a872,10acd,10ad7,10d00,10fcb');

/** Canonical_Combining_Class 9 (Virama) */
export const viramas = ranges(
  [
    '94d,9cd,a4d,acd,b4d,bcd,c4d,ccd,d3b-d3c,d4d,dca,e3a,eba,f84,1039-103a,1714-1715,1734,17d2,',
    '1a60,1b44,1baa-1bab,1bf2-1bf3,2d7f,a806,a82c,a8c4,a953,a9c0,aaf6,abed,10a3f,11046,11070,11',
    '07f,110b9,11133-11134,111c0,11235,112ea,1134d,11442,114c2,115bf,1163f,116b6,1172b,11839,11',
    '93d-1193e,119e0,11a34,11a47,11a99,11c3f,11d44-11d45,11d97',
  ].join(''),
);
