/** `staticResources` and `staticPrompts`: providers over fixed lists. */
import type {
  McpCompletion,
  McpCompletionRequest,
  McpPrompt,
  McpPromptMessage,
  McpPromptProvider,
  McpResource,
  McpResourceContents,
  McpResourceProvider,
  McpResourceTemplate,
} from '../offerings.js';

/** A fixed resource: its listing and its contents (text, base64 `blob`, or `bytes`). */
export type StaticResource = McpResource &
  ({ readonly text: string } | { readonly blob: string } | { readonly bytes: Uint8Array });

/** A URI template whose resources are read by `read` from the template's variables. */
export interface StaticResourceTemplate extends McpResourceTemplate {
  /**
   * The contents of the resource whose URI matched, from its variables; `undefined`: none.
   * Only simple `{name}` expressions are matched (each stands for one path segment).
   */
  read(
    variables: Readonly<Record<string, string>>,
    uri: string,
  ):
    | readonly McpResourceContents[]
    | undefined
    | Promise<readonly McpResourceContents[] | undefined>;
  /** Suggested values per variable, for `completion/complete` (prefix-matched). */
  readonly complete?: Readonly<Record<string, readonly string[]>>;
}

/** Options of `staticResources` and `staticPrompts`. */
export interface StaticOfferingOptions {
  /** Entries per `list` page; default 100. */
  readonly pageSize?: number;
}

/** Options of `staticResources`. */
export interface StaticResourcesOptions extends StaticOfferingOptions {
  /** The URI templates served beside the fixed resources. */
  readonly templates?: readonly StaticResourceTemplate[];
}

/** A fixed prompt: its listing, and its messages made from its arguments. */
export interface StaticPrompt extends McpPrompt {
  /** The messages, from the arguments (required ones are checked first). */
  messages(args: Readonly<Record<string, string>>): readonly McpPromptMessage[];
  /** Suggested values per argument, for `completion/complete` (prefix-matched). */
  readonly complete?: Readonly<Record<string, readonly string[]>>;
}

const maxCompletionValues = 100;

/**
 * A resource provider over a fixed list (and optional URI templates), paged by `pageSize`.
 * Throws `TypeError` for two resources with one URI, `RangeError` for a bad `pageSize`.
 */
export function staticResources(
  resources: readonly StaticResource[],
  options: StaticResourcesOptions = {},
): McpResourceProvider {
  const pageSize = checkPageSize(options.pageSize);
  const byUri = new Map<string, StaticResource>();
  for (const resource of resources) {
    if (byUri.has(resource.uri))
      throw new TypeError(
        `staticResources: the URI ${JSON.stringify(resource.uri)} is listed twice`,
      );
    byUri.set(resource.uri, resource);
  }
  const listed = resources.map(listingOf);
  const templates = (options.templates ?? []).map((template) => ({
    template,
    pattern: templatePattern(template.uriTemplate),
  }));
  return {
    list: (cursor) => {
      const { items, nextCursor } = page(listed, cursor, pageSize);
      return { resources: items, ...(nextCursor === undefined ? {} : { nextCursor }) };
    },
    read: (uri) => {
      const resource = byUri.get(uri);
      if (resource !== undefined) return [contentsOf(resource)];
      for (const { template, pattern } of templates) {
        const variables = pattern.match(uri);
        if (variables !== undefined) return template.read(variables, uri);
      }
      return undefined;
    },
    templates: () => templates.map(({ template }) => templateListingOf(template)),
    complete: (uriTemplate, request) =>
      completeFrom(
        templates.find(({ template }) => template.uriTemplate === uriTemplate)?.template.complete,
        request,
      ),
  };
}

/**
 * A prompt provider over a fixed list, paged by `pageSize`. `get` refuses (with a `TypeError`,
 * answered `-32602`) a call that leaves out a required argument. Throws `TypeError` for two
 * prompts with one name, `RangeError` for a bad `pageSize`.
 */
export function staticPrompts(
  prompts: readonly StaticPrompt[],
  options: StaticOfferingOptions = {},
): McpPromptProvider {
  const pageSize = checkPageSize(options.pageSize);
  const byName = new Map<string, StaticPrompt>();
  for (const prompt of prompts) {
    if (byName.has(prompt.name))
      throw new TypeError(
        `staticPrompts: the prompt ${JSON.stringify(prompt.name)} is listed twice`,
      );
    byName.set(prompt.name, prompt);
  }
  const listed: McpPrompt[] = prompts.map(
    ({ messages: _messages, complete: _complete, ...rest }) => rest,
  );
  return {
    list: (cursor) => {
      const { items, nextCursor } = page(listed, cursor, pageSize);
      return { prompts: items, ...(nextCursor === undefined ? {} : { nextCursor }) };
    },
    get: (name, args) => {
      const prompt = byName.get(name);
      if (prompt === undefined) return undefined;
      const missing = (prompt.arguments ?? []).filter(
        (argument) => argument.required === true && args[argument.name] === undefined,
      );
      if (missing.length > 0) {
        throw new TypeError(
          `The prompt ${name} needs the argument${missing.length > 1 ? 's' : ''} ${missing.map((a) => a.name).join(', ')}.`,
        );
      }
      return {
        ...(prompt.description === undefined ? {} : { description: prompt.description }),
        messages: prompt.messages(args),
      };
    },
    complete: (name, request) => completeFrom(byName.get(name)?.complete, request),
  };
}

function checkPageSize(pageSize: number | undefined): number {
  const size = pageSize ?? 100;
  if (!Number.isSafeInteger(size) || size < 1)
    throw new RangeError(`pageSize must be a positive integer, got ${String(pageSize)}`);
  return size;
}

/** A page of `items` from `cursor` (an offset, as this module writes it). */
function page<T>(
  items: readonly T[],
  cursor: string | undefined,
  size: number,
): { items: T[]; nextCursor?: string } {
  const start = cursor === undefined ? 0 : Number(cursor);
  if (
    !Number.isSafeInteger(start) ||
    start < 0 ||
    start > items.length ||
    !/^\d+$/.test(cursor ?? '0')
  )
    throw new TypeError(`The cursor ${JSON.stringify(cursor)} is not one this server gave.`);
  const end = start + size;
  return {
    items: items.slice(start, end),
    ...(end < items.length ? { nextCursor: String(end) } : {}),
  };
}

function listingOf(resource: StaticResource): McpResource {
  const { uri, name, title, description, mimeType, size } = resource;
  return {
    uri,
    name,
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    ...(mimeType === undefined ? {} : { mimeType }),
    ...(size === undefined ? {} : { size }),
  };
}

function templateListingOf(template: StaticResourceTemplate): McpResourceTemplate {
  const { uriTemplate, name, title, description, mimeType } = template;
  return {
    uriTemplate,
    name,
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    ...(mimeType === undefined ? {} : { mimeType }),
  };
}

function contentsOf(resource: StaticResource): McpResourceContents {
  const mime = resource.mimeType === undefined ? {} : { mimeType: resource.mimeType };
  if ('text' in resource) return { uri: resource.uri, ...mime, text: resource.text };
  if ('blob' in resource) return { uri: resource.uri, ...mime, blob: resource.blob };
  return { uri: resource.uri, ...mime, blob: Buffer.from(resource.bytes).toString('base64') };
}

/** A matcher for simple `{name}` templates: each expression matches one path segment. */
function templatePattern(uriTemplate: string): {
  match(uri: string): Record<string, string> | undefined;
} {
  const names: string[] = [];
  const source = uriTemplate
    .split(/(\{[A-Za-z0-9_]+\})/)
    .map((part) => {
      const expression = /^\{([A-Za-z0-9_]+)\}$/.exec(part);
      if (expression?.[1] === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(expression[1]);
      return '([^/?#]+)';
    })
    .join('');
  const pattern = new RegExp(`^${source}$`);
  return {
    match: (uri) => {
      const found = pattern.exec(uri);
      if (found === null) return undefined;
      const variables: Record<string, string> = {};
      try {
        names.forEach((name, index) => {
          variables[name] = decodeURIComponent(found[index + 1] ?? '');
        });
      } catch {
        return undefined; // a malformed escape names no resource
      }
      return variables;
    },
  };
}

function completeFrom(
  values: Readonly<Record<string, readonly string[]>> | undefined,
  request: McpCompletionRequest,
): McpCompletion {
  const prefix = request.value.toLowerCase();
  const matching = (values?.[request.name] ?? []).filter((value) =>
    value.toLowerCase().startsWith(prefix),
  );
  return {
    values: matching.slice(0, maxCompletionValues),
    total: matching.length,
    hasMore: matching.length > maxCompletionValues,
  };
}
