// The client executable for @modelcontextprotocol/conformance: the server URL is the last
// argument, the scenario is in MCP_CONFORMANCE_SCENARIO. Plain JavaScript on the bundled package
// (AGCORE_MCP_ENTRY, set by conformance.test.ts), so that the suite's many parallel clients
// start fast (sse-retry measures reconnect timing).
const entry = process.env.AGCORE_MCP_ENTRY;
if (entry === undefined)
  throw new Error('AGCORE_MCP_ENTRY must be the URL of the bundled package.');
const { McpClient, idJagAssertion } = await import(entry);

const url = process.argv[process.argv.length - 1] ?? '';
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
// 'legacy' (default, the 0.1 suite) or 'auto' (the 0.2 suite's 2026-07-28 scenarios).
const protocol = process.env.AGCORE_MCP_PROTOCOL ?? 'legacy';

// The auth/* scenarios hand their credentials in MCP_CONFORMANCE_CONTEXT; their authorization
// server approves at once, so "the browser" is one fetch whose redirect is the callback.
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');
const auth = !scenario.startsWith('auth/')
  ? undefined
  : scenario === 'auth/wif-jwt-bearer'
    ? // A workload identity token the platform handed the workload.
      { type: 'jwt_bearer', clientId: context.client_id, assertion: () => context.valid_jwt }
    : scenario === 'auth/enterprise-managed-authorization'
      ? // The person's IdP ID token, exchanged for an ID-JAG at each token request (SEP-990).
        {
          type: 'jwt_bearer',
          clientId: context.client_id,
          clientSecret: context.client_secret,
          assertion: idJagAssertion({
            tokenEndpoint: context.idp_token_endpoint,
            subjectToken: context.idp_id_token,
            clientId: context.idp_client_id,
          }),
        }
      : scenario.startsWith('auth/client-credentials')
        ? {
            type: 'client_credentials',
            clientId: context.client_id,
            ...(context.client_secret === undefined ? {} : { clientSecret: context.client_secret }),
            ...(context.private_key_pem === undefined
              ? {}
              : {
                  privateKeyJwt: {
                    privateKey: context.private_key_pem,
                    algorithm: context.signing_algorithm ?? 'ES256',
                  },
                }),
          }
        : {
            type: 'authorization_code',
            redirectUrl: 'http://localhost:3000/callback',
            // A pre-registered client where the scenario gives one; else this client's Client ID
            // Metadata Document, which the client uses where the server supports them and
            // replaces by dynamic registration where it does not.
            clientId: context.client_id ?? 'https://conformance-test.local/client-metadata.json',
            // The DPoP extension's scenarios: DPoP-bound tokens (RFC 9449).
            ...(scenario.startsWith('auth/dpop') ? { dpop: true } : {}),
            ...(context.client_secret === undefined ? {} : { clientSecret: context.client_secret }),
            onAuthorize: async (authorizationUrl) => {
              const response = await fetch(authorizationUrl, { redirect: 'manual' });
              return new URL(response.headers.get('location') ?? '', authorizationUrl);
            },
          };

const client = new McpClient(
  'conformance',
  { type: 'streamable-http', url, fallbackToSse: false, ...(auth === undefined ? {} : { auth }) },
  {
    // Generous: the suite starts its 39 clients at once (on a loaded 2-core machine the
    // OAuth scenarios took over 20 s to connect); the runner kills a client at 60 s.
    timeoutMs: 45_000,
    protocol,
    // Accept with no fields: the client fills in the schema's defaults (SEP-1034).
    onElicitation: async () => ({ action: 'accept', content: {} }),
  },
);

try {
  await client.connect();
  const tools = await client.listTools();
  if (scenario === 'tools_call') {
    await client.callTool('add_numbers', { a: 5, b: 3 });
  } else if (scenario.startsWith('elicitation')) {
    await client.callTool('test_client_elicitation_defaults', {});
  } else if (scenario === 'sse-retry') {
    await client.callTool('test_reconnection', {});
  } else if (Array.isArray(context.toolCalls)) {
    // The scenario names the calls and their arguments (http-custom-headers: values the v2
    // SDK mirrors into Mcp-Param-* headers from the tool's x-mcp-header annotations).
    for (const call of context.toolCalls) await client.callTool(call.name, call.arguments ?? {});
  } else if (scenario === 'sep-2322-client-request-state') {
    // Every MRTR tool: state echoed, no state, a plain call during another's round, no
    // resultType. The unrelated call runs while the echo call waits for its elicitation.
    const call = (name) => client.callTool(name, {});
    await Promise.all([call('test_mrtr_echo_state'), call('test_mrtr_unrelated')]);
    await call('test_mrtr_no_state');
    await call('test_mrtr_no_result_type');
  } else {
    const first = tools[0];
    if (first !== undefined && scenario !== 'initialize') await client.callTool(first.name, {});
  }
  await client.close();
  process.exitCode = 0;
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  await client.close();
  process.exitCode = 1;
}
