import { existsSync, readdirSync, readFileSync } from 'node:fs';

const hasProc = existsSync('/proc/self/stat');

/** The state letter and parent pid of a process, from /proc; `undefined` when it is gone. */
function procStat(pid: number | string): { state: string; parent: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state = '', parent = ''] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state, parent: Number(parent) };
  } catch {
    return undefined;
  }
}

/**
 * Whether `pid` is a live child of this process, so that a pid the system has since given to
 * another process is never signalled. Without /proc (not Linux): whether it exists. Never
 * throws.
 */
export function isOurChild(pid: number): boolean {
  if (!hasProc) {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== 'Z' && stat.parent === process.pid;
}

/**
 * The live direct children of this process (MCP servers, also one still in its handshake, and
 * `run_shell` commands). Empty without /proc. Never throws.
 */
export function childPids(): number[] {
  if (!hasProc) return [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const result: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(entry);
    if (stat !== undefined && stat.state !== 'Z' && stat.parent === process.pid) {
      result.push(Number(entry));
    }
  }
  return result;
}

/** Sends `signal` to each pid that is still a child of this process. Never throws. */
export function signalChildren(pids: Iterable<number>, signal: NodeJS.Signals): void {
  for (const pid of new Set(pids)) {
    if (!isOurChild(pid)) continue;
    try {
      process.kill(pid, signal);
    } catch {
      // Gone in the meantime.
    }
  }
}
