#!/usr/bin/env bash
# act-classify.sh — run the real classification workflow (internal/ci/classify/workflow/
# dixit-classify.yml) locally under nektos/act in self-hosted mode (no Docker engine), on a
# scripted coder and tests of examples/semver, and compare its results.json with the
# local judge's (`bot classify` run directly on the same tree and batch).
#
# Usage:   scripts/act-classify.sh            (from anywhere; needs act, go, git, bwrap)
# Env:     ACT (default: act on PATH, else $(go env GOPATH)/bin/act), KEEP=1 keeps the work dir,
#          CODER (default basil/1), RERUNS (default 20).
#
# Offline stand-ins, because github.com is not reachable here (docs/actions.md says more):
#   - the four pinned actions are replaced with act's --local-repository by small local
#     composite actions that do the same job: checkout = git fetch + detached checkout with
#     no credentials, setup-go = the host's Go, upload-artifact = copy to a directory,
#     cache = nothing restored or saved;
#   - `go install github.com/dixit-bot/dixit/cmd/bot@VERSION` resolves VERSION from a file
#     GOPROXY built from this checkout's HEAD (other modules still come from proxy.golang.org);
#   - `sudo` is a shim when running as root without sudo.
# Every run: step of the workflow runs unchanged.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CODER=${CODER:-basil/1}
RERUNS=${RERUNS:-20}
ACT=${ACT:-$(command -v act || echo "$(go env GOPATH)/bin/act")}
[[ -x $ACT ]] || { echo "act not found: go install github.com/nektos/act@latest" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/dixit-act.XXXXXX")
if [[ ${KEEP:-} != 1 ]]; then trap 'rm -rf "$work"' EXIT; else echo "work dir: $work"; fi
start=$(date +%s)

# 1. bot at this checkout's HEAD, served as a module version from a file GOPROXY.
rev=$(git -C "$HERE" rev-parse HEAD)
version="v0.0.0-act.${rev:0:12}"
modroot="$work/goproxy/github.com/dixit-bot/dixit/@v"
mkdir -p "$modroot"
git -C "$HERE" archive --format=tar --prefix="github.com/dixit-bot/dixit@$version/" HEAD |
	python3 -c '
# A module zip leaves out nested modules (directories with their own go.mod) and vendor/.
import posixpath, sys, tarfile, zipfile
files = {}
with tarfile.open(fileobj=sys.stdin.buffer, mode="r|") as t:
    for m in t:
        if m.isfile():
            files[m.name] = t.extractfile(m).read()
prefix = next(iter(files)).split("/", 3)[:3]
root = "/".join(prefix)
nested = {posixpath.dirname(n) for n in files if n.endswith("/go.mod") and posixpath.dirname(n) != root}
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for name, data in sorted(files.items()):
        if any(name.startswith(d + "/") for d in nested) or "/vendor/" in name:
            continue
        z.writestr(name, data)
' "$modroot/$version.zip"
# Forget an earlier download of the same version (the module cache keeps what it fetched).
modcache=$(go env GOMODCACHE)
if [[ -d "$modcache/github.com/dixit-bot/dixit@$version" ]]; then chmod -R u+w "$modcache/github.com/dixit-bot/dixit@$version"; fi
rm -rf "$modcache/cache/download/github.com/dixit-bot/dixit/@v/$version".* "$modcache/github.com/dixit-bot/dixit@$version"
git -C "$HERE" show HEAD:go.mod >"$modroot/$version.mod"
printf '{"Version":"%s","Time":"%s"}\n' "$version" "$(git -C "$HERE" show -s --format=%cI HEAD)" >"$modroot/$version.info"
echo "$version" >"$modroot/list"

# 2. A workshop repository: the workflow on main, the coder's tree and the batch as commits.
repo="$work/workshop"
git init -q -b main "$repo"
g() { git -C "$repo" -c user.name=dixit -c user.email=dixit@localhost "$@"; }
mkdir -p "$repo/.github/workflows"
cp "$HERE/internal/ci/classify/workflow/dixit-classify.yml" "$repo/.github/workflows/"
g add -A && g commit -q -m workflow
# tree_of DIR: store DIR's files in the workshop and print the tree hash.
tree_of() {
	local idx="$work/index.$RANDOM"
	(cd "$1" && GIT_INDEX_FILE=$idx git --git-dir="$repo/.git" --work-tree=. add -A &&
		GIT_INDEX_FILE=$idx git --git-dir="$repo/.git" write-tree)
}
coder_tree="$work/coder-src"
mkdir -p "$coder_tree"
cp -R "$HERE/examples/semver/coders/$CODER/." "$coder_tree/"
coder_commit=$(g commit-tree "$(tree_of "$coder_tree")" -m coder)
g update-ref refs/dixit/act/coders/basil "$coder_commit"

# The batch: three demo tests (a pass, a failure at run 1, a build failure for basil/1).
batch_src="$work/batch-src"
mkdir -p "$batch_src"
python3 - "$HERE/examples/semver/testers" "$RERUNS" >"$batch_src/batch.json" <<'EOF'
import json, sys
root, reruns = sys.argv[1], int(sys.argv[2])
tests = [{"id": p.replace("/", "_"), "content": open(f"{root}/{p}/compare_test.go").read()} for p in ("ivy/1", "ivy/3", "jun/1")]
json.dump({"schema": "dixit.batch/v1", "run": "act", "batch": "act-1", "reruns": reruns,
           "contract": {"preset": "go", "timeout": "30s"}, "tests": tests}, sys.stdout, indent=2)
EOF
batch_commit=$(g commit-tree "$(tree_of "$batch_src")" -m batch)
g update-ref refs/dixit/act/batches/act-1 "$batch_commit"

# 3. Local stand-ins for the pinned actions (act --local-repository).
uses=$(grep -oE 'uses: [^ ]+' "$HERE/internal/ci/classify/workflow/dixit-classify.yml" | awk '{print $2}' | sort -u)
stub() { mkdir -p "$work/actions/$1"; cat >"$work/actions/$1/action.yml"; }
stub checkout <<'EOF'
name: "checkout, offline stand-in"
inputs:
  ref: {required: true}
  path: {required: true}
  persist-credentials: {required: true}
runs:
  using: composite
  steps:
    - shell: bash
      env:
        REF: ${{ inputs.ref }}
        DEST: ${{ inputs.path }}
      run: |
        git init -q "$DEST"
        git -C "$DEST" fetch -q "$DIXIT_ACT_REPO" '+refs/*:refs/remotes/src/*'
        git -C "$DEST" -c advice.detachedHead=false checkout -q --detach "$REF"
EOF
stub setup-go <<'EOF'
name: "setup-go, offline stand-in: the host's Go"
inputs:
  go-version: {required: true}
  cache: {required: false}
runs:
  using: composite
  steps:
    - shell: bash
      run: go version
EOF
stub upload-artifact <<'EOF'
name: "upload-artifact, offline stand-in: copy to DIXIT_ACT_ARTIFACTS"
inputs:
  name: {required: true}
  path: {required: true}
  retention-days: {required: false}
  if-no-files-found: {required: false}
runs:
  using: composite
  steps:
    - shell: bash
      env:
        NAME: ${{ inputs.name }}
        SRC: ${{ inputs.path }}
      run: |
        test -f "$SRC" || { echo "no files at $SRC"; exit 1; }
        mkdir -p "$DIXIT_ACT_ARTIFACTS/$NAME" && cp "$SRC" "$DIXIT_ACT_ARTIFACTS/$NAME/"
EOF
stub cache <<'EOF'
name: "cache, offline stand-in: nothing restored or saved (act runs without a cache server)"
inputs:
  path: {required: true}
  key: {required: true}
  restore-keys: {required: false}
outputs:
  cache-hit:
    value: "false"
runs:
  using: composite
  steps:
    - shell: bash
      run: echo "no cache offline"
EOF
local_repos=()
for u in $uses; do
	name=${u#actions/}
	name=${name%@*}
	local_repos+=(--local-repository "$u=$work/actions/$name")
done

shims="$work/shims"
mkdir -p "$shims"
if ! command -v sudo >/dev/null && [[ $(id -u) == 0 ]]; then
	printf '#!/bin/sh\nexec env "$@"\n' >"$shims/sudo" && chmod +x "$shims/sudo"
fi

# 4. Run the workflow.
artifacts="$work/artifacts"
coders=$(printf '[{"name": "basil", "ref": "%s"}]' "$coder_commit")
act_start=$(date +%s)
(cd "$repo" && "$ACT" workflow_dispatch -W .github/workflows/dixit-classify.yml \
	-P ubuntu-24.04=-self-hosted --no-cache-server --action-offline-mode "${local_repos[@]}" \
	--input run_id=act --input batch_id=act-1 --input batch_ref="$batch_commit" \
	--input coders="$coders" --input reruns="$RERUNS" --input bot_version="$version" \
	--env DIXIT_ACT_REPO="$repo" --env DIXIT_ACT_ARTIFACTS="$artifacts" \
	--env GOPROXY="file://$work/goproxy,https://proxy.golang.org" --env GONOSUMDB=github.com/dixit-bot/dixit \
	--env GOFLAGS=-trimpath --env PATH="$shims:$PATH") >"$work/act.log" 2>&1 || {
	tail -40 "$work/act.log"
	echo "act failed (log: $work/act.log)" >&2
	exit 1
}
act_seconds=$(($(date +%s) - act_start))

# 5. The same batch and tree through bot classify directly: the local judge.
(cd "$HERE" && go build -o "$work/bot" ./cmd/bot)
"$work/bot" classify --tree "$coder_tree" --tests "$batch_src/batch.json" --coder basil \
	--out "$work/local/results.json" --sandbox bwrap >/dev/null

python3 - "$artifacts/dixit-results-basil/results.json" "$work/local/results.json" <<'EOF'
import json, sys
act, local = (json.load(open(p)) for p in sys.argv[1:])
key = lambda r: (r["tree"], r["reruns"], [(t["id"], t["sha256"], t["outcome"], t["runs"], t.get("failed_run")) for t in r["tests"]])
for t in act["tests"]:
    print(f'  {t["id"]:10} {t["outcome"]:13} runs {t["runs"]}')
if key(act) != key(local):
    print("MISMATCH\nact:   ", key(act), "\nlocal: ", key(local))
    sys.exit(1)
print(f'act results.json equals the local judge\'s (tree {act["tree"]}, {act["isolation"]}, classify {act["seconds"]} s)')
EOF
echo "act run: ${act_seconds} s; whole script: $(($(date +%s) - start)) s"
# Record which workflow passed, so CI runs this again only when the workflow changes.
(cd "$HERE" && sha256sum internal/ci/classify/workflow/dixit-classify.yml | cut -d' ' -f1 >internal/ci/classify/workflow/act-verified.sha256)
