/** What `ReportLimit.admit()` decided for one report. */
export type Admission =
  | { readonly admit: true; readonly suppressedBefore: number }
  | { readonly admit: false; readonly firstSuppressed: boolean };

/**
 * Caps how many reports one source may make per window: a server that sends 20 000 stray
 * messages gets the first `limit` reported, one notice that more are being dropped, and a
 * count of the dropped ones with the next report of a later window.
 */
export class ReportLimit {
  private windowStart = Number.NEGATIVE_INFINITY;
  private count = 0;
  private suppressed = 0;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Whether the next report goes out. Never throws. */
  admit(now = performance.now()): Admission {
    if (now - this.windowStart >= this.windowMs) {
      this.windowStart = now;
      this.count = 0;
    }
    if (this.count < this.limit) {
      this.count++;
      const suppressedBefore = this.suppressed;
      this.suppressed = 0;
      return { admit: true, suppressedBefore };
    }
    this.suppressed++;
    return { admit: false, firstSuppressed: this.suppressed === 1 };
  }
}
