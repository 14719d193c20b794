// Command mbppbuild builds data/mbpp-replay/problems.jsonl, the replay's second corpus:
// recorded LLM solutions to MBPP from three licensed repositories, every assert those
// sources hold for MBPP, and the pass matrix, computed by running the code with python3.
//
//	for r in huangd1999/AgentCoder noahshinn/reflexion FloridSleeves/LLMDebugger; do
//		git clone --bare https://github.com/$r mirrors/${r/\//+}/repo
//	done
//	go run ./internal/eval/mbppbuild -mirrors mirrors -out data/mbpp-replay/problems.jsonl
//
// -mirrors is a directory of bare clones, one per source repository, at
// <owner>+<name>/repo. Its inputs are pinned in inputs.go (repository, commit, path, blob),
// so any clone that holds those commits builds the same corpus; data/mbpp-replay/README.md
// says what was taken from each and why no source has LLM-written tests for MBPP.
package main

import (
	"context"
	_ "embed"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
)

//go:embed runner.py
var runnerPy []byte

type options struct {
	mirrors, out, python string
	jobs, limit          int
}

func main() {
	var o options
	flag.StringVar(&o.mirrors, "mirrors", "", "`DIR` of bare clones of the source repositories, at owner+name/repo (required)")
	flag.StringVar(&o.out, "out", "data/mbpp-replay/problems.jsonl", "the corpus `FILE` to write")
	flag.StringVar(&o.python, "python", "python3", "the python3 that runs the recorded code")
	flag.IntVar(&o.jobs, "jobs", 2, "problems run at once")
	flag.IntVar(&o.limit, "problems", 0, "only the first `N` problems (0: all)")
	flag.Parse()
	if o.mirrors == "" {
		fmt.Fprintln(os.Stderr, "mbppbuild: -mirrors DIR is required: a directory of bare clones at owner+name/repo (see go doc ./internal/eval/mbppbuild)")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(ctx, o, log); err != nil {
		fmt.Fprintln(os.Stderr, "mbppbuild:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options, log *slog.Logger) error {
	ps, skipped, err := load(ctx, o.mirrors)
	if err != nil {
		return err
	}
	if o.limit > 0 && o.limit < len(ps) {
		ps = ps[:o.limit]
	}
	dir, err := os.MkdirTemp("", "mbppbuild-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "runner.py")
	if err := os.WriteFile(script, runnerPy, 0o644); err != nil {
		return err
	}
	r := runner{python: o.python, script: script, scratch: dir, log: log}
	results, err := r.all(ctx, ps, o.jobs)
	if err != nil {
		return err
	}
	recs := make([]record, len(ps))
	for i, p := range ps {
		recs[i] = assemble(p, results[i])
	}
	if err := write(o.out, recs); err != nil {
		return err
	}
	summarise(os.Stdout, recs, results, skipped)
	return nil
}

// load reads every input and joins the solutions to MBPP's problems, in inputs() order.
// Within a source, a program recorded twice for a problem is kept once: AgentCoder's
// rounds copy a solved problem's program forward unchanged.
func load(ctx context.Context, mirrors string) ([]*problem, map[string]int, error) {
	ins := inputs()
	skipped := map[string]int{}
	var ps []*problem
	byNumber := map[int]*problem{}
	for i, in := range ins {
		data, err := in.read(ctx, mirrors)
		if err != nil {
			return nil, nil, err
		}
		if i == 0 {
			if ps, err = problems(data); err != nil {
				return nil, nil, err
			}
			for _, p := range ps {
				byNumber[p.Number] = p
			}
		}
		cs, err := coders(in, data, skipped)
		if err != nil {
			return nil, nil, err
		}
		for n, c := range cs {
			p, ok := byNumber[n]
			switch {
			case !ok:
				skipped["not in MBPP sanitized's test split"]++
			case c.Entry != "" && c.Entry != p.EntryPoint:
				skipped["the source renamed the entry point"]++
			case hasProgram(p, c):
				skipped["same program as an earlier coder of its source"]++
			default:
				p.Coders = append(p.Coders, c)
			}
		}
	}
	return ps, skipped, nil
}

func hasProgram(p *problem, c raw) bool {
	for _, o := range p.Coders {
		if o.Source == c.Source && o.Code == c.Code {
			return true
		}
	}
	return false
}
