#!/usr/bin/env bash
# Reproduces the load figures in docs/performance.md: the webhook intake at 200 req/s for
# 60 s and at 1,000 req/s for 10 s, and the orchestrator's growth grid.
#
#   bench/load.sh [webhook|growth|all] [output dir]
#
# The machine's description goes first, load average included: the figures mean little
# on a machine busy with other work.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
out=${2:-$(mktemp -d -t dixit-load-XXXXXX)}
mkdir -p "$out"

machine() {
	echo "cores: $(nproc)"
	free -g | sed -n 1,2p
	go version
	tmp=${TMPDIR:-/tmp} # where t.TempDir puts the queue and the workshop
	echo "temp dir $tmp:"
	df -T "$tmp" | tail -1
	lsblk -d -o NAME,ROTA,SIZE,MODEL 2>/dev/null || true
	echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
}

machine | tee "$out/machine.txt"

if [[ $what == webhook || $what == all ]]; then
	DIXIT_LOAD=60s go test ./internal/webhook -run '^TestLoad$' -v -count=1 -timeout 10m |
		tee "$out/webhook-200x60s.txt"
	echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/webhook-200x60s.txt"
	DIXIT_LOAD=10s DIXIT_LOAD_RATE=1000 go test ./internal/webhook -run '^TestLoad$' -v -count=1 -timeout 10m |
		tee "$out/webhook-1000x10s.txt"
	echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/webhook-1000x10s.txt"
fi

if [[ $what == growth || $what == all ]]; then
	go test ./internal/orchestrate -run '^$' -bench Growth -benchtime 3x -count 1 -timeout 30m |
		tee "$out/growth.txt"
	echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/growth.txt"
fi
echo "results in $out"
