import type { Limits } from './limits.js';

/**
 * The size of a value as the validation budget counts it: about the length of its JSON text
 * (the UTF-16 length of each string and key, plus one or two per value for the punctuation).
 * Measured without recursion, before validation, which also refuses values nested deeper than
 * `maxValueDepth` and values larger than `maxValueSize` (a value that shares its parts counts
 * each use, as its JSON would, so a few shared arrays cannot stand for an exponential tree).
 *
 * Returns the size, or the problem (a sentence about `valueName`) that refuses the value.
 */
export function measureValue(value: unknown, limits: Limits): number | string {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value !== 'object' || value === null) return 1;
  const { maxValueDepth, maxValueSize, valueName } = limits;
  const tooLarge = `${valueName} is larger than ${maxValueSize} characters as JSON (the value size limit)`;
  const stack: object[] = [value];
  const depths: number[] = [1];
  let size = 0;
  while (stack.length > 0) {
    const item = stack.pop() as object;
    const depth = depths.pop() as number;
    if (depth > maxValueDepth) {
      return `${valueName} is nested deeper than ${maxValueDepth} levels (the depth limit), or refers back to itself`;
    }
    size += 2;
    const keys = Array.isArray(item) ? undefined : Object.keys(item);
    const count = keys === undefined ? (item as unknown[]).length : keys.length;
    for (let index = 0; index < count; index++) {
      let child: unknown;
      if (keys === undefined) {
        child = (item as unknown[])[index];
        size += 1;
      } else {
        const key = keys[index] as string;
        child = (item as Record<string, unknown>)[key];
        size += key.length + 4;
      }
      if (typeof child === 'string') size += child.length + 2;
      else if (typeof child === 'object' && child !== null) {
        stack.push(child);
        depths.push(depth + 1);
      }
      if (size > maxValueSize) return tooLarge;
    }
  }
  return size;
}
