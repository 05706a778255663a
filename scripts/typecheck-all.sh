#!/usr/bin/env bash
# Typechecks every workspace that has a typecheck script, two at a time (CI has two cores), then scripts/.
# A workspace's errors are printed together under its name; any failure fails the whole run.
set -euo pipefail
cd "$(dirname "$0")/.."
for ws in packages/* programs/* apps/*; do
  if grep -q '"typecheck"' "$ws/package.json" 2>/dev/null; then echo "$ws"; fi
done | xargs -P 2 -I{} sh -c 'if out=$(npm run typecheck --silent --prefix "$1" 2>&1); then echo "typecheck ok: $1"; else printf "typecheck FAILED: %s\n%s\n" "$1" "$out"; exit 1; fi' sh {}
npx tsc -p scripts/tsconfig.json
echo "typecheck ok: scripts"
