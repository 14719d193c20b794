// Package scripted is the agent backend for tests and the demo: hand-written coders and
// testers read from a population directory stand in for an LLM.
//
// A population directory holds:
//
//	spec.md               the spec, as an issue body would state it
//	dixit.yml             run settings (same schema as .github/dixit.yml)
//	base/                 the repository at the base revision
//	coders/<name>/<k>/    the coder's complete tree after its k-th solve (k = 1, 2, …)
//	coders/<name>/<k>.diff  or the change from base/ (a unified diff, as git diff writes
//	                      it): a big repository is not copied per coder version
//	testers/<name>/<k>/   the tester's k-th proposal: one test file, at the top for the
//	                      contract's default place, or at the path the tester names
//	                      (testers/ann/1/internal/clamp/clamp_more_test.go)
//	testers/<name>/<k>.diff  or a diff of one of base/'s test files that adds or changes
//	                      test functions (Python): only those run (ci.ApplyTestDiff)
package scripted

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/patchdiff"
)

// Population is a validated population directory.
type Population struct {
	Dir      string
	Spec     string
	Settings config.Settings
	Coders   []Script // each version is a directory: the coder's whole tree
	Testers  []Script // each version is a file: one proposed test
	Advisors []Script // each version is a file: one answer (critics, navigators)
	// Replacements are the fresh coders a human's `replace` brings in, named after the
	// coder they replace (dee_2 replaces dee, dee_3 replaces dee_2); trees, as coders.
	Replacements []Script
	// Probe is the file probe/ holds, if any: the program differential testing runs on
	// every implementation that passes the vetted suite (docs/differential.md).
	Probe string
}

// Script is one scripted agent: its name and its answers in order.
type Script struct {
	Name     string
	Versions []string
	// Places are a tester's named places, one per version: the proposal's path under
	// its version directory, or "" when the file is at the top (the default place).
	Places []string
	// Base is the population's base/ for a coder: a version that is a diff
	// (<k>.diff) is applied to it. Every coder shares one, read once.
	Base *Base
	// Diffs are a tester's versions given as diffs (<k>.diff), read against base/ when
	// the population loads; nil for a version that is a file.
	Diffs []*ci.DiffTest
}

var (
	agentName       = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)
	replacementName = regexp.MustCompile(`^[a-z][a-z0-9_]*_[0-9]+$`)
)

// Replacement returns the script of the fresh coder named name, if the population has one.
func (p *Population) Replacement(name string) (Script, bool) {
	for _, r := range p.Replacements {
		if r.Name == name {
			return r, true
		}
	}
	return Script{}, false
}

// maxSpec bounds the spec: an issue body is at most 65,536 characters on GitHub.
const maxSpec = 256 << 10

// Load reads and checks a population directory; every problem names the path at fault.
func Load(dir string) (*Population, error) {
	p := &Population{Dir: dir}
	spec, err := os.ReadFile(filepath.Join(dir, "spec.md"))
	if err != nil {
		return nil, fmt.Errorf("population %s: %w", dir, err)
	}
	if strings.TrimSpace(string(spec)) == "" || len(spec) > maxSpec {
		return nil, fmt.Errorf("population %s: spec.md must hold a spec of at most %d bytes", dir, maxSpec)
	}
	p.Spec = string(spec)
	if p.Settings, err = config.Load(filepath.Join(dir, "dixit.yml")); err != nil {
		return nil, fmt.Errorf("population %s: %w", dir, err)
	}
	if info, err := os.Stat(filepath.Join(dir, "base")); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("population %s: base/ must be a directory holding the repository at the base revision", dir)
	}
	if p.Coders, err = loadScripts(filepath.Join(dir, "coders"), true); err != nil {
		return nil, fmt.Errorf("population %s: %w", dir, err)
	}
	base := &Base{Dir: filepath.Join(dir, "base")}
	for i := range p.Coders {
		p.Coders[i].Base = base
		if err := checkDiffs(p.Coders[i], "coders"); err != nil {
			return nil, fmt.Errorf("population %s: %w", dir, err)
		}
	}
	if p.Testers, err = loadScripts(filepath.Join(dir, "testers"), false); err != nil && !(os.IsNotExist(errors.Unwrap(err)) && p.Settings.Testers == 0) {
		return nil, fmt.Errorf("population %s: %w", dir, err)
	}
	for i := range p.Testers {
		if err := readTestDiffs(&p.Testers[i], filepath.Join(dir, "base"), p.Settings.Test); err != nil {
			return nil, fmt.Errorf("population %s: %w", dir, err)
		}
	}
	for _, t := range p.Testers {
		for k, place := range t.Places {
			if place == "" {
				continue
			}
			if err := ci.CheckTestPath(p.Settings.Test, place); err != nil {
				return nil, fmt.Errorf("population %s: testers/%s/%d: %w", dir, t.Name, k+1, err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "advisors")); err == nil {
		if p.Advisors, err = loadScripts(filepath.Join(dir, "advisors"), false); err != nil {
			return nil, fmt.Errorf("population %s: %w", dir, err)
		}
		for _, a := range p.Advisors {
			for k, v := range a.Versions {
				if strings.HasSuffix(v, ".diff") {
					return nil, fmt.Errorf("population %s: advisors/%s/%d.diff: an advisor answers in words: expected a directory named %d", dir, a.Name, k+1, k+1)
				}
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "replacements")); err == nil {
		if p.Replacements, err = loadScripts(filepath.Join(dir, "replacements"), true); err != nil {
			return nil, fmt.Errorf("population %s: %w", dir, err)
		}
		for i, r := range p.Replacements {
			if !replacementName.MatchString(r.Name) {
				return nil, fmt.Errorf("population %s: replacements/%s: a replacement is named after the coder it replaces, as dee_2 or dee_3", dir, r.Name)
			}
			p.Replacements[i].Base = base
			if err := checkDiffs(p.Replacements[i], "replacements"); err != nil {
				return nil, fmt.Errorf("population %s: %w", dir, err)
			}
		}
	}
	if len(p.Coders) != p.Settings.Coders {
		return nil, fmt.Errorf("population %s: dixit.yml says coders: %d, but coders/ holds %d", dir, p.Settings.Coders, len(p.Coders))
	}
	if len(p.Testers) != p.Settings.Testers {
		return nil, fmt.Errorf("population %s: dixit.yml says testers: %d, but testers/ holds %d", dir, p.Settings.Testers, len(p.Testers))
	}
	if info, err := os.Stat(filepath.Join(dir, "probe")); err == nil && info.IsDir() {
		if p.Probe, _, err = onlyFile(filepath.Join(dir, "probe")); err != nil {
			return nil, fmt.Errorf("population %s: probe/: %w", dir, err)
		}
	}
	seen := map[string]string{}
	roles := []struct {
		name    string
		scripts []Script
	}{{"coder", p.Coders}, {"tester", p.Testers}, {"advisor", p.Advisors}, {"replacement", p.Replacements}}
	for _, r := range roles {
		role := r.name
		for _, s := range r.scripts {
			if other, ok := seen[s.Name]; ok {
				return nil, fmt.Errorf("population %s: %q is both a %s and a %s", dir, s.Name, other, role)
			}
			seen[s.Name] = role
		}
	}
	return p, nil
}

// loadScripts reads <root>/<name>/<k>/ for every agent. Coders' versions are trees;
// testers' are directories with exactly one regular file, which becomes the version.
func loadScripts(root string, trees bool) ([]Script, error) {
	rel := filepath.Base(root) + "/"
	agents, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	var out []Script
	for _, a := range agents {
		if !a.IsDir() {
			return nil, fmt.Errorf("%s%s: expected a directory per agent", rel, a.Name())
		}
		if !agentName.MatchString(a.Name()) {
			return nil, fmt.Errorf("%s%s: agent names are lower-case letters, digits and _ (at most 32)", rel, a.Name())
		}
		s := Script{Name: a.Name()}
		entries, err := os.ReadDir(filepath.Join(root, a.Name()))
		if err != nil {
			return nil, fmt.Errorf("%s%s: %w", rel, a.Name(), err)
		}
		ks := make([]int, 0, len(entries))
		diffs := map[int]bool{}
		for _, e := range entries {
			name, diff := strings.CutSuffix(e.Name(), ".diff")
			diff = diff && e.Type().IsRegular()
			k, err := strconv.Atoi(name)
			if err != nil || k < 1 || !(e.IsDir() || diff) || strconv.Itoa(k) != name {
				want := "directories named 1, 2, 3, … (or diffs from base/ named 1.diff, 2.diff, …)"
				return nil, fmt.Errorf("%s%s/%s: expected %s", rel, a.Name(), e.Name(), want)
			}
			if diffs[k] || (diff && slices.Contains(ks, k)) {
				return nil, fmt.Errorf("%s%s: version %d is both a directory and a diff", rel, a.Name(), k)
			}
			diffs[k] = diff
			ks = append(ks, k)
		}
		sort.Ints(ks)
		for i, k := range ks {
			if k != i+1 {
				return nil, fmt.Errorf("%s%s: version %d is missing", rel, a.Name(), i+1)
			}
			dir := filepath.Join(root, a.Name(), strconv.Itoa(k))
			if !trees && diffs[k] {
				s.Versions = append(s.Versions, dir+".diff")
				s.Places = append(s.Places, "")
				continue
			}
			if trees {
				if diffs[k] {
					dir += ".diff"
				}
				s.Versions = append(s.Versions, dir)
				continue
			}
			file, place, err := onlyFile(dir)
			if err != nil {
				return nil, fmt.Errorf("%s%s/%d: %w", rel, a.Name(), k, err)
			}
			s.Versions = append(s.Versions, file)
			s.Places = append(s.Places, place)
		}
		if trees && len(s.Versions) == 0 {
			return nil, fmt.Errorf("%s%s: a coder needs at least version 1", rel, a.Name())
		}
		out = append(out, s)
	}
	return out, nil
}

// onlyFile finds a proposal's one regular file, at the top of dir or down a chain of
// directories that hold nothing else; place is its path under dir when it is not at
// the top.
func onlyFile(dir string) (file, place string, err error) {
	var parts []string
	for cur := dir; ; {
		entries, err := os.ReadDir(cur)
		if err != nil {
			return "", "", err
		}
		if len(entries) != 1 {
			where := ""
			if len(parts) > 0 {
				where = " in " + strings.Join(parts, "/") + "/"
			}
			return "", "", fmt.Errorf("a proposal is exactly one regular file (found %d entries%s)", len(entries), where)
		}
		e := entries[0]
		cur = filepath.Join(cur, e.Name())
		parts = append(parts, e.Name())
		switch {
		case e.Type().IsRegular() && len(parts) == 1:
			return cur, "", nil
		case e.Type().IsRegular():
			return cur, strings.Join(parts, "/"), nil
		case !e.IsDir():
			return "", "", fmt.Errorf("a proposal is exactly one regular file (%s is not one)", strings.Join(parts, "/"))
		}
	}
}

// readTestDiffs reads every version of a tester that is a diff against base/, so that
// one the judge would refuse (it does not apply, or adds or changes no test function)
// is said when the population loads, with the reason a live tester would be told.
func readTestDiffs(s *Script, base string, c ci.Contract) error {
	s.Diffs = make([]*ci.DiffTest, len(s.Versions))
	for k, v := range s.Versions {
		if !strings.HasSuffix(v, ".diff") {
			continue
		}
		where := fmt.Sprintf("testers/%s/%d.diff", s.Name, k+1)
		data, err := os.ReadFile(v)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		root, err := os.OpenRoot(base)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		d, err := ci.ApplyTestDiff(c, data, root.FS())
		root.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		s.Diffs[k] = &d
	}
	return nil
}

// checkDiffs applies every version of a coder (under root: coders or replacements) that
// is a diff, so that one that does not apply to base/ is said when the population loads,
// not in the middle of a run.
func checkDiffs(s Script, root string) error {
	for k, v := range s.Versions {
		if !strings.HasSuffix(v, ".diff") {
			continue
		}
		if _, err := patchedFiles(s.Base, v); err != nil {
			return fmt.Errorf("%s/%s/%d.diff: %w", root, s.Name, k+1, err)
		}
	}
	return nil
}

// Base is a population's base/, read once however many coder versions are diffs of it:
// a big repository's tree (sympy: 25 MB) takes a second to read.
type Base struct {
	Dir string

	once  sync.Once
	files []gitstate.File
	err   error
}

// Files are base/'s files; the caller must not change them.
func (b *Base) Files() ([]gitstate.File, error) {
	b.once.Do(func() {
		snap, err := gitstate.ReadDir(b.Dir)
		if err != nil {
			b.err = fmt.Errorf("read base/: %w", err)
			return
		}
		b.files = snap.Files()
	})
	return b.files, b.err
}

// patchedFiles is base with the diff in file applied: the coder's whole tree.
func patchedFiles(base *Base, file string) ([]gitstate.File, error) {
	if base == nil {
		return nil, errors.New("a diff needs the population's base/")
	}
	files, err := base.Files()
	if err != nil {
		return nil, err
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	files, err = patchdiff.Apply(files, f)
	if errors.Is(err, patchdiff.ErrNoDiff) {
		return nil, errors.New("holds no diff")
	}
	if err != nil {
		return nil, fmt.Errorf("does not apply to base/: %w", err)
	}
	return files, nil
}
