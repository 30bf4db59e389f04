// The one UTF-8 cut lives in tools-core (tool results here, span attributes there); llm-cycle
// keeps exporting it under the names it always had.
export type { TruncatedText } from '@agcore/tools-core';
export { truncateUtf8 } from '@agcore/tools-core';
