// Package swepop writes a scripted population (docs/populations.md) from one instance of
// a swe-sympy style corpus: the issue as the spec, sympy at the base revision as base/,
// real agents' patches as the coders (one version each, a diff from base/), real LLM
// test patches as the testers (one proposal each, a diff of an existing test file) and
// a further agent patch held out of the run, for `bot vet`. The patches left in the pool
// after those become replacements (docs/decisions.md): a coder that a human replaces
// is played by the next unused patch, a fresh independent agent, as a live run would
// bring one in.
//
// Nothing is chosen by its label: the coders are the first distinct patches of the
// instance in the corpus' order from sources that publish wrong patches too, and the
// held-out patches are the next ones. Labels, when a pass matrix of the instance is at
// hand, are written beside the population (held-out/labels.json) so that a reader can
// compare `bot vet`'s verdict with SWE-bench's; the run never reads them.
package swepop

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/swebench"
)

// Request says what to write.
type Request struct {
	Corpus  *swebench.Corpus
	Bases   *swebench.Bases
	Coders  int    // coders of the run (3 or more)
	Testers int    // at most this many testers, the first distinct test patches; 0: all
	HeldOut int    // agent patches held out for bot vet
	Out     string // the population is written to Out/<instance id>
	// Labels are SWE-bench's labels of the instance's coder patches by name (true:
	// resolved), from its pass matrix; nil when none is at hand.
	Labels map[string]bool
}

// Written is what Write made.
type Written struct {
	Dir     string
	Coders  []string // the corpus' names of the coder patches, in order
	Testers []string // the corpus' names of the test patches given to testers
	Left    []string // test patches left out, each with why
	HeldOut []string // the files under held-out/, relative to Dir
	// Replacements are the corpus' names of the patches under replacements/, each named
	// in the population after the coder it replaces.
	Replacements []string
	// Names maps every coder's and replacement's name in the population to the corpus'.
	Names map[string]string
}

// Write makes the population of inst under r.Out. inst's patches must be loaded
// (Corpus.LoadPatches). An existing population directory is refused rather than mixed.
func (r Request) Write(inst *swebench.Instance) (*Written, error) {
	dir := filepath.Join(r.Out, inst.ID)
	if _, err := os.Stat(dir); err == nil {
		return nil, fmt.Errorf("%s already exists: remove it, or write the populations elsewhere", dir)
	}
	base, err := r.Bases.Base(inst)
	if err != nil {
		return nil, err
	}
	coders, held, spare := choose(inst.Coders, r.Coders, r.HeldOut, base)
	if len(coders) < r.Coders {
		return nil, fmt.Errorf("%s: %d distinct coder patches apply to the base, %d wanted", inst.ID, len(coders), r.Coders)
	}
	if err := os.MkdirAll(filepath.Join(dir, "base"), 0o755); err != nil {
		return nil, err
	}
	if err := base.WriteTo(filepath.Join(dir, "base")); err != nil {
		return nil, fmt.Errorf("write base/: %w", err)
	}
	w := &Written{Dir: dir, Names: map[string]string{}}
	for i, c := range coders {
		name := AgentName(c.Name)
		if err := writeFile(filepath.Join(dir, "coders", name, "1.diff"), c.Diff); err != nil {
			return nil, err
		}
		w.Coders = append(w.Coders, c.Name)
		w.Names[name] = c.Name
		// The spare patches take turns: coder i's k-th replacement is spare i + k·n.
		for k, j := 2, i; j < len(spare); k, j = k+1, j+len(coders) {
			successor := fmt.Sprintf("%s_%d", name, k)
			if err := writeFile(filepath.Join(dir, "replacements", successor, "1.diff"), spare[j].Diff); err != nil {
				return nil, err
			}
			w.Names[successor] = spare[j].Name
			w.Replacements = append(w.Replacements, spare[j].Name)
		}
	}
	contract, _ := languages.Preset("python")
	root, err := os.OpenRoot(filepath.Join(dir, "base"))
	if err != nil {
		return nil, err
	}
	defer root.Close()
	for _, t := range inst.Tests {
		if why := refused(t, contract, root.FS()); why != "" {
			w.Left = append(w.Left, t.Name+": "+why)
			continue
		}
		if r.Testers > 0 && len(w.Testers) == r.Testers {
			w.Left = append(w.Left, t.Name+": more testers than asked for")
			continue
		}
		if err := writeFile(filepath.Join(dir, "testers", AgentName(t.Name), "1.diff"), t.Diff); err != nil {
			return nil, err
		}
		w.Testers = append(w.Testers, t.Name)
	}
	if len(w.Testers) == 0 {
		return nil, fmt.Errorf("%s: no test patch is one the judge runs (%s)", inst.ID, strings.Join(w.Left, "; "))
	}
	for _, c := range held {
		name := filepath.Join("held-out", c.Name+".diff")
		if err := writeFile(filepath.Join(dir, name), c.Diff); err != nil {
			return nil, err
		}
		w.HeldOut = append(w.HeldOut, name)
	}
	if err := r.writeText(inst, w); err != nil {
		return nil, err
	}
	return w, nil
}

// choose returns the first n distinct coder patches that apply to the base, the next
// held ones, and the rest (spare), skipping sources that publish only resolved patches
// (a pool of those would tell nothing) and patches the corpus marks as another's
// duplicate.
func choose(all []swebench.Coder, n, held int, base *swebench.Tree) (coders, out, spare []swebench.Coder) {
	seen := map[string]bool{}
	for _, c := range all {
		if c.ResolvedOnlySource || c.DuplicateOf != "" {
			continue
		}
		p, err := swebench.ParsePatch(c.Name, c.Diff)
		if err != nil || seen[p.Normalised()] {
			continue
		}
		if _, err := base.Patched(p); err != nil {
			continue
		}
		seen[p.Normalised()] = true
		switch {
		case len(coders) < n:
			coders = append(coders, c)
		case len(out) < held:
			out = append(out, c)
		default:
			spare = append(spare, c)
		}
	}
	return coders, out, spare
}

// refused says why the judge would not take a test patch as a proposal, or "".
func refused(t swebench.TestPatch, c ci.Contract, base fs.FS) string {
	if t.DuplicateOf != "" {
		return "the same test as " + t.DuplicateOf
	}
	if _, err := ci.ApplyTestDiff(c, t.Diff, base); err != nil {
		return err.Error()
	}
	return ""
}

var (
	notName    = regexp.MustCompile(`[^a-z0-9_]+`)
	lastNumber = regexp.MustCompile(`_([0-9]+)$`)
)

// AgentName is a population's name for a corpus patch: lower case, _ for the rest,
// starting with a letter, at most 30 characters, and never ending in _<number>, which
// is how replacements are named (agentless-gpt4o-2 is agentless_gpt4o2, whose fresh
// successor is agentless_gpt4o2_2).
func AgentName(s string) string {
	n := notName.ReplaceAllString(strings.ToLower(s), "_")
	if n == "" || n[0] < 'a' || n[0] > 'z' {
		n = "a_" + n
	}
	if len(n) > 30 {
		n = n[:30]
	}
	return lastNumber.ReplaceAllString(strings.TrimRight(n, "_"), "$1")
}

func writeFile(name string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, data, 0o644)
}

// dixitYML is the population's dixit.yml: the python preset on Debian's python3 (sympy
// needs mpmath, and PyPI may be out of reach), one run per (test, coder), and the
// repository's affected tests as the guard.
const dixitYML = `# A sympy issue of SWE-bench Verified, played by real agents' patches (coders) and real
# LLM-written test patches (testers); written by bot eval --populations.
coders: %d
testers: %d
reruns: 1               # sympy's tests are deterministic, and a run of one costs seconds
max_tester_retries: 1   # a scripted tester has one proposal
max_coder_retries: 1    # a scripted coder has one version: it cannot catch up
max_rounds: %d
existing_tests: affected # the sympy test files a coder's change reaches, not the hour-long suite
test:
  preset: python
  toolchain_path: /usr/bin/python3 # Debian's, with python3-pytest and python3-mpmath
  requires: [mpmath]
  prepare: ""            # sympy needs nothing beyond mpmath, which the toolchain has
  timeout: 120s
  env:
    PYTEST_ADDOPTS: --assert=plain # rewriting a big test module's asserts costs more than its test
`

// writeText writes spec.md, dixit.yml and SOURCES.md, and held-out/labels.json when
// the labels are known.
func (r Request) writeText(inst *swebench.Instance, w *Written) error {
	dir := w.Dir
	if err := writeFile(filepath.Join(dir, "spec.md"), []byte(strings.TrimSpace(inst.ProblemStatment)+"\n")); err != nil {
		return err
	}
	yml := fmt.Sprintf(dixitYML, len(w.Coders), len(w.Testers), len(w.Testers)+2)
	if err := writeFile(filepath.Join(dir, "dixit.yml"), []byte(yml)); err != nil {
		return err
	}
	if _, err := config.Load(filepath.Join(dir, "dixit.yml")); err != nil {
		return fmt.Errorf("the written dixit.yml does not load: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nWritten by `bot eval --populations` from the swe-sympy corpus (%s); see that folder's README for the sources and their licences (every patch keeps the licence of the file it came from, listed in its sources.json). sympy is BSD-3-Clause (Copyright (c) 2006-2023 SymPy Development Team); SWE-bench is MIT (Copyright (c) 2023 Princeton NLP).\n\n", inst.ID, r.Corpus.Dir)
	fmt.Fprintf(&b, "- base: sympy at %s (bases.git %s)\n", inst.BaseCommit, inst.BaseRef)
	for _, list := range []struct {
		what  string
		names []string
	}{{"coders", w.Coders}, {"testers", w.Testers}, {"held out for bot vet", w.HeldOut}, {"replacements (in turn)", w.Replacements}, {"test patches left out", w.Left}} {
		fmt.Fprintf(&b, "- %s: %s\n", list.what, strings.Join(list.names, ", "))
	}
	if err := writeFile(filepath.Join(dir, "SOURCES.md"), []byte(b.String())); err != nil {
		return err
	}
	if r.Labels == nil {
		return nil
	}
	labels := map[string]string{}
	for _, n := range append(append(append([]string{}, w.Coders...), heldNames(w.HeldOut)...), w.Replacements...) {
		if res, ok := r.Labels[n]; ok {
			labels[n] = map[bool]string{true: "resolved", false: "unresolved"}[res]
		}
	}
	data, err := json.MarshalIndent(labels, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "held-out", "labels.json"), append(data, '\n'))
}

func heldNames(files []string) []string {
	var out []string
	for _, f := range files {
		out = append(out, strings.TrimSuffix(filepath.Base(f), ".diff"))
	}
	return out
}

// Labels reads SWE-bench's label of every coder patch from an instance's pass matrix
// (bench/swematrix, bot eval --corpus); nil when the file is not there or not a matrix.
func Labels(matrixFile string) map[string]bool {
	data, err := os.ReadFile(matrixFile)
	if err != nil {
		return nil
	}
	var m swebench.Matrix
	if json.Unmarshal(data, &m) != nil || len(m.Coders) == 0 {
		return nil
	}
	out := map[string]bool{}
	for _, c := range m.Coders {
		out[c.Name] = c.Resolved
	}
	return out
}
