import type {
  McpPromptArgument,
  McpPromptInfo,
  McpResourceContents,
  McpResourceInfo,
  McpResourceTemplateInfo,
} from './resource-types.js';

type Fields = Record<string, unknown>;

const encoder = new TextEncoder();

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The optional string fields of `item` that are strings. */
function strings(item: Fields, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = item[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

/** A listed resource, or why it is left out. Never throws. */
export function checkResource(item: unknown): McpResourceInfo | string {
  if (!isObject(item) || typeof item.uri !== 'string' || item.uri === '') {
    return 'gave a resource without a uri';
  }
  const name = typeof item.name === 'string' ? item.name : item.uri;
  const size = typeof item.size === 'number' && Number.isFinite(item.size) ? item.size : undefined;
  return Object.freeze({
    uri: item.uri,
    name,
    ...strings(item, ['title', 'description', 'mimeType']),
    ...(size === undefined ? {} : { size }),
  });
}

/** A listed resource template, or why it is left out. Never throws. */
export function checkTemplate(item: unknown): McpResourceTemplateInfo | string {
  if (!isObject(item) || typeof item.uriTemplate !== 'string' || item.uriTemplate === '') {
    return 'gave a resource template without a uriTemplate';
  }
  const name = typeof item.name === 'string' ? item.name : item.uriTemplate;
  return Object.freeze({
    uriTemplate: item.uriTemplate,
    name,
    ...strings(item, ['title', 'description', 'mimeType']),
  });
}

/** A listed prompt, or why it is left out. Never throws. */
export function checkPrompt(item: unknown): McpPromptInfo | string {
  if (!isObject(item) || typeof item.name !== 'string' || item.name === '') {
    return 'gave a prompt without a name';
  }
  const args: McpPromptArgument[] = [];
  if (Array.isArray(item.arguments)) {
    for (const arg of item.arguments) {
      if (!isObject(arg) || typeof arg.name !== 'string') continue;
      args.push(
        Object.freeze({
          name: arg.name,
          ...strings(arg, ['description']),
          ...(typeof arg.required === 'boolean' ? { required: arg.required } : {}),
        }),
      );
    }
  }
  return Object.freeze({
    name: item.name,
    ...strings(item, ['title', 'description']),
    ...(Array.isArray(item.arguments) ? { arguments: Object.freeze(args) } : {}),
  });
}

/** The decoded size of base64 text, in bytes (padding and whitespace left out). */
export function base64Bytes(blob: string): number {
  const clean = blob.replace(/[\s=]/g, '');
  return Math.floor((clean.length * 3) / 4);
}

/** One part of a read resource, or why it is refused. Never throws. */
export function checkContents(item: unknown): McpResourceContents | string {
  if (!isObject(item) || typeof item.uri !== 'string') return 'a part without a uri';
  const mime = typeof item.mimeType === 'string' ? { mimeType: item.mimeType } : {};
  if (typeof item.text === 'string')
    return Object.freeze({ uri: item.uri, ...mime, text: item.text });
  if (typeof item.blob === 'string') {
    if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(item.blob)) return 'a blob that is not base64';
    return Object.freeze({ uri: item.uri, ...mime, blob: item.blob });
  }
  return 'a part with neither text nor blob';
}

/** The decoded size of one part. */
export function contentsBytes(part: McpResourceContents): number {
  return 'text' in part ? encoder.encode(part.text).length : base64Bytes(part.blob);
}
