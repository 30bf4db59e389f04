// The span tree of a run: the spans `--trace` prints, nested by parent.
import { element, formatDuration } from '/timeline.js';

/** Replaces `list` with the tree of `spans` (each span a list item, children nested). */
export function renderTrace(list, spans) {
  const ids = new Set(spans.map((span) => span.spanId));
  const children = new Map();
  for (const span of spans) {
    const parent =
      span.parentSpanId !== undefined && ids.has(span.parentSpanId) ? span.parentSpanId : 'root';
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(span);
  }
  for (const group of children.values()) group.sort((a, b) => a.startMs - b.startMs);
  const build = (parent) =>
    (children.get(parent) ?? []).map((span) => {
      const item = element('li', 'span');
      item.dataset.name = span.name;
      const line = element('span', 'span-line');
      line.append(
        element('strong', 'span-name', span.name),
        element('span', 'meta', ` ${formatDuration(span.durationMs)}`),
      );
      if (span.error !== undefined) line.append(element('span', 'error', ` error: ${span.error}`));
      item.append(line);
      const nested = build(span.spanId);
      if (nested.length > 0) {
        const sub = element('ul');
        sub.append(...nested);
        item.append(sub);
      }
      return item;
    });
  list.replaceChildren(...build('root'));
}
