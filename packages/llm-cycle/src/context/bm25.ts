/**
 * A small BM25 index (k1 = 1.2, b = 0.75) over short documents, for `search_tools`: lexical,
 * deterministic, no model call. Words are split on anything but letters and digits and on
 * camelCase, lower-cased, a plural `s` dropped.
 */
export class Bm25Index {
  readonly #documents: readonly Map<string, number>[];
  readonly #lengths: readonly number[];
  readonly #frequency = new Map<string, number>();
  readonly #averageLength: number;

  /** Indexes `documents` (each a list of texts; a text given twice weighs twice). */
  constructor(documents: readonly (readonly string[])[]) {
    this.#documents = documents.map((texts) => {
      const counts = new Map<string, number>();
      for (const text of texts)
        for (const word of words(text)) counts.set(word, (counts.get(word) ?? 0) + 1);
      for (const word of counts.keys())
        this.#frequency.set(word, (this.#frequency.get(word) ?? 0) + 1);
      return counts;
    });
    this.#lengths = this.#documents.map((counts) =>
      [...counts.values()].reduce((a, b) => a + b, 0),
    );
    const total = this.#lengths.reduce((a, b) => a + b, 0);
    this.#averageLength =
      this.#lengths.length === 0 ? 1 : Math.max(1, total / this.#lengths.length);
  }

  /** The positions of the documents matching `query`, best first (ties in index order), at most `limit`. */
  search(query: string, limit: number): number[] {
    const terms = [...new Set(words(query))];
    const count = this.#documents.length;
    const scored: { position: number; score: number }[] = [];
    this.#documents.forEach((counts, position) => {
      let score = 0;
      for (const term of terms) {
        const tf = counts.get(term);
        if (tf === undefined) continue;
        const df = this.#frequency.get(term) ?? 0;
        const idf = Math.log(1 + (count - df + 0.5) / (df + 0.5));
        const norm = 1 - 0.75 + (0.75 * (this.#lengths[position] ?? 0)) / this.#averageLength;
        score += (idf * tf * 2.2) / (tf + 1.2 * norm);
      }
      if (score > 0) scored.push({ position, score });
    });
    scored.sort((a, b) => b.score - a.score || a.position - b.position);
    return scored.slice(0, limit).map((entry) => entry.position);
  }
}

/** The words of `text` for the index. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 1)
    .map((word) =>
      word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word,
    );
}
