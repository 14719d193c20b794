#!/usr/bin/env bash
# Runs actionlint (with shellcheck on every run: block, when installed) on every workflow
# file: the repository's own and the classification template the App installs in workshop
# repositories (docs/actions.md). On success it records what it checked in
# scripts/actionlint-verified.sha256, so CI skips the install and the run until a workflow
# or the pinned version changes. Run it after changing a workflow, and commit the record.
set -euo pipefail
cd "$(dirname "$0")/.."

version=v1.7.12
mapfile -t workflows < <(git ls-files '.github/workflows/*.yml' '.github/workflows/*.yaml' '*/dixit-classify.yml')

# What the record covers: the version, whether shellcheck took part, and every file's content.
fingerprint() {
  { echo "actionlint $version"; command -v shellcheck >/dev/null 2>&1 && echo shellcheck; sha256sum "${workflows[@]}"; } | sha256sum | cut -d' ' -f1
}

record=scripts/actionlint-verified.sha256
if [ "${1:-}" = "--if-changed" ] && [ "$(fingerprint)" = "$(cat "$record" 2>/dev/null)" ]; then
  echo "actionlint: the workflows passed $version as they are now (scripts/actionlint-verified.sha256); skipped"
  exit 0
fi
actionlint="$(go env GOPATH)/bin/actionlint"
if ! "$actionlint" -version 2>/dev/null | grep -qx "$version"; then
  go install "github.com/rhysd/actionlint/cmd/actionlint@$version"
fi
"$actionlint" -version | head -1
"$actionlint" "${workflows[@]}"
fingerprint >"$record"
