/**
 * Keeps the last `limitBytes` (about) of a child's stderr, so that a chatty server never fills
 * a pipe and a crash report can quote what the server said last.
 */
export class StderrBuffer {
  private chunks: string[] = [];
  private size = 0;

  constructor(private readonly limitBytes: number) {}

  /** Appends a chunk, dropping the oldest text beyond the limit. */
  append(chunk: string): void {
    if (this.limitBytes <= 0) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.limitBytes && this.chunks.length > 1) {
      const dropped = this.chunks.shift() ?? '';
      this.size -= dropped.length;
    }
    if (this.size > this.limitBytes) {
      const only = this.chunks[0] ?? '';
      const kept = only.slice(only.length - this.limitBytes);
      this.chunks = [kept];
      this.size = kept.length;
    }
  }

  /** The last `maxChars` characters, trimmed; '' when nothing was written. */
  tail(maxChars = 2000): string {
    const text = this.chunks.join('');
    return (text.length > maxChars ? `…${text.slice(text.length - maxChars)}` : text).trim();
  }
}
