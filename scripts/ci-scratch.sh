#!/usr/bin/env bash
# Prints a new directory in /dev/shm for a test run's scratch space (TMPDIR), or fails
# when /dev/shm is not a tmpfs, runs no programs (mounted noexec) or has less than
# DIXIT_SCRATCH_MIN_GB (default 6) free: a full test run keeps about 2 GB there at its peak.
set -euo pipefail
shm=/dev/shm
min_gb=${DIXIT_SCRATCH_MIN_GB:-6}
[ "$(stat -f -c %T "$shm" 2>/dev/null)" = tmpfs ] || exit 1
avail_kb=$(df --output=avail -k "$shm" | tail -n 1 | tr -d ' ')
[ "$avail_kb" -ge $((min_gb * 1024 * 1024)) ] || exit 1
dir=$(mktemp -d -p "$shm" dixit-ci.XXXXXX)
chmod 755 "$dir" # the judge's lanes (other uids) reach their job directories through it
printf '#!/bin/sh\nexit 0\n' >"$dir/exec-check"
chmod +x "$dir/exec-check"
if ! "$dir/exec-check" 2>/dev/null; then
  rm -rf "$dir"
  exit 1
fi
rm -f "$dir/exec-check"
echo "$dir"
