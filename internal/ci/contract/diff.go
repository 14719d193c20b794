package contract

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/dixit-bot/dixit/internal/pytouch"
)

// MaxTestDiff bounds a tester's diff, and MaxTestFile the test file it makes: a test
// module of a large repository runs to a few hundred kilobytes.
const (
	MaxTestDiff = 1 << 20
	MaxTestFile = 4 << 20
)

// DiffTest is a test proposed as a change to one of the repository's test files, as
// real testers write them: the file on the base with the diff applied, and the tests
// the diff adds or changes, which are what the judge runs.
type DiffTest struct {
	Path    string   // the test file the diff edits or adds
	Content []byte   // that file, patched
	Select  []string // pytest node ids of the tests it adds or changes, in file order
}

// ApplyTestDiff reads a tester's diff against the base revision (base: its files) and
// returns the test it proposes, or why it is refused, in words for the tester: the diff
// must change one test file at a place tests may go, apply to the base as git apply
// would, and add or change at least one test function. The file a diff edits is the
// base's: a coder's own edits to test files are its private tests, which the judge
// leaves out of every tree, so a diff that applies to the base applies for every coder.
// Only pytest files can run function by function (the Python preset).
func ApplyTestDiff(c Contract, diff []byte, base fs.FS) (DiffTest, error) {
	if len(diff) > MaxTestDiff {
		return DiffTest{}, fmt.Errorf("the diff is larger than %d bytes", MaxTestDiff)
	}
	files, _, err := gitdiff.Parse(bytes.NewReader(diff))
	if err != nil {
		return DiffTest{}, fmt.Errorf("the diff cannot be read as a unified diff (as git diff writes it): %w", err)
	}
	switch len(files) {
	case 0:
		return DiffTest{}, errors.New("the diff changes no file: give a unified diff (as git diff writes it) of one test file")
	case 1:
	default:
		names := make([]string, len(files))
		for i, f := range files {
			names[i] = f.NewName
		}
		return DiffTest{}, fmt.Errorf("the diff changes %d files (%s): a proposal changes one test file", len(files), strings.Join(names, ", "))
	}
	f := files[0]
	name, err := diffTarget(f, diff)
	if err != nil {
		return DiffTest{}, err
	}
	if err := CheckTestPath(c, name); err != nil {
		return DiffTest{}, err
	}
	if !c.Selects(name) {
		return DiffTest{}, fmt.Errorf("%s: the judge runs single test functions of Python test files under pytest only (test.preset: python); give this test as a whole file instead", name)
	}
	old, err := fs.ReadFile(base, name)
	switch {
	case f.IsNew && err == nil:
		return DiffTest{}, fmt.Errorf("the diff adds %s, but the base already has it: make the diff against the base revision", name)
	case f.IsNew && errors.Is(err, fs.ErrNotExist):
		old = nil
	case errors.Is(err, fs.ErrNotExist):
		return DiffTest{}, fmt.Errorf("the diff edits %s, which the base revision does not have", name)
	case err != nil:
		return DiffTest{}, fmt.Errorf("read %s on the base: %w", name, err)
	}
	patched, err := applyText(name, old, f)
	if err != nil {
		return DiffTest{}, err
	}
	touched := pytouch.Touched(name, old, patched)
	if len(touched) == 0 {
		return DiffTest{}, fmt.Errorf("the diff adds or changes no test function in %s: pytest runs module-level functions named test… and test… methods of classes named Test…, "+
			"and a change to comments, imports or helpers alone tests nothing", name)
	}
	return DiffTest{Path: name, Content: patched, Select: touched}, nil
}

// diffTarget is the file a diff's one change writes, refusing what a test does not
// need: deletions, renames, copies, binary content and modes other than a plain file.
func diffTarget(f *gitdiff.File, diff []byte) (string, error) {
	name := f.NewName
	switch {
	case f.IsDelete:
		return "", fmt.Errorf("the diff deletes %s: a proposal adds or changes tests", f.OldName)
	case f.IsRename || f.IsCopy:
		return "", fmt.Errorf("the diff renames or copies %s to %s: a proposal only edits or adds a test file", f.OldName, f.NewName)
	case f.IsBinary:
		return "", fmt.Errorf("the diff changes %s as binary content: a test file is text", name)
	case f.NewMode != 0 && f.NewMode != 0o100644:
		return "", fmt.Errorf("the diff gives %s the mode %o: a test file is a plain file (100644)", name, uint32(f.NewMode))
	case len(f.TextFragments) == 0:
		return "", fmt.Errorf("the diff changes nothing in %s", name)
	}
	// Only git's headers lose their a/ and b/ in parsing; a plain diff -u keeps them,
	// and git apply strips one component there.
	if !bytes.HasPrefix(diff, []byte("diff --git ")) && !bytes.Contains(diff, []byte("\ndiff --git ")) {
		if _, rest, ok := strings.Cut(name, "/"); ok {
			name = rest
		}
	}
	if name == "" || path.Clean(name) != name {
		return "", fmt.Errorf("the diff names %q, which is not a clean path inside the repository", f.NewName)
	}
	return name, nil
}

// applyText applies a file's hunks to its content on the base, as git apply would.
func applyText(name string, old []byte, f *gitdiff.File) ([]byte, error) {
	var dst bytes.Buffer
	a := gitdiff.NewTextApplier(&dst, bytes.NewReader(old))
	for i, frag := range f.TextFragments {
		if err := a.ApplyFragment(frag); err != nil {
			line := ""
			var ae *gitdiff.ApplyError
			if errors.As(err, &ae) && ae.Line > 0 {
				line = fmt.Sprintf(" at line %d", ae.Line)
			}
			return nil, fmt.Errorf("the diff does not apply to %s on the base revision: hunk %d (%s) does not match%s (%v); "+
				"make the diff against the file as the base has it", name, i+1, strings.TrimSpace(frag.Header()), line, err)
		}
		if dst.Len() > MaxTestFile {
			return nil, fmt.Errorf("%s with the diff applied is larger than %d bytes", name, MaxTestFile)
		}
	}
	if err := a.Close(); err != nil {
		return nil, fmt.Errorf("the diff does not apply to %s on the base revision: %w", name, err)
	}
	if dst.Len() > MaxTestFile {
		return nil, fmt.Errorf("%s with the diff applied is larger than %d bytes", name, MaxTestFile)
	}
	return dst.Bytes(), nil
}

// Selects reports whether the judge can run single tests of the file at rel, by node
// id: a Python file under a pytest run whose command names the file ({path}) and whose
// JUnit report names each test.
func (c Contract) Selects(rel string) bool {
	return path.Ext(rel) == ".py" && c.Report == ReportJUnit && strings.Contains(c.Run, "{path}") && strings.Contains(c.Run, "pytest")
}
