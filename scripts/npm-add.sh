#!/usr/bin/env bash
# npm install serialised across sessions sharing this work tree (concurrent installs corrupt node_modules).
# usage: scripts/npm-add.sh -w apps/web some-package@^1 [-D]
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
exec 9>/tmp/cistern-npm.lock
flock 9
npm install --no-audit --no-fund "$@"
