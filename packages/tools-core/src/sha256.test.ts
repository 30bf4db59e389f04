import { createHash, createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  hmacSha256Hex,
  portableHmacSha256Hex,
  portableSha256Hex,
  sha256Hex,
  timingSafeHexEqual,
} from './sha256.js';

// Each implementation: the exported one (Node's own crypto here, found at run time) and the
// portable one (`@noble/hashes`) that browsers run.
const implementations = [
  { name: 'sha256Hex / hmacSha256Hex', sha256: sha256Hex, hmac: hmacSha256Hex },
  {
    name: 'the portable code (@noble/hashes)',
    sha256: portableSha256Hex,
    hmac: portableHmacSha256Hex,
  },
] as const;

const bytes = (byte: number, count: number): Uint8Array => new Uint8Array(count).fill(byte);
const nodeSha256 = (data: string | Uint8Array): string =>
  createHash('sha256').update(data).digest('hex');
const nodeHmac = (key: string | Uint8Array, data: string | Uint8Array): string =>
  createHmac('sha256', key).update(data).digest('hex');

describe.each(implementations)('SHA-256: $name', ({ sha256: sha256Hex }) => {
  it('gives the NIST (FIPS 180-4 examples) digests', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
    expect(sha256Hex('a'.repeat(1_000_000))).toBe(
      'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
    );
  });

  it('agrees with node:crypto at every length around the block and padding edges', () => {
    for (let length = 0; length <= 200; length++) {
      const message = Uint8Array.from({ length }, (_, index) => (index * 31 + length) & 0xff);
      expect(sha256Hex(message), `length ${length}`).toBe(nodeSha256(message));
    }
  });

  it('agrees with node:crypto on random bytes and unicode text, lone surrogates included (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 600 }),
          // UTF-16 units from the whole range (lone surrogates and pairs included) and whole
          // code points: fast-check's `unit: 'binary'` strings took 5.7 s for 300 here.
          fc
            .array(
              fc.oneof(
                fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)),
                fc.integer({ min: 0, max: 0x10ffff }).map((point) => String.fromCodePoint(point)),
              ),
              { maxLength: 300 },
            )
            .map((parts) => parts.join('')),
        ),
        (data) => {
          expect(sha256Hex(data)).toBe(
            typeof data === 'string' ? nodeSha256(Buffer.from(data, 'utf8')) : nodeSha256(data),
          );
        },
      ),
      { seed: 20_261_201, numRuns: 300 },
    );
    for (const text of ['\uD800', 'a\uDC00b', '\uDBFF\uDFFF\uD83D', 'é😀中'])
      expect(sha256Hex(text)).toBe(nodeSha256(Buffer.from(text, 'utf8')));
  });
});

describe.each(implementations)('HMAC-SHA-256: $name', ({ hmac: hmacSha256Hex }) => {
  it('gives the RFC 4231 test case results', () => {
    const key25 = Uint8Array.from({ length: 25 }, (_, index) => index + 1);
    const cases: [string | Uint8Array, string | Uint8Array, string][] = [
      [
        bytes(0x0b, 20),
        'Hi There',
        'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
      ],
      [
        'Jefe',
        'what do ya want for nothing?',
        '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
      ],
      [
        bytes(0xaa, 20),
        bytes(0xdd, 50),
        '773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe',
      ],
      [key25, bytes(0xcd, 50), '82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b'],
      [
        bytes(0xaa, 131),
        'Test Using Larger Than Block-Size Key - Hash Key First',
        '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
      ],
      [
        bytes(0xaa, 131),
        'This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.',
        '9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2',
      ],
    ];
    for (const [key, data, mac] of cases) expect(hmacSha256Hex(key, data)).toBe(mac);
    // Test case 5 is truncated to 128 bits.
    expect(hmacSha256Hex(bytes(0x0c, 20), 'Test With Truncation').slice(0, 32)).toBe(
      'a3b6167473100ee06e0c796c2955552b',
    );
  });

  it('agrees with node:crypto for random keys (longer than a block too) and data (property)', () => {
    const keyOrText = fc.oneof(
      fc.uint8Array({ maxLength: 200 }),
      fc.string({ unit: 'grapheme', maxLength: 100 }),
    );
    fc.assert(
      fc.property(keyOrText, keyOrText, (key, data) => {
        expect(hmacSha256Hex(key, data)).toBe(nodeHmac(key, data));
      }),
      { seed: 20_261_202, numRuns: 300 },
    );
  });
});

describe('timingSafeHexEqual', () => {
  const mac = hmacSha256Hex('secret', 'state');

  it('matches the same bytes in either case, and nothing else', () => {
    expect(timingSafeHexEqual(mac, mac)).toBe(true);
    expect(timingSafeHexEqual(mac.toUpperCase(), mac)).toBe(true);
    expect(timingSafeHexEqual(`${mac.slice(0, 63)}${mac[63] === '0' ? '1' : '0'}`, mac)).toBe(
      false,
    );
    expect(timingSafeHexEqual(mac.slice(1), mac)).toBe(false);
    expect(timingSafeHexEqual(`${mac}0`, mac)).toBe(false);
    expect(timingSafeHexEqual(`${mac.slice(0, 63)}g`, mac)).toBe(false);
    expect(timingSafeHexEqual(`${mac.slice(0, 63)}@`, mac.replace(/.$/, '`'))).toBe(false);
    expect(timingSafeHexEqual('', '')).toBe(true);
  });

  it('says equal exactly when the bytes are equal (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.uint8Array({ maxLength: 40 }), (a, b) => {
        const hexA = Buffer.from(a).toString('hex');
        const hexB = Buffer.from(b).toString('hex');
        expect(timingSafeHexEqual(hexA, hexB)).toBe(Buffer.from(a).equals(Buffer.from(b)));
      }),
      { seed: 20_261_203, numRuns: 200 },
    );
  });
});
