import { type Colors, ellipsize } from './output.js';

/** What the tree shows of a finished span (the SDK's `ReadableSpan`, reduced). */
export interface SpanRecord {
  readonly name: string;
  readonly spanId: string;
  readonly traceId: string;
  readonly parentSpanId: string | undefined;
  /** Start, in milliseconds since the epoch. */
  readonly startMs: number;
  readonly durationMs: number;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** The status message when the span ended in an error. */
  readonly error: string | undefined;
}

/** The key attributes of a span, as `key=value` words (GenAI conventions). */
function keyAttributes(span: SpanRecord): string[] {
  const a = span.attributes;
  const words: string[] = [];
  const add = (label: string, value: unknown) => {
    if (value !== undefined)
      words.push(`${label}=${Array.isArray(value) ? value.join(',') : String(value)}`);
  };
  const operation = a['gen_ai.operation.name'];
  if (operation === 'invoke_agent') add('model', a['gen_ai.request.model']);
  if (operation === 'invoke_agent' || operation === 'chat') {
    add('in', a['gen_ai.usage.input_tokens']);
    add('out', a['gen_ai.usage.output_tokens']);
  }
  if (operation === 'chat') add('finish', a['gen_ai.response.finish_reasons']);
  if (operation === 'execute_tool') add('call', a['gen_ai.tool.call.id']);
  add('error', a['error.type'] ?? (span.error === undefined ? undefined : 'yes'));
  return words;
}

/** A duration as people read it: `0.4 ms`, `28 ms`, `2.0 s`. */
export function formatDuration(ms: number): string {
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * The spans as trees, one per trace, children in start order: each line the tree's branches,
 * the span's name, its duration and its key attributes, cut to `width` columns. Spans whose
 * parent is not among them (the caller's) start a tree of their own.
 */
export function renderSpanTree(spans: readonly SpanRecord[], c: Colors, width: number): string {
  const ids = new Set(spans.map((span) => span.spanId));
  const children = new Map<string | undefined, SpanRecord[]>();
  for (const span of spans) {
    const parent =
      span.parentSpanId !== undefined && ids.has(span.parentSpanId) ? span.parentSpanId : undefined;
    const list = children.get(parent) ?? [];
    list.push(span);
    children.set(parent, list);
  }
  for (const list of children.values()) list.sort((a, b) => a.startMs - b.startMs);
  const lines: string[] = [];
  const walk = (span: SpanRecord, prefix: string, branch: string, depth: number): void => {
    const head = `${prefix}${branch}`;
    const duration = formatDuration(span.durationMs);
    const plain = ellipsize(
      `${head}${span.name}  ${duration}  ${keyAttributes(span).join(' ')}`.trimEnd(),
      width,
    );
    // Colour only the name and the error, on the cut text.
    const named = plain.startsWith(`${head}${span.name}`)
      ? `${c.dim(head)}${span.error === undefined ? c.bold(span.name) : c.red(span.name)}${plain.slice(head.length + span.name.length)}`
      : plain;
    lines.push(named);
    const list = children.get(span.spanId) ?? [];
    const next = depth === 0 ? '' : `${prefix}${branch === '└─ ' ? '   ' : '│  '}`;
    list.forEach((child, index) => {
      walk(child, next, index === list.length - 1 ? '└─ ' : '├─ ', depth + 1);
    });
  };
  for (const root of children.get(undefined) ?? []) {
    lines.push(c.dim(ellipsize(`trace ${root.traceId}`, width)));
    walk(root, '', '', 0);
  }
  return lines.join('\n');
}
