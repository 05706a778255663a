#!/usr/bin/env bash
# Commit only the given paths, serialised with other sessions sharing this work tree.
# usage: scripts/commit.sh "message" path [path...]
set -euo pipefail
msg=$1; shift
cd "$(git rev-parse --show-toplevel)"
exec 9>/tmp/cistern-git.lock
flock 9
git add -A -- "$@"
if git diff --cached --quiet -- "$@"; then echo "nothing to commit in $*"; exit 0; fi
git commit -q -m "$msg" -- "$@"
git log --oneline -1
