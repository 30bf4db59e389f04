import { createServer, type Server } from 'node:http';
import { McpClient } from '@agcore/tools-mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import {
  errorCodeMetaKey,
  InMemoryIdempotencyStore,
  idempotencyKeyMetaKey,
  type ListeningServer,
  type ServeToolsOptions,
  serveTools,
  type ToolServer,
  verifyBearerJwt,
} from '../index.js';
import { stdioServerPath } from '../test-support/build-stdio-server.js';
import { connectV1, connectV2, fixtureRegistry, type Seen } from '../test-support/fixtures.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function start(
  options: ServeToolsOptions = {},
): Promise<{ served: ToolServer; listening: ListeningServer; seen: Seen }> {
  const { registry, seen } = fixtureRegistry();
  const served = serveTools(registry, options);
  const listening = await served.listen({ port: 0 });
  cleanups.push(() => served.close());
  return { served, listening, seen };
}

function closeLater<T extends { close(): Promise<unknown> }>(client: T): T {
  cleanups.push(() => client.close());
  return client;
}

describe('authentication', () => {
  it('answers 401 without a credential and hands the caller to the tool as context.caller', async () => {
    const { listening, seen } = await start({
      authenticate: (request) =>
        request.headers.get('authorization') === 'Bearer good-token'
          ? { id: 'alice', scopes: ['tools'] }
          : undefined,
    });
    await expect(connectV1(listening.url)).rejects.toThrow();
    const client = closeLater(
      await connectV1(listening.url, { authorization: 'Bearer good-token' }),
    );
    await client.callTool({ name: 'echo', arguments: { text: 'x' } });
    expect(seen.contexts[0]?.caller).toEqual({ id: 'alice', scopes: ['tools'] });
  });

  for (const protocol of ['legacy', 'auto', '2026-07-28'] as const) {
    it(`McpClient with protocol '${protocol}' and no auth: auth_required, not mcp_error`, async () => {
      const { listening, seen } = await start({
        authenticate: (request) =>
          request.headers.get('authorization') === 'Bearer good-token'
            ? { id: 'alice', scopes: ['tools'] }
            : undefined,
      });
      const client = closeLater(
        new McpClient('protected', { type: 'streamable-http', url: listening.url }, { protocol }),
      );
      const error = await client.connect().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toMatchObject({ code: 'auth_required' });
      expect(String((error as Error).message)).toMatch(
        /MCP server 'protected' requires authorization: it answered HTTP 401/,
      );
      expect(seen.contexts).toHaveLength(0);
    });
  }

  it('verifyBearerJwt accepts a token signed by a key of the JWKS URL and refuses others', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
    const jwks: Server = createServer((_request, response) => {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => jwks.close(resolve)));
    const address = jwks.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const authenticate = verifyBearerJwt({
      jwksUrl: `http://127.0.0.1:${port}/jwks`,
      issuer: 'https://issuer.test',
      audience: 'tools',
    });
    const token = await new SignJWT({ scope: 'read write' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setSubject('bob')
      .setIssuer('https://issuer.test')
      .setAudience('tools')
      .setExpirationTime('5m')
      .sign(privateKey);
    const { listening, seen } = await start({ authenticate });
    const client = closeLater(await connectV1(listening.url, { authorization: `Bearer ${token}` }));
    await client.callTool({ name: 'echo', arguments: { text: 'x' } });
    expect(seen.contexts[0]?.caller).toMatchObject({ id: 'bob', scopes: ['read', 'write'] });
    const other = await generateKeyPair('ES256');
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setSubject('mallory')
      .setIssuer('https://issuer.test')
      .setAudience('tools')
      .sign(other.privateKey);
    await expect(connectV1(listening.url, { authorization: `Bearer ${forged}` })).rejects.toThrow();
  });
});

describe('idempotency', () => {
  it('hands the _meta key to the tool and returns the stored result for a committed key', async () => {
    const { listening, seen } = await start({ idempotencyStore: new InMemoryIdempotencyStore() });
    const client = closeLater(await connectV1(listening.url));
    const call = {
      name: 'echo',
      arguments: { text: 'pay' },
      _meta: { [idempotencyKeyMetaKey]: 'run-1:call-1' },
    };
    const first = await client.callTool(call);
    const second = await client.callTool(call);
    expect(second.structuredContent).toEqual(first.structuredContent);
    expect(seen.runs).toBe(1);
    expect(seen.contexts[0]?.idempotencyKey).toBe('run-1:call-1');
    await client.callTool({ ...call, _meta: { [idempotencyKeyMetaKey]: 'run-1:call-2' } });
    expect(seen.runs).toBe(2);
  });
});

describe('a tool that asks back (awaitInput)', () => {
  const requestStateKey = 'k'.repeat(32);

  it('answers input_required on 2026-07-28: the answer and the sealed data come back to the tool', async () => {
    const { listening } = await start({ requestStateKey });
    const client = closeLater(await connectV2(listening.url, 'yes'));
    const result = await client.callTool({ name: 'confirm', arguments: { amount: 9000 } });
    expect(result.structuredContent).toEqual({ answer: 'yes', data: { amount: 9000 } });
  });

  it('refuses request state sealed for other arguments', async () => {
    const { listening } = await start({ requestStateKey });
    const first = await rawCall(listening.url, { name: 'confirm', arguments: { amount: 1 } });
    expect(first.resultType).toBe('input_required');
    const replayed = await rawCall(listening.url, {
      name: 'confirm',
      arguments: { amount: 1_000_000 },
      inputResponses: { answer: { action: 'accept', content: { answer: 'yes' } } },
      requestState: first.requestState,
    });
    expect(JSON.stringify(replayed)).toMatch(/refused|Invalid/);
    expect(JSON.stringify(replayed)).not.toContain('1000000');
  });

  it('on 2025-11-25 answers an error saying the client must speak 2026-07-28', async () => {
    const { listening } = await start({ requestStateKey });
    const client = closeLater(await connectV1(listening.url));
    const result = await client.callTool({ name: 'confirm', arguments: { amount: 1 } });
    expect(result._meta?.[errorCodeMetaKey]).toBe('other');
    expect(JSON.stringify(result.content)).toContain('2026-07-28');
  });
});

describe('2026-07-28 header checks', () => {
  it('refuses a request whose Mcp-Method header disagrees with its body', async () => {
    const { listening } = await start();
    const response = await fetch(listening.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify(modernRequest('tools/call', { name: 'echo', arguments: { text: 'x' } })),
    });
    const text = await response.text();
    expect(text).toContain('error');
    expect(text).not.toContain('echoed');
  });
});

describe('other clients', () => {
  it("agcore's McpClient calls a served tool over HTTP", async () => {
    const { listening } = await start();
    const client = closeLater(
      new McpClient('served', { type: 'streamable-http', url: listening.url }),
    );
    await client.connect();
    const result = await client.callTool('echo', { text: 'from McpClient' });
    expect(result.structuredContent).toEqual({ echoed: 'from McpClient' });
  });

  for (const protocol of ['legacy', '2026-07-28'] as const) {
    it(`McpClient (${protocol}) gives back the served tool's ToolError code, not execution_failed`, async () => {
      const { listening } = await start();
      const client = closeLater(
        new McpClient('served', { type: 'streamable-http', url: listening.url }, { protocol }),
      );
      await client.connect();
      await expect(client.callTool('shell_run', {})).rejects.toMatchObject({
        code: 'permission_denied',
      });
    });
  }

  it('serveToolsStdio serves a child process over stdio', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [stdioServerPath],
    });
    const client = closeLater(new Client({ name: 'stdio-test', version: '1.0.0' }));
    await client.connect(transport);
    const result = await client.callTool({ name: 'shell_run', arguments: {} });
    expect(result._meta?.[errorCodeMetaKey]).toBe('permission_denied');
  });
});

function modernRequest(method: string, params: Record<string, unknown>) {
  return {
    jsonrpc: '2.0',
    id: 1,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
      },
    },
  };
}

async function rawCall(
  url: string,
  params: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': String(params.name),
    },
    body: JSON.stringify(modernRequest('tools/call', params)),
  });
  const text = await response.text();
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
  const message = JSON.parse(json) as {
    result?: Record<string, unknown>;
    error?: Record<string, unknown>;
  };
  return message.result ?? message.error ?? {};
}
