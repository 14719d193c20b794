#!/usr/bin/env bash
# Publishes a release that .github/workflows/release.yml built: pushes the image to
# ghcr.io/OWNER/REPO, tagged with the version, for linux/amd64 and linux/arm64 under one
# multi-arch tag, then attaches the bot archives and SHA256SUMS to the GitHub Release of
# the tag, whose notes name the image by tag and digest. The release workflow's publish
# job runs it, the only job of this repository with a write token:
#
#   scripts/publish-release.sh v1.2.3 dist images
#
# dist holds what scripts/release.sh wrote (the archives and SHA256SUMS); images holds the
# image jobs' dixit-image-<version>-linux-<arch>.tar.gz, each with its .sha256. Both are
# checked before anything is published. It needs docker (with buildx), gh, jq, and in the
# environment GH_TOKEN (a token with contents: write and packages: write),
# GITHUB_REPOSITORY (OWNER/REPO) and GITHUB_ACTOR (the login docker logs in as), all of
# which a GitHub Actions job has. Run again on the same tag, it replaces the assets.
set -euo pipefail

tag=${1:?usage: scripts/publish-release.sh TAG DIST IMAGES, e.g. scripts/publish-release.sh v1.2.3 dist images}
dist=${2:?usage: scripts/publish-release.sh TAG DIST IMAGES}
images=${3:?usage: scripts/publish-release.sh TAG DIST IMAGES}
if ! [[ $tag =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]]; then
  echo "publish: $tag is not a version tag such as v1.2.3 or v1.2.3-rc.1" >&2
  exit 2
fi
: "${GH_TOKEN:?publish: GH_TOKEN must hold a token with contents: write and packages: write}"
: "${GITHUB_REPOSITORY:?publish: GITHUB_REPOSITORY must name the repository, OWNER/REPO}"
: "${GITHUB_ACTOR:?publish: GITHUB_ACTOR must name the login that pushes the image}"
version=${tag#v}
# Image names are lower case; a GitHub owner may not be.
image="ghcr.io/${GITHUB_REPOSITORY,,}"
arches=(amd64 arm64)

# Everything is checked before the first push: what the builds did not make is never published.
(cd "$dist" && sha256sum --strict -c SHA256SUMS) >&2 || {
  echo "publish: the archives in $dist do not match their SHA256SUMS; nothing published" >&2
  exit 1
}
mapfile -t archives < <(cut -d' ' -f3- "$dist/SHA256SUMS")
for arch in "${arches[@]}"; do
  want="bot_${version}_linux_${arch}.tar.gz"
  if ! printf '%s\n' "${archives[@]}" | grep -qxF "$want"; then
    echo "publish: $dist/SHA256SUMS does not list $want; nothing published" >&2
    exit 1
  fi
  file="dixit-image-${version}-linux-${arch}.tar.gz"
  (cd "$images" && sha256sum --strict -c "$file.sha256") >&2 || {
    echo "publish: $images/$file is missing or does not match $file.sha256; nothing published" >&2
    exit 1
  }
done

printf '%s' "$GH_TOKEN" | docker login ghcr.io --username "$GITHUB_ACTOR" --password-stdin
per_arch=()
for arch in "${arches[@]}"; do
  # Each load names the image dixit:TAG, so it is tagged for the registry at once.
  loaded=$(docker load --input "$images/dixit-image-${version}-linux-${arch}.tar.gz" | sed -n 's/^Loaded image: //p' | tail -n 1)
  if [ "$loaded" != "dixit:$tag" ]; then
    echo "publish: the $arch image loaded as \"$loaded\", not dixit:$tag" >&2
    exit 1
  fi
  docker tag "$loaded" "$image:$tag-$arch"
  docker push "$image:$tag-$arch"
  per_arch+=("$image:$tag-$arch")
done
# One tag for both architectures: docker pull takes the one the host runs.
docker buildx imagetools create --tag "$image:$tag" "${per_arch[@]}"
digest=$(docker buildx imagetools inspect "$image:$tag" --format '{{json .Manifest}}' | jq -r .digest)
if ! [[ $digest =~ ^sha256:[0-9a-f]{64}$ ]]; then
  echo "publish: ghcr.io gave \"$digest\" as the digest of $image:$tag" >&2
  exit 1
fi
echo "publish: $image:$tag@$digest"

notes=$(mktemp)
trap 'rm -f "$notes"' EXIT
cat >"$notes" <<EOF
The bot for Linux, static, and its checksums:

    gh release download $tag --repo $GITHUB_REPOSITORY --pattern 'bot_*' --pattern SHA256SUMS
    sha256sum --ignore-missing -c SHA256SUMS
    tar xzf bot_${version}_linux_amd64.tar.gz && ./bot_${version}_linux_amd64/bot --version

The image, for linux/amd64 and linux/arm64 (name it by digest where it runs):

    $image:$tag@$digest

Install: docs/install.md.
EOF

assets=()
for a in "${archives[@]}"; do assets+=("$dist/$a"); done
assets+=("$dist/SHA256SUMS")
if gh release view "$tag" --repo "$GITHUB_REPOSITORY" >/dev/null 2>&1; then
  gh release upload "$tag" "${assets[@]}" --repo "$GITHUB_REPOSITORY" --clobber
  gh release edit "$tag" --repo "$GITHUB_REPOSITORY" --notes-file "$notes"
else
  pre=()
  if [[ $version == *-* ]]; then pre=(--prerelease); fi
  gh release create "$tag" "${assets[@]}" --repo "$GITHUB_REPOSITORY" --verify-tag \
    --title "$tag" --notes-file "$notes" "${pre[@]}"
fi
echo "publish: ${GITHUB_SERVER_URL:-https://github.com}/$GITHUB_REPOSITORY/releases/tag/$tag"
