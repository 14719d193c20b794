package suites

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/ci/sandbox"
	"github.com/dixit-bot/dixit/internal/treeperm"
)

// layOut writes a suite job's directory: its tree (writeTree), the suite's
// own directory and the fallback mode's tmp/ and home/, all the lane's. It returns the
// pytest settings the runs take ("" for the tree's own).
func (r *Runner) layOut(dir string, job Job, lane sandbox.Lane) (string, error) {
	for _, d := range []string{"tmp", "home"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			return "", fmt.Errorf("job dir: %w", err)
		}
	}
	config, err := r.writeTree(dir, job)
	if err != nil {
		return "", err
	}
	if err := contract.PlaceDir(filepath.Join(dir, "src"), languages.SuiteRunDir); err != nil {
		return "", fmt.Errorf("suite dir: %w", err)
	}
	if r.sb.Root() {
		if err := sandbox.ChownTree(dir, lane.UID, lane.GID); err != nil {
			return "", fmt.Errorf("give suite dir to uid %d: %w", lane.UID, err)
		}
	}
	return config, nil
}

// writeTree writes a job's tree in dir/src, with the Tests tree's test files in
// place of its own when Tests is set, and returns the pytest settings the runs take.
func (r *Runner) writeTree(dir string, job Job) (string, error) {
	src := filepath.Join(dir, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		return "", fmt.Errorf("job dir: %w", err)
	}
	if err := job.Tree.WriteTo(src); err != nil {
		return "", fmt.Errorf("write tree %s: %w", job.Tree.Hash(), err)
	}
	// Whatever the tree holds where the suite keeps its files is not the judge's.
	if err := treeperm.RemoveAll(filepath.Join(src, languages.SuiteDir)); err != nil {
		return "", fmt.Errorf("clear %s: %w", languages.SuiteDir, err)
	}
	if job.Tests == nil {
		return "", nil
	}
	return r.overlayTests(dir, job.Tests)
}

// overlayTests replaces the test files of the tree in dir/src with those of tests: the
// tree's own go (Exclude), the others' are copied in, never through what the tree
// holds on the way (os.Root). Where the language says how (pytest), it also copies
// tests' settings into the suite's directory, so the tree's cannot change what runs; it
// returns their path.
func (r *Runner) overlayTests(dir string, tests contract.Tree) (string, error) {
	src := filepath.Join(dir, "src")
	if err := contract.RemoveExcluded(src, r.contract.Exclude); err != nil {
		return "", fmt.Errorf("exclude files: %w", err)
	}
	base := filepath.Join(dir, "tests")
	if err := os.Mkdir(base, 0o755); err != nil {
		return "", fmt.Errorf("job dir: %w", err)
	}
	defer treeperm.RemoveAll(base)
	if err := tests.WriteTo(base); err != nil {
		return "", fmt.Errorf("write tests tree %s: %w", tests.Hash(), err)
	}
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == base {
			return err
		}
		rel, err := filepath.Rel(base, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if r.contract.Private(rel) || rel == languages.SuiteDir {
				return filepath.SkipDir // build output (Maven's target), not tests
			}
			return nil
		}
		if !d.Type().IsRegular() || !r.contract.Private(rel) && !inTestdata(rel) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return contract.PlaceFile(src, rel, data)
	})
	if err != nil {
		return "", fmt.Errorf("lay the existing tests over the tree: %w", err)
	}
	if spec, ok := languages.SuiteFor(r.contract); ok && spec.Settings != nil {
		return spec.Settings(base, src)
	}
	return "", nil
}

// freshRunDir empties the directory a run writes its reports in, whatever the last run
// left there.
func (r *Runner) freshRunDir(src string, lane sandbox.Lane) error {
	root, err := os.OpenRoot(src)
	if err != nil {
		return fmt.Errorf("suite run dir: %w", err)
	}
	defer root.Close()
	if err := root.RemoveAll(languages.SuiteRunDir); err != nil {
		return fmt.Errorf("suite run dir: %w", err)
	}
	if err := root.MkdirAll(languages.SuiteRunDir, 0o755); err != nil {
		return fmt.Errorf("suite run dir: %w", err)
	}
	if r.sb.Root() {
		if err := root.Lchown(languages.SuiteRunDir, lane.UID, lane.GID); err != nil {
			return fmt.Errorf("suite run dir: %w", err)
		}
	}
	return nil
}

// inTestdata reports whether a file is under a testdata directory: the data the
// existing tests read (Go's golden files), which come from the base with the tests, so
// that a coder cannot edit a golden file to make an existing test pass.
func inTestdata(rel string) bool {
	return strings.HasPrefix(rel, "testdata/") || strings.Contains(rel, "/testdata/")
}
