import type { JsonObject } from '@agcore/tools-core';
import type { EngineConnection, OfferingChange, OfferingMethod } from '../engines/engine.js';
import { McpToolError } from '../mcp-tool-error.js';
import {
  checkContents,
  checkPrompt,
  checkResource,
  checkTemplate,
  contentsBytes,
} from './offering-checks.js';
import { OfferingList, type OfferingListSettings } from './offering-list.js';
import { promptMessages } from './prompt-messages.js';
import { McpResourceTooLargeError } from './resource-errors.js';
import type {
  McpPromptInfo,
  McpPromptMessage,
  McpResourceContents,
  McpResourceInfo,
  McpResourceRead,
  McpResourceTemplateInfo,
  McpResourceUpdated,
} from './resource-types.js';

/** The default `maxResourceBytes`: 4 MiB. */
export const defaultMaxResourceBytes = 4 * 1024 * 1024;

/**
 * The client's `maxResourceBytes`, checked (default 4 MiB).
 *
 * @throws {TypeError} when it is not a positive integer.
 */
export function maxResourceBytes(value: number | undefined): number {
  if (value === undefined) return defaultMaxResourceBytes;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(
      `McpClient: maxResourceBytes must be a positive integer, got ${String(value)}.`,
    );
  }
  return value;
}

/** What the offerings need from their client. */
export interface OfferingsHost extends OfferingListSettings {
  /** The connection to send on. @throws {McpToolError} as `McpClient.listTools()` does. */
  ready(): Promise<EngineConnection>;
  readonly maxResourceBytes: number;
  /** Receives failures no request can be rejected with (a throwing callback, a resubscribe). */
  report(error: unknown): void;
  /** Told each settled listing of resources or templates (the pins). Never throws. */
  listed(
    list: 'resources' | 'templates',
    items: readonly McpResourceInfo[] | readonly McpResourceTemplateInfo[],
  ): void;
}

/**
 * The resources, resource templates and prompts of one client's server: the lists cached per
 * connection until the server says they changed, reads within `maxResourceBytes`, and the
 * subscriptions, sent again on a new connection.
 */
export class Offerings {
  private readonly resources: OfferingList<McpResourceInfo>;
  private readonly templates: OfferingList<McpResourceTemplateInfo>;
  private readonly prompts: OfferingList<McpPromptInfo>;
  /** The listeners of each subscribed URI. */
  private readonly subscribed = new Map<string, Set<McpResourceUpdated>>();

  constructor(private readonly host: OfferingsHost) {
    this.resources = new OfferingList(
      {
        method: 'resources/list',
        field: 'resources',
        check: checkResource,
        listed: (items) => host.listed('resources', items),
      },
      host,
    );
    this.templates = new OfferingList(
      {
        method: 'resources/templates/list',
        field: 'resourceTemplates',
        check: checkTemplate,
        listed: (items) => host.listed('templates', items),
      },
      host,
    );
    this.prompts = new OfferingList(
      { method: 'prompts/list', field: 'prompts', check: checkPrompt },
      host,
    );
  }

  /** See `McpClient.listResources()`. */
  async listResources(): Promise<readonly McpResourceInfo[]> {
    return this.resources.get(await this.host.ready());
  }

  /** See `McpClient.listResourceTemplates()`. */
  async listResourceTemplates(): Promise<readonly McpResourceTemplateInfo[]> {
    return this.templates.get(await this.host.ready());
  }

  /** See `McpClient.listPrompts()`. */
  async listPrompts(): Promise<readonly McpPromptInfo[]> {
    return this.prompts.get(await this.host.ready());
  }

  /** See `McpClient.readResource()`. */
  async readResource(uri: string): Promise<McpResourceRead> {
    if (typeof uri !== 'string' || uri === '') {
      throw new TypeError('McpClient.readResource: uri must be a non-empty string.');
    }
    const { serverName, maxResourceBytes } = this.host;
    const answer = await this.send('resources/read', { uri });
    const parts = (answer as { contents?: unknown } | undefined)?.contents;
    const bad = (why: string) =>
      new McpToolError('mcp_error', `MCP server '${serverName}': reading '${uri}' gave ${why}.`, {
        serverName,
      });
    if (!Array.isArray(parts)) throw bad('no contents array');
    const contents: McpResourceContents[] = [];
    let sizeBytes = 0;
    for (const item of parts) {
      const part = checkContents(item);
      if (typeof part === 'string') throw bad(part);
      sizeBytes += contentsBytes(part);
      if (sizeBytes > maxResourceBytes) {
        throw new McpResourceTooLargeError(serverName, uri, sizeBytes, maxResourceBytes);
      }
      contents.push(part);
    }
    return Object.freeze({ uri, contents: Object.freeze(contents), sizeBytes });
  }

  /** See `McpClient.getPrompt()`. */
  async getPrompt(name: string, args: JsonObject = {}): Promise<readonly McpPromptMessage[]> {
    if (typeof name !== 'string' || name === '') {
      throw new TypeError('McpClient.getPrompt: name must be a non-empty string.');
    }
    const stringArgs: Record<string, string> = {};
    for (const [key, value] of Object.entries(args)) {
      stringArgs[key] = typeof value === 'string' ? value : JSON.stringify(value);
    }
    const answer = await this.send('prompts/get', { name, arguments: stringArgs });
    return promptMessages(answer, this.host.serverName, name);
  }

  /** See `McpClient.subscribeResource()`. */
  async subscribeResource(
    uri: string,
    onUpdated: McpResourceUpdated,
  ): Promise<() => Promise<void>> {
    if (typeof uri !== 'string' || uri === '' || typeof onUpdated !== 'function') {
      throw new TypeError('McpClient.subscribeResource: give a non-empty uri and a function.');
    }
    const listeners = this.subscribed.get(uri);
    if (listeners === undefined) {
      await this.send('resources/subscribe', { uri });
      this.subscribed.set(uri, new Set([onUpdated]));
    } else listeners.add(onUpdated);
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      const current = this.subscribed.get(uri);
      if (current === undefined || !current.delete(onUpdated) || current.size > 0) return;
      this.subscribed.delete(uri);
      try {
        await this.send('resources/unsubscribe', { uri });
      } catch {
        // A server that is gone holds no subscription any more.
      }
    };
  }

  /** The server said something changed. Never throws. */
  changed(change: OfferingChange): void {
    if (change.kind === 'resources') {
      this.resources.reset();
      this.templates.reset();
    } else if (change.kind === 'prompts') this.prompts.reset();
    else {
      for (const listener of this.subscribed.get(change.uri) ?? []) {
        try {
          listener(change.uri);
        } catch (error) {
          this.host.report(error);
        }
      }
    }
  }

  /** A new connection (or none): the lists are fetched again, subscriptions sent again. */
  connectionChanged(connection: EngineConnection | undefined): void {
    this.resources.reset();
    this.templates.reset();
    this.prompts.reset();
    if (connection === undefined) return;
    for (const uri of this.subscribed.keys()) {
      const timeoutMs = this.host.timeoutMs();
      connection.offering('resources/subscribe', { uri }, timeoutMs).catch((error: unknown) =>
        this.host.report(
          connection.failure(error, {
            kind: 'offering',
            method: 'resources/subscribe',
            timeoutMs,
          }),
        ),
      );
    }
  }

  private async send(method: OfferingMethod, params: Record<string, unknown>): Promise<unknown> {
    const connection = await this.host.ready();
    const timeoutMs = this.host.timeoutMs();
    try {
      return await connection.offering(method, params, timeoutMs);
    } catch (error) {
      throw connection.failure(error, { kind: 'offering', method, timeoutMs });
    }
  }
}
