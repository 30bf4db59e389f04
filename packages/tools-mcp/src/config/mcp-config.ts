import type { Permission } from '@agcore/tools-core';
import { parseAuth } from '../auth/parse-auth.js';
import { McpToolError } from '../mcp-tool-error.js';
import { type McpPermissionOverrides, permissionListProblem } from '../tool-permissions.js';
import type { McpProtocol } from '../types.js';
import type { McpTransportConfig } from './transport-config.js';

/** One server of an `mcpServers` file, after checking. */
export interface McpServerEntry {
  /** The key in `mcpServers`. */
  readonly name: string;
  /** How to reach it. */
  readonly transport: McpTransportConfig;
  /** Per-server request time limit, from `timeoutMs` or `timeout` (ms), when given. */
  readonly timeoutMs?: number;
  /** Permission overrides from the entry's `permissions`, when given. */
  readonly permissions?: McpPermissionOverrides;
  /** Tool filter from `allowedTools` / `blockedTools` (or `includeTools` / `excludeTools`). */
  readonly allow?: readonly string[];
  /** Tools to hide. */
  readonly block?: readonly string[];
  /** `trustAnnotations` of the entry, when given (see `McpClientOptions`). */
  readonly trustAnnotations?: boolean;
  /** `onToolChange` of the entry, when given (see `McpClientOptions`). */
  readonly onToolChange?: 'report' | 'block';
  /** `protocol` of the entry, when given (see `McpClientOptions`). */
  readonly protocol?: McpProtocol;
}

/**
 * Reads the standard `mcpServers` JSON of Claude Desktop, Cursor and VS Code:
 * `{ "mcpServers": { name: { command, args?, env?, cwd? } | { url, headers?, type?, auth? } } }` (VS
 * Code's `servers` key is accepted too). Entries with `"disabled": true` are skipped.
 * `auth` is `{ type: 'bearer', token }`, `{ type: 'client_credentials', clientId, clientSecret?,
 * scope?, dpop? }` or `{ type: 'authorization_code', redirectUrl, clientId?, clientSecret?, scope?,
 * dpop? }` (the application sets its `onAuthorize` on the entry; until then connecting is `auth_required`).
 * `${env:NAME}` and `${NAME}` in `env`, `args`, `url`, `headers` and `auth` are replaced by the host's
 * environment variable, since a server receives none of the host's variables otherwise.
 * Names from the file (servers, tools, variables, headers) key null-prototype objects, so a
 * tool named `__proto__` keeps its permissions.
 *
 * @throws {McpToolError} `mcp_error` naming the server and field when the JSON is not such a
 *   file, an entry has neither `command` nor `url`, or a referenced variable is not set.
 */
export function parseMcpServersConfig(
  config: unknown,
  environment: Readonly<Record<string, string | undefined>> = process.env,
): McpServerEntry[] {
  const root = asRecord(config, 'the configuration', '(config)');
  const servers = root.mcpServers ?? root.servers;
  const table = asRecord(servers, "'mcpServers'", '(config)');
  const entries: McpServerEntry[] = [];
  for (const [name, raw] of Object.entries(table)) {
    const entry = asRecord(raw, `server '${name}'`, name);
    if (entry.disabled === true) continue;
    const expand = (value: string, field: string): string =>
      expandVariables(value, environment, name, field);
    entries.push({
      name,
      transport: parseTransport(entry, name, expand),
      ...parseOptions(entry, name),
    });
  }
  return entries;
}

type Expand = (value: string, field: string) => string;

/** `command` (stdio) or `url` (Streamable HTTP, or SSE with `"type": "sse"`), expanded. */
function parseTransport(
  entry: Record<string, unknown>,
  name: string,
  expand: Expand,
): McpTransportConfig {
  if (typeof entry.command === 'string') {
    const args = optionalStrings(entry.args, name, 'args').map((arg) => expand(arg, 'args'));
    const env = optionalStringRecord(entry.env, name, 'env');
    return {
      type: 'stdio',
      command: expand(entry.command, 'command'),
      args,
      ...(env === undefined
        ? {}
        : { env: mapValues(env, (value, key) => expand(value, `env.${key}`)) }),
      ...(typeof entry.cwd === 'string' ? { cwd: expand(entry.cwd, 'cwd') } : {}),
    };
  }
  if (typeof entry.url === 'string') {
    const raw = optionalStringRecord(entry.headers, name, 'headers');
    const headers =
      raw === undefined
        ? undefined
        : mapValues(raw, (value, key) => expand(value, `headers.${key}`));
    const url = expand(entry.url, 'url');
    const auth = parseAuth(entry.auth, {
      server: name,
      expand,
      fail: (text) => configError(name, text),
    });
    return {
      type: entry.type === 'sse' ? 'sse' : 'streamable-http',
      url,
      ...(headers === undefined ? {} : { headers }),
      ...(auth === undefined ? {} : { auth }),
    };
  }
  throw configError(name, `needs either "command" (a local server) or "url" (a remote one)`);
}

/** The entry's options beside its transport, each checked. */
function parseOptions(
  entry: Record<string, unknown>,
  name: string,
): Omit<McpServerEntry, 'name' | 'transport'> {
  const timeout = entry.timeoutMs ?? entry.timeout;
  if (timeout !== undefined && (typeof timeout !== 'number' || !(timeout > 0))) {
    throw configError(name, '"timeoutMs" must be a positive number of milliseconds');
  }
  const permissions = parsePermissions(entry.permissions, name);
  const allow = entry.allowedTools ?? entry.includeTools;
  const block = entry.blockedTools ?? entry.excludeTools;
  const trust = entry.trustAnnotations;
  if (trust !== undefined && typeof trust !== 'boolean') {
    throw configError(
      name,
      `"trustAnnotations" must be true or false, got ${JSON.stringify(trust)}`,
    );
  }
  const onToolChange = entry.onToolChange;
  if (onToolChange !== undefined && onToolChange !== 'report' && onToolChange !== 'block') {
    throw configError(
      name,
      `"onToolChange" must be 'report' or 'block', got ${JSON.stringify(onToolChange)}`,
    );
  }
  const protocol = entry.protocol;
  if (
    protocol !== undefined &&
    protocol !== 'legacy' &&
    protocol !== 'auto' &&
    protocol !== '2026-07-28'
  ) {
    throw configError(
      name,
      `"protocol" must be 'legacy', 'auto' or '2026-07-28', got ${JSON.stringify(protocol)}`,
    );
  }
  return {
    ...(typeof timeout === 'number' ? { timeoutMs: timeout } : {}),
    ...(protocol === undefined ? {} : { protocol }),
    ...(permissions === undefined ? {} : { permissions }),
    ...(allow === undefined ? {} : { allow: optionalStrings(allow, name, 'allowedTools') }),
    ...(block === undefined ? {} : { block: optionalStrings(block, name, 'blockedTools') }),
    ...(trust === undefined ? {} : { trustAnnotations: trust }),
    ...(onToolChange === undefined ? {} : { onToolChange }),
  };
}

function parsePermissions(value: unknown, name: string): McpPermissionOverrides | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    const problem = permissionListProblem(value);
    if (problem !== undefined) throw configError(name, `"permissions" for every tool ${problem}`);
    return [...(value as Permission[])];
  }
  const record = asRecord(value, `"permissions" of server '${name}'`, name);
  const result: Record<string, readonly Permission[]> = Object.create(null);
  for (const tool of Object.keys(record)) {
    const list = record[tool];
    const problem = permissionListProblem(list);
    if (problem !== undefined) {
      throw configError(name, `"permissions.${tool}" for tool '${tool}' ${problem}`);
    }
    result[tool] = [...(list as Permission[])];
  }
  return result;
}

function expandVariables(
  value: string,
  environment: Readonly<Record<string, string | undefined>>,
  server: string,
  field: string,
): string {
  return value.replace(
    /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_match, variable: string, fallback: string | undefined) => {
      const found = environment[variable];
      if (found !== undefined) return found;
      if (fallback !== undefined) return fallback;
      throw configError(
        server,
        `"${field}" refers to the environment variable ${variable}, which is not set`,
      );
    },
  );
}

function asRecord(value: unknown, what: string, server: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw configError(server, `${what} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

function optionalStrings(value: unknown, server: string, field: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw configError(server, `"${field}" must be an array of strings`);
  }
  return value;
}

function optionalStringRecord(
  value: unknown,
  server: string,
  field: string,
): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  const record = asRecord(value, `"${field}"`, server);
  for (const [key, item] of Object.entries(record)) {
    if (typeof item !== 'string') throw configError(server, `"${field}.${key}" must be a string`);
  }
  return record as Record<string, string>;
}

function mapValues(
  record: Record<string, string>,
  map: (value: string, key: string) => string,
): Record<string, string> {
  const result: Record<string, string> = Object.create(null);
  for (const key of Object.keys(record)) result[key] = map(record[key] as string, key);
  return result;
}

function configError(server: string, message: string): McpToolError {
  return new McpToolError('mcp_error', `MCP configuration, server '${server}': ${message}.`, {
    serverName: server,
  });
}
