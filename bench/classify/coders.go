package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// coder is one implementation: a directory of files, usable as a ci.Tree.
type coder struct {
	name  string
	files map[string][]byte // slash path -> content
}

func (c *coder) Hash() string {
	names := make([]string, 0, len(c.files))
	for n := range c.files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(c.files[n]))
		h.Write(c.files[n])
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (c *coder) WriteTo(dir string) error {
	for n, data := range c.files {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeWithTest writes the tree as the judge would: the coder's tests out, ours in.
func (c *coder) writeWithTest(dir string, test []byte) error {
	if err := c.WriteTo(dir); err != nil {
		return err
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, "_test.go") {
			return os.Remove(p)
		}
		return err
	})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, benchTest), test, 0o644)
}

// population loads the example's coders (the latest version of each) and one tester's
// test, or generates five coders when example is empty or missing.
func population(example, tester, work string) ([]*coder, []byte, error) {
	if example == "" {
		return generated()
	}
	if _, err := os.Stat(filepath.Join(example, "coders")); err != nil {
		fmt.Fprintf(os.Stderr, "classify: %s not found, using generated coders\n", example)
		return generated()
	}
	names, err := os.ReadDir(filepath.Join(example, "coders"))
	if err != nil {
		return nil, nil, err
	}
	var coders []*coder
	for _, n := range names {
		dir, err := latest(filepath.Join(example, "coders", n.Name()))
		if err != nil {
			return nil, nil, err
		}
		c, err := load(n.Name(), dir)
		if err != nil {
			return nil, nil, err
		}
		coders = append(coders, c)
	}
	tests, err := filepath.Glob(filepath.Join(example, "testers", filepath.FromSlash(tester), "*_test.go"))
	if err != nil || len(tests) != 1 {
		return nil, nil, fmt.Errorf("want one test file in %s/testers/%s, found %d", example, tester, len(tests))
	}
	test, err := os.ReadFile(tests[0])
	return coders, test, err
}

// latest is the highest numbered version directory of a coder.
func latest(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	best := -1
	for _, e := range entries {
		if v, err := strconv.Atoi(e.Name()); err == nil && v > best {
			best = v
		}
	}
	if best < 0 {
		return "", fmt.Errorf("%s: no numbered versions", dir)
	}
	return filepath.Join(dir, strconv.Itoa(best)), nil
}

func load(name, dir string) (*coder, error) {
	c := &coder{name: name, files: map[string][]byte{}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		c.files[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	return c, err
}

// generated is five small implementations of Clamp, the last one wrong at the bounds.
func generated() ([]*coder, []byte, error) {
	bodies := []string{
		"if x < lo {\n\t\treturn lo\n\t}\n\tif x > hi {\n\t\treturn hi\n\t}\n\treturn x",
		"return max(lo, min(x, hi))",
		"switch {\n\tcase x < lo:\n\t\treturn lo\n\tcase x > hi:\n\t\treturn hi\n\t}\n\treturn x",
		"if x >= lo && x <= hi {\n\t\treturn x\n\t}\n\tif x < lo {\n\t\treturn lo\n\t}\n\treturn hi",
		"if x <= lo {\n\t\treturn lo + 1\n\t}\n\treturn min(x, hi)",
	}
	var coders []*coder
	for i, b := range bodies {
		coders = append(coders, &coder{name: fmt.Sprintf("gen%d", i+1), files: map[string][]byte{
			"go.mod":   []byte("module example.com/clamp\n\ngo 1.22\n"),
			"clamp.go": []byte("package clamp\n\n// Clamp limits x to [lo, hi].\nfunc Clamp(x, lo, hi int) int {\n\t" + b + "\n}\n"),
		}})
	}
	test := []byte(`package clamp

import "testing"

func TestClamp(t *testing.T) {
	for _, c := range []struct{ x, lo, hi, want int }{
		{5, 0, 10, 5}, {-1, 0, 10, 0}, {11, 0, 10, 10}, {0, 0, 10, 0}, {10, 0, 10, 10},
	} {
		if got := Clamp(c.x, c.lo, c.hi); got != c.want {
			t.Errorf("Clamp(%d, %d, %d) = %d, want %d", c.x, c.lo, c.hi, got, c.want)
		}
	}
}
`)
	return coders, test, nil
}

func execCommand(ctx context.Context, dir, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	// A session of its own, as each judge job has: with the kernel's autogroups the
	// scheduler shares the CPU by session, and baselines all in the benchmark's session
	// would get less of a loaded machine than the judge.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd
}
