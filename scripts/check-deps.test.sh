#!/usr/bin/env bash
# Proves scripts/check-deps.mjs catches each kind of violation (so the check can fail).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fixture=$(mktemp -d)
trap 'rm -rf "$fixture"' EXIT
make_pkg() { # dir name deps-json source
  mkdir -p "$fixture/packages/$1/src"
  printf '{"name":"%s","dependencies":%s}\n' "$2" "$3" >"$fixture/packages/$1/package.json"
  printf '%s\n' "$4" >"$fixture/packages/$1/src/index.ts"
}
expect_failure() { # description pattern
  if out=$(node "$here/check-deps.mjs" "$fixture" 2>&1); then
    echo "check-deps self-test: expected a failure for: $1"; exit 1
  fi
  grep -q "$2" <<<"$out" || { echo "check-deps self-test: wrong message for $1: $out"; exit 1; }
}
make_pkg tools-core @agcore/tools-core '{}' "export const a = 1;"
make_pkg tools-mcp @agcore/tools-mcp '{"@agcore/tools-core":"workspace:^"}' "import { a } from '@agcore/tools-core';"
node "$here/check-deps.mjs" "$fixture" >/dev/null
make_pkg tools-mcp @agcore/tools-mcp '{"@agcore/tools-core":"workspace:^"}' "import { R } from '@agcore/tools-registry';"
expect_failure 'undeclared import' 'does not declare'
make_pkg tools-mcp @agcore/tools-mcp '{"@agcore/tools-core":"workspace:^","@agcore/tools-registry":"workspace:^"}' "export {};"
expect_failure 'forbidden edge' 'module graph forbids'
make_pkg tools-mcp @agcore/tools-mcp '{}' "import { a } from '../../tools-core/src/index.js';"
expect_failure 'source import by path' "another package's source by path"
# Folder rules (issue 22 §2): llm-cycle's rooms import one way.
put() { # path-under-fixture source
  mkdir -p "$(dirname "$fixture/$1")"
  printf '%s\n' "$2" >"$fixture/$1"
}
make_pkg tools-mcp @agcore/tools-mcp '{}' "export {};"
make_pkg llm-cycle @agcore/llm-cycle '{}' "export { run } from './loop/cycle.js';"
put packages/llm-cycle/src/types.ts "export type Usage = { tokens: number };"
put packages/llm-cycle/src/runs/run-state.ts "import type { Usage } from '../types.js'; export type S = Usage;"
put packages/llm-cycle/src/loop/cycle.ts "import type { S } from '../runs/run-state.js'; export const run = (s: S) => s;"
put packages/llm-cycle/src/providers/openai-compatible/provider.ts "import type { Usage } from '../../types.js'; export type P = Usage;"
put packages/llm-cycle/src/providers/openai-compatible/provider.test.ts "import { run } from '../../loop/cycle.js';"
node "$here/check-deps.mjs" "$fixture" >/dev/null
put packages/llm-cycle/src/providers/openai-compatible/provider.ts "import type { S } from '../../loop/cycle.js'; export type P = S;"
expect_failure 'a provider importing the loop' 'folder rules forbid for room providers/openai-compatible'
put packages/llm-cycle/src/providers/openai-compatible/provider.ts "export {};"
put packages/llm-cycle/src/runs/run-state.ts "import type { run } from '../loop/cycle.js'; export type S = typeof run;"
expect_failure 'runs importing the loop' 'folder rules forbid for room runs'
put packages/llm-cycle/src/runs/run-state.ts "export type S = number;"
put packages/llm-cycle/src/types.ts "import type { S } from './runs/run-state.js'; export type Usage = S;"
expect_failure 'the shared root importing a room' 'folder rules forbid for room \.'
put packages/llm-cycle/src/types.ts "export type Usage = number;"
# The shared HTTP layer is wire-neutral: neither it nor another format's provider imports Chat Completions.
put packages/llm-cycle/src/providers/http/wire.ts "import type { P } from '../openai-compatible/provider.js'; export type W = P;"
expect_failure 'the HTTP layer importing a wire format' 'folder rules forbid for room providers/http'
put packages/llm-cycle/src/providers/http/wire.ts "export type W = number;"
put packages/llm-cycle/src/providers/openai-responses/stream.ts "import type { P } from '../openai-compatible/provider.js'; export type R = P;"
expect_failure 'Responses importing Chat Completions' 'folder rules forbid for room providers/openai-responses'
put packages/llm-cycle/src/providers/openai-responses/stream.ts "import type { W } from '../http/wire.js'; export type R = W;"
node "$here/check-deps.mjs" "$fixture" >/dev/null
put packages/llm-cycle/src/elsewhere/extra.ts "export {};"
expect_failure 'a folder the table does not name' 'folder rules of @agcore/llm-cycle do not name'
rm -r "$fixture/packages/llm-cycle/src/elsewhere"
# tools-mcp (issue 31 §5): the two engines never import each other; auth imports no engine.
m=packages/tools-mcp/src
make_pkg tools-mcp @agcore/tools-mcp '{}' "export type { Engine } from './engines/engine-loader.js';"
put $m/mcp-tool-error.ts "export class McpToolError extends Error {}"
put $m/engines/engine.ts "import type { McpToolError } from '../mcp-tool-error.js'; export type E = McpToolError;"
put $m/engines/legacy/connection.ts "import type { E } from '../engine.js'; export type L = E;"
put $m/engines/modern/connection.ts "import type { E } from '../engine.js'; export type M = E;"
put $m/engines/engine-loader.ts "import type { L } from './legacy/connection.js'; import type { M } from './modern/connection.js'; export type Engine = L | M;"
put $m/auth/errors.ts "import { McpToolError } from '../mcp-tool-error.js'; export class AuthError extends McpToolError {}"
node "$here/check-deps.mjs" "$fixture" >/dev/null
put $m/engines/legacy/connection.ts "import type { M } from '../modern/connection.js'; export type L = M;"
expect_failure 'the legacy engine importing the modern one' 'folder rules forbid for room engines/legacy'
put $m/engines/legacy/connection.ts "import type { E } from '../engine.js'; export type L = E;"
put $m/engines/modern/connection.ts "import type { L } from '../legacy/connection.js'; export type M = L;"
expect_failure 'the modern engine importing the legacy one' 'folder rules forbid for room engines/modern'
put $m/engines/modern/connection.ts "const legacy = () => import('../legacy/connection.js'); export type M = typeof legacy;"
expect_failure 'the modern engine loading the legacy one with import()' 'folder rules forbid for room engines/modern'
put $m/engines/modern/connection.ts "import type { E } from '../engine.js'; export type M = E;"
put $m/auth/errors.ts "import type { E } from '../engines/engine.js'; export type A = E;"
expect_failure 'auth importing the engines' 'folder rules forbid for room auth'
put $m/auth/errors.ts "import type { M } from '../engines/modern/connection.js'; export type A = M;"
expect_failure 'auth importing an engine' 'folder rules forbid for room auth'
put $m/auth/errors.ts "export {};"
node "$here/check-deps.mjs" "$fixture" >/dev/null
put $m/elsewhere/extra.ts "export {};"
expect_failure 'a tools-mcp folder the table does not name' 'folder rules of @agcore/tools-mcp do not name'
# tools-mcp-server (issue 31, rooms): the eras never import each other; offerings and calls
# import no era; nothing but the `.` entry imports serving.
rm -r "$fixture/$m/elsewhere"
v=packages/tools-mcp-server/src
make_pkg tools-mcp-server @agcore/tools-mcp-server '{}' "export { serveTools } from './serving/serve-tools.js';"
put $v/types.ts "export type Caller = { id: string };"
put $v/calls/tool-calls.ts "import type { Caller } from '../types.js'; export type C = Caller;"
put $v/offerings/served-offerings.ts "import type { Caller } from '../types.js'; export type O = Caller;"
put $v/eras/legacy/legacy-era.ts "import type { C } from '../../calls/tool-calls.js'; export type L = C;"
put $v/eras/modern/modern-era.ts "import type { O } from '../../offerings/served-offerings.js'; export type M = O;"
put $v/serving/serve-tools.ts "import type { L } from '../eras/legacy/legacy-era.js'; import type { M } from '../eras/modern/modern-era.js'; export type S = L | M; export const serveTools = 1;"
put $v/stdio.ts "import type { L } from './eras/legacy/legacy-era.js'; export type Stdio = L;"
node "$here/check-deps.mjs" "$fixture" >/dev/null
put $v/eras/legacy/legacy-era.ts "import type { M } from '../modern/modern-era.js'; export type L = M;"
expect_failure 'the legacy era importing the modern one' 'folder rules forbid for room eras/legacy'
put $v/eras/legacy/legacy-era.ts "export type L = number;"
put $v/eras/modern/modern-era.ts "const legacy = () => import('../legacy/legacy-era.js'); export type M = typeof legacy;"
expect_failure 'the modern era loading the legacy one with import()' 'folder rules forbid for room eras/modern'
put $v/eras/modern/modern-era.ts "export type M = number;"
put $v/offerings/served-offerings.ts "import type { M } from '../eras/modern/modern-era.js'; export type O = M;"
expect_failure 'offerings importing an era' 'folder rules forbid for room offerings'
put $v/offerings/served-offerings.ts "export type O = number;"
put $v/calls/tool-calls.ts "import type { L } from '../eras/legacy/legacy-era.js'; export type C = L;"
expect_failure 'calls importing an era' 'folder rules forbid for room calls'
put $v/calls/tool-calls.ts "export type C = number;"
put $v/eras/modern/modern-era.ts "import type { S } from '../../serving/serve-tools.js'; export type M = S;"
expect_failure 'an era importing serving' 'folder rules forbid for room eras/modern'
put $v/eras/modern/modern-era.ts "export type M = number;"
put $v/stdio.ts "import type { S } from './serving/serve-tools.js'; export type Stdio = S;"
expect_failure 'the stdio entry importing serving' 'folder rules forbid for room stdio.ts'
put $v/stdio.ts "export type Stdio = number;"
put $v/types.ts "import type { C } from './calls/tool-calls.js'; export type Caller = C;"
expect_failure 'the shared vocabulary importing a room' 'folder rules forbid for room \.'
put $v/types.ts "export type Caller = { id: string };"
node "$here/check-deps.mjs" "$fixture" >/dev/null
put $v/eras/shared.ts "export {};"
expect_failure 'a tools-mcp-server folder the table does not name' 'folder rules of @agcore/tools-mcp-server do not name'
echo "check-deps self-test passed"
