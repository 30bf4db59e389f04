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
echo "check-deps self-test passed"
