package ci

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/dixit-bot/dixit/internal/ci/languages"
)

// BenchmarkProofPerRun measures what proving a pass costs per run. For each preset, one
// passing job runs once and then 41 times in one sandbox, under the preset as shipped
// (with its report) and under the same preset judged on exit status alone, the two in
// turn so that the machine's load weighs on both alike. A run's cost is the difference
// of the two timings over the 40 extra runs, build and sandbox start left out:
//
//	go test ./internal/ci/ -run '^$' -bench ProofPerRun -benchtime 10x
func BenchmarkProofPerRun(b *testing.B) {
	const reruns = 41
	for _, preset := range []string{"go", "python", "node"} {
		b.Run(preset, func(b *testing.B) {
			proven := benchContract(b, preset)
			judges := []*Local{benchJudge(b, exitStatusOnly(proven)), benchJudge(b, proven)}
			tree, test := coderBase(preset)
			jobs := []Job{{Coder: "bench", Tree: tree, Test: Test{ID: "bench", Content: []byte(test)}}}
			timed := func(l *Local, runs int) time.Duration {
				start := time.Now()
				vs, err := l.Run(context.Background(), runs, jobs)
				if err != nil || vs[0].Outcome != Pass {
					b.Fatalf("%v %+v", err, vs)
				}
				return time.Since(start)
			}
			for _, l := range judges {
				timed(l, 1) // warm the build cache
			}
			var extra [2]time.Duration
			for b.Loop() {
				for i, l := range judges {
					extra[i] += timed(l, reruns) - timed(l, 1)
				}
			}
			perRun := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N*(reruns-1)) }
			b.ReportMetric(perRun(extra[0]), "ms/run-exit-only")
			b.ReportMetric(perRun(extra[1]), "ms/run-report")
		})
	}
}

func benchJudge(b *testing.B, c Contract) *Local {
	l, err := NewLocal(LocalOptions{Contract: c, WorkDir: b.TempDir(), CacheDir: sharedCache, Parallel: 1, Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	return l
}

// benchContract is a preset with a short timeout, or a skip without its toolchain.
func benchContract(b *testing.B, preset string) Contract {
	probe := map[string][]string{"go": {"go", "version"}, "python": {"python3", "-c", "import pytest"}, "node": {"node", "-e", "0"}}[preset]
	if preset == "python" {
		pytestFirst(b)
	}
	if err := exec.Command(probe[0], probe[1:]...).Run(); err != nil {
		b.Skipf("%s: %v is unavailable here", preset, probe)
	}
	c, _ := languages.Preset(preset)
	c.Timeout = 20 * time.Second
	return c
}
