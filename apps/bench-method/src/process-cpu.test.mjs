import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { alternate, sourcesOf } from './alternate.mjs';
import { processCpuMs, processSources } from './process-cpu.mjs';

const linux = process.platform === 'linux';

describe('sourcesOf and per-side sources', () => {
  it('hands each side its own sources, or the one shared', () => {
    const shared = { wallMs: () => 0, cpuMs: () => 0 };
    const a = { wallMs: () => 1, cpuMs: () => 1 };
    const b = { wallMs: () => 2, cpuMs: () => 2 };
    expect(sourcesOf(shared, 'a')).toBe(shared);
    expect(sourcesOf({ a, b }, 'a')).toBe(a);
    expect(sourcesOf({ a, b }, 'b')).toBe(b);
  });

  it('alternate reads the CPU of A from A’s sources and of B from B’s', async () => {
    // Two fake "servers": each side's conversation bills only its own server's CPU.
    const cpu = { a: 0, b: 0 };
    let wall = 0;
    const side = (name, cost) => async () => {
      cpu[name] += cost;
      wall += 1;
    };
    const sources = (name) => ({ wallMs: () => wall, cpuMs: () => cpu[name] });
    const result = await alternate(side('a', 2), side('b', 3), {
      pairs: 20,
      warmupPairs: 1,
      conversations: 4,
      sources: { a: sources('a'), b: sources('b') },
      collect: null,
    });
    expect(result.a.cpuMs).toBe(2);
    expect(result.b.cpuMs).toBe(3);
    expect(result.cpuRatio.median).toBeCloseTo(1.5, 12);
    expect(result.wallRatio.median).toBe(1);
  });
});

describe.runIf(linux)('processCpuMs (Linux /proc)', () => {
  it('reads a child process’s CPU, which grows while it works and stays when it idles', async () => {
    // The child spins until told to stop on stdin, then idles until killed.
    const child = spawn(
      process.execPath,
      [
        '-e',
        `let spin = true; process.stdin.once('data', () => { spin = false; process.stdout.write('idle\\n'); });
         process.stdout.write('ready\\n');
         const work = () => { const end = Date.now() + 5; while (Date.now() < end); if (spin) setImmediate(work); };
         work();`,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    try {
      await once(child.stdout, 'data');
      const pid = child.pid;
      const first = processCpuMs(pid);
      const sources = processSources([pid]);
      let later = sources.cpuMs();
      // Wait until the spinning child has used at least 50 ms more of CPU (no wall-clock bound).
      while (later - first < 50) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        later = sources.cpuMs();
      }
      expect(Number.isFinite(first)).toBe(true);
      expect(later).toBeGreaterThan(first);
      child.stdin.write('stop\n');
      await once(child.stdout, 'data');
      const idle = processCpuMs(pid);
      await new Promise((resolve) => setTimeout(resolve, 100));
      // An idle Node process uses next to nothing; far less than the spin's 50 ms.
      expect(processCpuMs(pid) - idle).toBeLessThan(50);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('refuses what is not a process id, and a process that does not exist', () => {
    expect(() => processCpuMs(0)).toThrow(TypeError);
    expect(() => processCpuMs(Number.NaN)).toThrow(TypeError);
    expect(() => processSources([2 ** 30])).toThrow();
  });
});
