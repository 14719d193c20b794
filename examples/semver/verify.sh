#!/usr/bin/env bash
# verify.sh — check the pass/fail matrix of the bundled "semver" population.
#
# For every coder version (coders/<name>/<k>/) and every tester proposal
# (testers/<name>/<k>/), this does what the judge does:
#   1. copy the coder's tree to a fresh temp dir and delete the coder's own *_test.go;
#   2. write the proposal there as dixit_x_test.go;
#   3. build once with `go test -c -o t.test .` (a build failure is a fail);
#   4. run `./t.test -test.count=1` up to RERUNS (20) times, stopping at the first failure.
# A cell is P when every run passed, F when a run failed, B when the build failed (also a fail).
# The matrix is printed and compared with the EXPECTED matrix below ('-' = don't care);
# the script exits 1 on any mismatch, 0 when everything matches.
#
# Usage:   examples/semver/verify.sh          (from anywhere)
# Env:     JOBS (parallel pairs, default: nproc), RERUNS (default 20), KEEP=1 keeps the temp dir.
# Offline: runs with GOFLAGS=-mod=mod GOPROXY=off GOWORK=off; the trees use the standard library only.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RERUNS=${RERUNS:-20}
export GOFLAGS=-mod=mod GOPROXY=off GOWORK=off

# pair CODER TESTER OUTFILE: judge one (coder version, tester proposal) pair, write P/F/B to OUTFILE.
if [[ ${1:-} == __pair ]]; then
	coder=$2 tester=$3 out=$4
	dir=$(mktemp -d "${TMPDIR:-/tmp}/dixit-verify.XXXXXX")
	trap 'rm -rf "$dir"' EXIT
	cp -R "$HERE/coders/$coder/." "$dir/"
	find "$dir" -name '*_test.go' -delete
	files=("$HERE/testers/$tester"/*)
	if [[ ${#files[@]} -ne 1 || ${files[0]} != *_test.go ]]; then
		echo "testers/$tester must hold exactly one *_test.go file" >&2
		echo "?" >"$out"
		exit 0
	fi
	cp "${files[0]}" "$dir/dixit_x_test.go"
	if ! (cd "$dir" && go test -c -o t.test . >build.log 2>&1); then
		echo B >"$out"
		exit 0
	fi
	for ((run = 1; run <= RERUNS; run++)); do
		if ! (cd "$dir" && ./t.test -test.count=1 -test.timeout=30s >run.log 2>&1); then
			echo "F $run" >"$out"
			exit 0
		fi
	done
	echo P >"$out"
	exit 0
fi

CODERS=(amber/1 basil/1 basil/2 basil/3 basil/4 basil/5 cedar/1 cedar/2 dune/1 dune/2 ember/1)
TESTERS=(ivy/1 ivy/2 ivy/3 ivy/4 ivy/5 ivy/6 jun/1 jun/2 kai/1 kai/2 kai/3 kai/4)

# One row per tester proposal, one column per coder version, in the order of CODERS.
# F also accepts B (a build failure is a failure).
declare -A EXPECTED=(
	#       amber basil      cedar dune ember
	#       1     1 2 3 4 5  1 2   1 2  1
	[ivy/1]="P    P P F P P  P P   P P  P"
	[ivy/2]="P    P P F P P  P P   P P  P"
	[ivy/3]="P    F F F P P  P P   P P  P"
	[ivy/4]="P    P P F P P  F P   F P  P"
	[ivy/5]="P    P P F P P  P P   P P  P"
	[ivy/6]="P    P P F P P  P P   P P  P"
	[jun/1]="F    F F F F F  F F   F F  F"
	[jun/2]="F    F F F F F  F F   F F  F"
	[kai/1]="P    F F F F P  F P   F P  P"
	[kai/2]="F    F F F F F  F F   F F  P"
	[kai/3]="P    - - F P P  - P   - P  P"
	[kai/4]="P    - - F P P  - P   - P  P"
)

# Sanity: the lists above must match what is on disk.
for c in "${CODERS[@]}"; do [[ -f $HERE/coders/$c/go.mod ]] || { echo "missing coders/$c/go.mod" >&2; exit 2; }; done
for t in "${TESTERS[@]}"; do [[ -d $HERE/testers/$t ]] || { echo "missing testers/$t" >&2; exit 2; }; done
[[ $(cd "$HERE" && ls -d coders/*/* | wc -l) -eq ${#CODERS[@]} ]] || { echo "coders/ holds versions not listed in CODERS" >&2; exit 2; }
for t in "${TESTERS[@]}"; do
	read -r -a row <<<"${EXPECTED[$t]:-}"
	[[ ${#row[@]} -eq ${#CODERS[@]} ]] || { echo "EXPECTED[$t] must have ${#CODERS[@]} cells" >&2; exit 2; }
done
[[ $(cd "$HERE" && ls -d testers/*/* | wc -l) -eq ${#TESTERS[@]} ]] || { echo "testers/ holds proposals not listed in TESTERS" >&2; exit 2; }

RES=$(mktemp -d "${TMPDIR:-/tmp}/dixit-verify-res.XXXXXX")
if [[ ${KEEP:-} == 1 ]]; then echo "results kept in $RES" >&2; else trap 'rm -rf "$RES"' EXIT; fi

start=$SECONDS
for t in "${TESTERS[@]}"; do
	for c in "${CODERS[@]}"; do
		printf '%s\0%s\0%s\0' "$c" "$t" "$RES/${t//\//_}__${c//\//_}"
	done
done | xargs -0 -n3 -P "${JOBS:-$(nproc)}" bash "${BASH_SOURCE[0]}" __pair

# Print the matrix and compare it with EXPECTED.
printf '%-7s' test
for c in "${CODERS[@]}"; do printf ' %-7s' "$c"; done
echo
mismatches=()
for t in "${TESTERS[@]}"; do
	read -r -a want <<<"${EXPECTED[$t]}"
	printf '%-7s' "$t"
	for i in "${!CODERS[@]}"; do
		c=${CODERS[$i]}
		read -r got runs <"$RES/${t//\//_}__${c//\//_}" || got='?'
		cell=$got
		[[ $got == F && ${runs:-} != 1 ]] && cell="F@$runs" # flaky: first failure at run N
		ok=1
		case ${want[$i]} in
		-) ;;
		P) [[ $got == P ]] || ok=0 ;;
		F) [[ $got == F || $got == B ]] || ok=0 ;;
		*) ok=0 ;;
		esac
		if ((ok)); then
			printf ' %-7s' "$cell"
		else
			printf ' %-7s' "$cell!"
			mismatches+=("$t on $c: got $got, want ${want[$i]}")
		fi
	done
	echo
done
echo "P pass (all $RERUNS runs)   F fail (F@N: first failure at run N)   B build failure (a fail)   ! unexpected"
echo "$(( ${#CODERS[@]} * ${#TESTERS[@]} )) pairs in $((SECONDS - start))s"

if ((${#mismatches[@]})); then
	printf 'MISMATCH: %s\n' "${mismatches[@]}" >&2
	exit 1
fi
echo "OK: matrix matches the expected scenario"
