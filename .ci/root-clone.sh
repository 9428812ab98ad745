#!/usr/bin/env bash
# As root, the README's two commands must work in a clone the postgres OS user cannot enter:
# a clone inside `mktemp -d` (0700), then one test file and a `serve` start with a health check.
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
chmod 700 "$tmp"
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill -TERM -- -"$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  # data kept outside the clone for the postgres user (src/db/embedded-root.ts)
  for d in /var/tmp/ordergraph-data-*; do
    [ -f "$d/ORIGIN" ] && grep -q "^$tmp/" "$d/ORIGIN" && rm -rf "$d"
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
git clone -q "$src" "$tmp/clone"
cd "$tmp/clone"
npm ci --no-audit --no-fund --prefer-offline >/dev/null
npm test -- test/db/tenant.test.ts
port=$(node -e 'const s=require("net").createServer().listen(0,()=>{console.log(s.address().port);s.close()})')
pgport=$(node -e 'const s=require("net").createServer().listen(0,()=>{console.log(s.address().port);s.close()})')
# a process group of its own: npm start's node child gets the signal too
setsid env -u DATABASE_URL PORT="$port" EMBEDDED_PG_PORT="$pgport" LOG_LEVEL=warn npm start >"$tmp/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 180); do
  if curl -fsS "http://127.0.0.1:$port/health/ready" >/dev/null 2>&1; then
    echo "root clone in a 0700 folder: npm test and npm start work"
    kill -TERM -- -"$pid"; wait "$pid" || true; pid=""
    exit 0
  fi
  kill -0 "$pid" 2>/dev/null || break
  sleep 1
done
cat "$tmp/serve.log"
echo "npm start did not become ready in the root clone" >&2
exit 1
