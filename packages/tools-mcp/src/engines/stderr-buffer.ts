/**
 * Keeps the last `limitBytes` characters (about as many bytes) of a child's stderr, so that a
 * chatty server never fills a pipe nor the host's memory, and a crash report can quote what
 * the server said last.
 */
export class StderrBuffer {
  private text = '';

  constructor(private readonly limitBytes: number) {}

  /** Appends a chunk; beyond twice the limit, only the last `limitBytes` are kept. */
  append(chunk: string): void {
    if (this.limitBytes <= 0) return;
    this.text += chunk;
    // Trimming at twice the limit keeps appends cheap (no copy per chunk).
    if (this.text.length > 2 * this.limitBytes) this.text = this.text.slice(-this.limitBytes);
  }

  /** The last `maxChars` characters (at most `limitBytes`), trimmed; '' when nothing was written. */
  tail(maxChars = 2000): string {
    const keep = Math.min(maxChars, this.limitBytes);
    const text = this.text.length > this.limitBytes ? this.text.slice(-this.limitBytes) : this.text;
    return (text.length > keep ? `…${text.slice(text.length - keep)}` : text).trim();
  }
}
