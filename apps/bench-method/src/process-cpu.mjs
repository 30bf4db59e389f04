// The CPU of another process (a server a bench talks to), in ms, from Linux's per-thread
// scheduler statistics: `/proc/<pid>/task/<tid>/schedstat` holds each thread's time on a CPU in
// ns, exact (the ticks of `/proc/<pid>/stat` are 10 ms, too coarse for a pass).
import { readdirSync, readFileSync } from 'node:fs';

/** The CPU time (ms) the threads of process `pid` have used so far; throws when it cannot be read. */
export function processCpuMs(pid) {
  if (!Number.isInteger(pid) || pid <= 0) throw new TypeError(`not a process id: ${pid}`);
  let ns = 0;
  for (const thread of readdirSync(`/proc/${pid}/task`)) {
    let text;
    try {
      text = readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8');
    } catch {
      continue; // the thread ended between the listing and the read
    }
    ns += Number(text.split(' ')[0]);
  }
  return ns / 1e6;
}

/**
 * The sources of a side whose cost is another process's CPU: the wall clock of this process
 * and the CPU of the processes `pids` (summed; a process idle while the other side runs adds
 * nothing).
 */
export function processSources(pids) {
  const list = Array.isArray(pids) ? pids : [pids];
  for (const pid of list) processCpuMs(pid);
  return Object.freeze({
    wallMs: () => performance.now(),
    cpuMs: () => list.reduce((sum, pid) => sum + processCpuMs(pid), 0),
  });
}
