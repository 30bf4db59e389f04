// The one head-only UTF-8 cut lives in tools-core (span attributes, error messages); llm-cycle
// keeps exporting it under the names it always had. Tool results are cut head + tail
// (`context/head-tail.ts`).
export type { TruncatedText } from '@agcore/tools-core';
export { truncateUtf8 } from '@agcore/tools-core';
export type { ResultCut, TruncationOptions } from '../context/head-tail.js';
export { cutHeadTail } from '../context/head-tail.js';
