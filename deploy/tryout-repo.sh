#!/bin/sh
# Makes the try-out repository for a server started with DIXIT_POPULATION=examples/semver
# (docs/install.md, "Try it without a model"): the demo's base/ files in a new git
# repository, pushed to a new private repository OWNER/NAME when the GitHub CLI is logged in.
# Usage: deploy/tryout-repo.sh OWNER/NAME [DIR]   (DIR defaults to NAME)
set -eu
case "${1:-}" in
*/*) ;;
*) echo "usage: $0 OWNER/NAME [DIR]: the repository to create on GitHub, such as acme/dixit-tryout" >&2; exit 2 ;;
esac
repo=$1
dir=${2:-${repo#*/}}
gh=${GH:-gh}
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -e "$dir" ]; then
	echo "$dir exists already: give another DIR as the second argument" >&2
	exit 1
fi
mkdir -p "$dir"
cp -R "$root/examples/semver/base/." "$dir/"
git -C "$dir" init -q -b main
git -C "$dir" add -A
git -C "$dir" -c user.name="${GIT_AUTHOR_NAME:-Dixit try-out}" -c user.email="${GIT_AUTHOR_EMAIL:-tryout@dixit.invalid}" \
	commit -q -m "The semver example's base files, for trying Dixit"
echo "Made $dir: the base files of examples/semver, one commit on main."
if command -v "$gh" >/dev/null 2>&1 && "$gh" auth status >/dev/null 2>&1; then
	"$gh" repo create "$repo" --private --source "$dir" --remote origin --push
	pushed="pushed to https://github.com/$repo"
else
	pushed="not pushed (no logged-in gh): create the empty private repository $repo on GitHub, then
   git -C $dir remote add origin https://github.com/$repo.git && git -C $dir push -u origin main"
fi
cat <<EOF
It is $pushed
Next:
 1. Install the App on $repo (the install URL bot setup printed, or the App's page > Install App).
 2. Open the issue the demo's coders and testers answer, labelled dixit:
    $gh label create dixit --repo $repo --color 5319e7 2>/dev/null; $gh issue create --repo $repo --title "Compare semantic versions" --body-file $root/examples/semver/spec.md --label dixit
    (or paste examples/semver/spec.md into a new issue and add the label dixit by hand).
EOF
