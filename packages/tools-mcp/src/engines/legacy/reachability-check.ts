import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ReachabilityWindow, type UnreachablePolicy } from '../reachability.js';

/** What a reachability check needs from its connection. */
export interface CheckHost {
  /** Sends one ping (with its time limit). */
  readonly ping: () => Promise<unknown>;
  /** The connection was shut down or lost: nothing more to check. */
  readonly over: () => boolean;
  /** Removes secrets from a reason before it is kept. */
  readonly redact: (text: string) => string;
  /** The window decided the server is unreachable: end the connection (reported as lost). */
  readonly unreachable: (reason: string) => void;
}

/**
 * HTTP, legacy engine: after a failed request or a cut stream, pings the server. A failed
 * ping fails nothing by itself: it is one failure in the `ReachabilityWindow`, and only the
 * window's verdict (N consecutive failures over T ms, no answer between) ends the connection.
 * Concurrent checks share one ping; what waits on a check runs once it is done, unless the
 * connection ended then.
 */
export class ReachabilityCheck {
  /** Why the server was found unreachable, once it was. */
  reason: string | undefined;
  private checking = false;
  private readonly waiting: (() => void)[] = [];
  private readonly window: ReachabilityWindow;

  constructor(
    policy: UnreachablePolicy,
    private readonly host: CheckHost,
  ) {
    this.window = new ReachabilityWindow(policy);
  }

  /** A request was answered: the count of failures starts over. */
  answered(): void {
    this.window.answered();
  }

  /** Pings, unless a ping is under way already; `then` runs once it is done (not if it ended the connection). */
  check(then?: () => void): void {
    if (this.host.over()) return;
    if (then !== undefined) this.waiting.push(then);
    if (this.checking) return;
    this.checking = true;
    this.host.ping().then(
      () => {
        this.checking = false;
        this.window.answered();
        this.release();
      },
      (error: unknown) => {
        this.checking = false;
        if (this.host.over()) {
          this.waiting.length = 0;
          return;
        }
        // A slow answer is no proof of a dead server: calls keep their own time limits.
        if (!(error instanceof McpError && error.code === ErrorCode.RequestTimeout)) {
          this.failed(error);
        }
        this.release();
      },
    );
  }

  /** A request or ping got no answer: one more failure; the window may end the connection. */
  private failed(error: unknown): void {
    if (!this.window.failed()) return;
    const cause =
      error instanceof Error ? (error.cause as { message?: unknown } | undefined) : undefined;
    const reason = error instanceof Error ? error.message : String(error);
    this.reason = this.host.redact(
      typeof cause?.message === 'string' && cause.message !== ''
        ? `${reason}: ${cause.message}`
        : reason,
    );
    this.waiting.length = 0;
    this.host.unreachable(this.reason);
  }

  private release(): void {
    const waiting = this.waiting.splice(0);
    if (this.host.over()) return;
    for (const next of waiting) next();
  }
}
