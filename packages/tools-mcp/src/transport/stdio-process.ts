import type { ChildProcess } from 'node:child_process';
import { settleWithin } from '@agcore/tools-core';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpStdioTransportConfig } from '../config/transport-config.js';

/** How the server process ended. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * The SDK's `StdioClientTransport`, with the child process exposed after `start()` so that the
 * client can report its exit code and signal, notice a death at once, and stop it faster than
 * the SDK's own 4 s sequence.
 *
 * SDK internals (checked against @modelcontextprotocol/sdk 1.32.2, pinned exactly): the SDK
 * keeps the child in the private field `_process`. If a later SDK renames it, `child` stays
 * `undefined` and only exit details and the faster close are lost; `sdk-internals.test.ts`
 * fails then.
 */
export class ObservedStdioTransport extends StdioClientTransport {
  /** The running child, once started. */
  child: ChildProcess | undefined;
  /** Set when the child has exited. */
  exit: ProcessExit | undefined;
  /** Sends waiting for the server's stdin to drain. */
  private drainWaiters: (() => void)[] = [];

  constructor(config: McpStdioTransportConfig, maxMessageBytes: number) {
    super({
      command: config.command,
      args: [...(config.args ?? [])],
      ...(config.env === undefined ? {} : { env: { ...config.env } }),
      ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
      stderr: 'pipe',
      maxBufferSize: maxMessageBytes,
    });
  }

  override async start(): Promise<void> {
    await super.start();
    const child = (this as unknown as { _process?: unknown })._process;
    if (!isChildProcess(child)) return;
    this.child = child;
    child.once('exit', (code, signal) => {
      this.exit = { code, signal };
      // A grandchild holding stdout open would keep 'close' (and so the SDK's onclose) from
      // firing: once the pipes are quiet, destroy our ends so pending calls fail now. The check
      // runs in setImmediate, after the event loop has read what is waiting in the pipes (a
      // timer fires before that read: on a busy machine it would drop the server's last
      // stderr lines, which say why it died); data still arriving postpones it, 2 s at most.
      const exitedAt = performance.now();
      let lastData = exitedAt;
      const touch = (): void => {
        lastData = performance.now();
      };
      child.stdout?.on('data', touch);
      child.stderr?.on('data', touch);
      const destroyWhenQuiet = (): void => {
        const now = performance.now();
        if (now - lastData < 150 && now - exitedAt < 2_000) {
          checkAfter(100);
          return;
        }
        if (child.stdout !== null && !child.stdout.destroyed) child.stdout.destroy();
        if (child.stdin !== null && !child.stdin.destroyed) child.stdin.destroy();
        if (child.stderr !== null && !child.stderr.destroyed) child.stderr.destroy();
      };
      const checkAfter = (ms: number): void => {
        setTimeout(() => setImmediate(destroyWhenQuiet).unref(), ms).unref();
      };
      checkAfter(300);
    });
  }

  /**
   * Writes a message to the server's stdin. SDK 1.32.2's `send()` adds a 'drain' listener per
   * write that finds the pipe full, so 1 000 concurrent calls print a
   * MaxListenersExceededWarning; here one listener serves every waiting write. It reads the
   * SDK's private `_process`, as `start()` does (the write ends once the SDK dropped it).
   */
  override send(message: JSONRPCMessage): Promise<void> {
    const stdin = (this as unknown as { _process?: ChildProcess })._process?.stdin;
    if (stdin === undefined || stdin === null) return Promise.reject(new Error('Not connected'));
    if (stdin.write(serializeMessage(message))) return Promise.resolve();
    return new Promise((resolve) => {
      // A destroyed pipe neither drains nor closes again: the call fails when the loss is seen.
      if (stdin.destroyed) return resolve();
      if (this.drainWaiters.push(resolve) > 1) return;
      const release = (): void => {
        stdin.off('drain', release);
        stdin.off('close', release);
        const waiters = this.drainWaiters;
        this.drainWaiters = [];
        for (const waiter of waiters) waiter();
      };
      stdin.on('drain', release);
      // A pipe that closes never drains: let the waiting sends go (the calls fail on close).
      stdin.on('close', release);
    });
  }

  /** Whether the child was started and has not exited. Never throws. */
  isRunning(): boolean {
    const child = this.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  /**
   * Sends SIGTERM now and SIGKILL after `graceMs` if the child is still there; does not wait.
   * Never throws.
   */
  terminate(graceMs: number): void {
    const child = this.child;
    if (child === undefined || !this.isRunning()) return;
    try {
      child.kill('SIGTERM');
    } catch {
      // Already gone.
    }
    setTimeout(() => {
      if (this.isRunning()) {
        try {
          child.kill('SIGKILL');
        } catch {
          // Already gone.
        }
      }
    }, graceMs).unref();
  }

  /**
   * Stops the child as the MCP spec asks (close stdin, then SIGTERM, then SIGKILL), waiting at
   * most `graceMs` at each step, then lets the SDK clean up. Never throws.
   */
  async stop(graceMs: number): Promise<void> {
    const child = this.child;
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      try {
        child.stdin?.end();
      } catch {
        // The pipe may already be broken; the signals below still stop the child.
      }
      const steps: (NodeJS.Signals | undefined)[] = [undefined, 'SIGTERM', 'SIGKILL'];
      for (const signal of steps) {
        if (signal !== undefined) {
          try {
            child.kill(signal);
          } catch {
            // Already gone.
          }
        }
        if (await settleWithin(exited, graceMs)) break;
      }
    }
    try {
      await this.close();
    } catch {
      // Closing a dead transport cannot fail in a way the caller could act on.
    }
  }
}

function isChildProcess(value: unknown): value is ChildProcess {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ChildProcess).once === 'function' &&
    typeof (value as ChildProcess).kill === 'function'
  );
}
