// The token bench's conversation (issue 25): five tool turns whose results are 51 KB, 66 KB,
// 2 × 31 KB and 2 KB of log-like lines, each with a fact on its first and on its last line,
// then the answer. Deterministic: the same bytes on every run.

/** The sizes of the five results, in bytes (about). */
export const RESULT_SIZES = [51_000, 66_000, 31_000, 31_000, 2_000];

/** The fact on the first line of result `index`. */
export function startFact(index) {
  return `START-FACT-${index}: the batch ${1000 + index} began at 0${index}:00`;
}

/** The fact on the last line of result `index`. */
export function endFact(index) {
  return `END-FACT-${index}: total ${4200 + index * 17} EUR, status clean`;
}

/** Result `index`: its start fact, lines of data, its end fact. */
export function resultText(index) {
  const size = RESULT_SIZES[index] ?? 0;
  const lines = [startFact(index)];
  let bytes = lines[0].length;
  for (let line = 1; bytes < size - 80; line++) {
    const text = `${String(line).padStart(5, '0')} worker=${line % 7} took=${(line * 37) % 1000}ms ok`;
    lines.push(text);
    bytes += text.length + 1;
  }
  lines.push(endFact(index));
  return lines.join('\n');
}

/** The one tool of the conversation. */
export const FETCH_TOOL = {
  name: 'fetch_log',
  description: 'Fetches the log of a batch by its index',
  parameters: {
    type: 'object',
    properties: { index: { type: 'integer', minimum: 0 } },
    required: ['index'],
  },
};

export const SYSTEM_PROMPT = 'You are an operations assistant. Read the logs with the tools.';
export const PROMPT = 'Read the logs of batches 0 to 4 and give the start and total of each.';
/** Tool turns before the answer. */
export const TOOL_TURNS = RESULT_SIZES.length;
