// `pnpm --filter @agcore/tools-core bench`: client CPU time (`process.cpuUsage`) of the
// portable SHA-256 / HMAC-SHA-256 (`@noble/hashes`, what browsers run) against Node's own
// `node:crypto` (the fast path), on a 1 KB and a 125 KB string (the run seal of a paused run
// with a 200-message history hashes about that much). 25 alternating A/B pairs after a warm-up;
// the median of the per-pair ratios, with the 2.5th and 97.5th percentiles of them.
import { createHash, createHmac } from 'node:crypto';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

// What src/sha256.ts runs where the host has no `node:crypto`.
const encoder = new TextEncoder();
const portableSha256Hex = (data) => bytesToHex(sha256(encoder.encode(data)));
const portableHmacSha256Hex = (secret, data) =>
  bytesToHex(hmac(sha256, encoder.encode(secret), encoder.encode(data)));

const key = 'a state secret of at least thirty-two bytes';
const sizes = { '1 KB': 1_000, '125 KB': 125_000 };
const text = (length) =>
  'The quick brown fox jumps over the lazy dog, and the café serves 中文 too. '
    .repeat(Math.ceil(length / 72))
    .slice(0, length);
const contenders = {
  native: {
    sha256: (data) => createHash('sha256').update(data).digest('hex'),
    hmac: (data) => createHmac('sha256', key).update(data).digest('hex'),
  },
  noble: { sha256: portableSha256Hex, hmac: (data) => portableHmacSha256Hex(key, data) },
};

/** CPU microseconds of `calls` calls of `body`. */
function cpu(body, data, calls) {
  const start = process.cpuUsage();
  for (let call = 0; call < calls; call++) body(data);
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

const sorted = (values) => [...values].sort((a, b) => a - b);
const at = (values, share) =>
  sorted(values)[Math.min(values.length - 1, Math.floor(values.length * share))];

for (const [label, length] of Object.entries(sizes)) {
  const data = text(length);
  const calls = Math.max(20, Math.round(4_000_000 / length));
  for (const operation of ['sha256', 'hmac']) {
    const { native, noble } = contenders;
    for (let warm = 0; warm < 3; warm++) {
      cpu(native[operation], data, calls);
      cpu(noble[operation], data, calls);
    }
    const ratios = [];
    const perCall = { native: [], noble: [] };
    for (let pair = 0; pair < 25; pair++) {
      const order = pair % 2 === 0 ? ['native', 'noble'] : ['noble', 'native'];
      const took = {};
      for (const name of order) took[name] = cpu(contenders[name][operation], data, calls);
      ratios.push(took.noble / took.native);
      perCall.native.push(took.native / calls);
      perCall.noble.push(took.noble / calls);
    }
    process.stdout.write(
      `${operation} of ${label}: native ${at(perCall.native, 0.5).toFixed(1)} µs, noble ${at(perCall.noble, 0.5).toFixed(1)} µs CPU a call; noble/native ${at(ratios, 0.5).toFixed(2)}x (${at(ratios, 0.025).toFixed(2)}–${at(ratios, 0.975).toFixed(2)})\n`,
    );
  }
}
