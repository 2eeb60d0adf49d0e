#!/bin/sh
# Drive `kftrain mcp` with the official MCP TypeScript SDK client (see client.mjs).
# Usage: sh test/mcp-client/run.sh KFTRAIN_BINARY WORKDIR
# Installs the pinned SDK from package-lock.json (npm ci) when node_modules is missing or stale.
# Needs Node.js 18 or later and npm; without them it fails, it does not skip.
set -eu
cd "$(dirname "$0")"

if ! command -v node >/dev/null 2>&1; then
    echo "run.sh: node not found: the MCP SDK client test needs Node.js 18 or later" >&2
    exit 127
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 18 ]; then
    echo "run.sh: node $(node --version) is too old: the MCP SDK client test needs Node.js 18 or later" >&2
    exit 1
fi

# npm writes node_modules/.package-lock.json on every install: older than the lock, reinstall.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    if ! command -v npm >/dev/null 2>&1; then
        echo "run.sh: npm not found: needed to install the MCP SDK (npm ci)" >&2
        exit 127
    fi
    npm ci --no-audit --no-fund --loglevel=error
fi

exec node client.mjs "$@"
