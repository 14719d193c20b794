// Command journal measures the journal's share of the demo's wall time: it runs the demo
// once on a fresh state directory (fresh verdicts, a warm Go build cache) and reports the
// time spent making effects durable against the whole run.
//
//	go run ./bench/journal [-population examples/semver]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dixit-bot/dixit/internal/session"
)

func main() {
	population := flag.String("population", "examples/semver", "population to run")
	cache := flag.String("cache", filepath.Join(os.TempDir(), "dixit-bench-gocache"), "Go build cache kept between invocations")
	flag.Parse()
	if err := run(*population, *cache); err != nil {
		fmt.Fprintln(os.Stderr, "journal:", err)
		os.Exit(1)
	}
}

func run(population, cache string) error {
	state, err := os.MkdirTemp("", "dixit-bench-journal-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(state)
	out, err := session.Run(context.Background(), session.Options{Population: population, StateDir: state, BuildCache: cache})
	if err != nil {
		return err
	}
	s := out.Summary
	fmt.Printf("demo: %s in %.2f s wall; judge %.2f s (%d executions, %d cache hits)\n",
		s.Outcome, s.WallSeconds, s.Judge.Seconds, s.Judge.Executions, s.Judge.CacheHits)
	fmt.Printf("journal: %d entries, %.3f s writing = %.2f %% of wall time (target < 5 %%), %.2f ms per entry\n",
		s.Journal.Entries, s.Journal.Seconds, 100*s.Journal.Seconds/s.WallSeconds, 1000*s.Journal.Seconds/float64(max(s.Journal.Entries, 1)))
	return nil
}
