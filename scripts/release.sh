#!/usr/bin/env bash
# Builds the downloadable part of a release: bot for linux/amd64 and linux/arm64, static
# (CGO_ENABLED=0), each in bot_<version>_linux_<arch>.tar.gz with the README, and
# SHA256SUMS over the archives. The binaries say the tag: `bot --version` prints
# "bot v1.2.3 …" (-X main.releaseTag, cmd/bot/version.go). The release workflow
# (.github/workflows/release.yml) runs it on a tag v*; by hand, from a checkout of the tag:
#
#   scripts/release.sh v1.2.3 dist
#   (cd dist && sha256sum -c SHA256SUMS)
#
# Archives are reproducible: files are owned by root, sorted, and dated at the commit.
set -euo pipefail

tag=${1:?usage: scripts/release.sh TAG [OUTDIR], e.g. scripts/release.sh v1.2.3 dist}
out=${2:-dist}
if ! [[ $tag =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]]; then
  echo "release: $tag is not a version tag such as v1.2.3 or v1.2.3-rc.1" >&2
  exit 2
fi
cd "$(dirname "$0")/.."
mkdir -p "$out"
out=$(cd "$out" && pwd)
stamp=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

archives=()
for arch in amd64 arm64; do
  name="bot_${tag#v}_linux_${arch}"
  mkdir -p "$work/$name"
  CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -trimpath \
    -ldflags "-s -w -X main.releaseTag=$tag" -o "$work/$name/bot" ./cmd/bot
  cp README.md "$work/$name/"
  tar -C "$work" --owner=0 --group=0 --numeric-owner --sort=name --mtime="@$stamp" \
    -cf - "$name" | gzip -n >"$out/$name.tar.gz"
  archives+=("$name.tar.gz")
  echo "release: $out/$name.tar.gz"
done
(cd "$out" && sha256sum "${archives[@]}" >SHA256SUMS)
echo "release: $out/SHA256SUMS"

# The binary this machine can run must say the tag, as a user checks it.
host=$(go env GOARCH)
if [ "$(go env GOOS)" = linux ] && [ -x "$work/bot_${tag#v}_linux_${host}/bot" ]; then
  said=$("$work/bot_${tag#v}_linux_${host}/bot" --version)
  case "$said" in
    "bot $tag "*) echo "release: $said" ;;
    *) echo "release: bot --version says \"$said\", not $tag" >&2; exit 1 ;;
  esac
fi
