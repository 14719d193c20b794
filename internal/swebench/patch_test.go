package swebench

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func treeOf(files map[string]string) *Tree {
	t := &Tree{files: map[string]*file{}}
	for p, s := range files {
		t.files[p] = newFile([]byte(s), false)
	}
	return t
}

const src = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n"

// Every hostile diff is refused before anything is applied, with its name.
func TestParsePatchRefusesHostileDiffs(t *testing.T) {
	cases := map[string]struct{ diff, want string }{
		"escaping with ..": {"diff --git a/../../etc/passwd b/../../etc/passwd\n--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-root\n+evil\n", "is not a clean relative path"},
		"no directory":     {"--- passwd\n+++ passwd\n@@ -1 +1 @@\n-root\n+evil\n", "no leading directory"},
		"mixed headers":    {"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n", "mixing git and traditional"},
		"into .git":        {"diff --git a/.git/config b/.git/config\n--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-a\n+b\n", "is not a clean relative path"},
		"the suite's dir":  {"diff --git a/.dixit-suite/run/report.xml b/.dixit-suite/run/report.xml\nnew file mode 100644\n--- /dev/null\n+++ b/.dixit-suite/run/report.xml\n@@ -0,0 +1 @@\n+<forged/>\n", "is not a clean relative path"},
		"symlink":          {"diff --git a/x b/x\nnew file mode 120000\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+/etc/passwd\n", "only regular files"},
		"binary":           {"diff --git a/x.bin b/x.bin\nnew file mode 100644\nindex 0000000..1111111\nBinary files /dev/null and b/x.bin differ\n", "binary"},
		"not a diff":       {"hello, I am not a diff\n", "no file changes"},
		"empty":            {"", "no file changes"},
		"twice":            {"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-b\n+c\n", "changed twice"},
		"hunk counts":      {"--- a/x\n+++ b/x\n@@ -1,5 +1,1 @@\n-a\n+b\n", "miscounts"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ParsePatch("testers/demo/evil.diff", []byte(tc.diff))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "testers/demo/evil.diff")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	// An absolute name loses its first component (patch -p1 on a traditional header;
	// go-gitdiff's cleaning of a git header's): it lands inside the tree.
	p, err := ParsePatch("abs", []byte("--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-root\n+evil\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{"etc/passwd"}, p.Targets())
}

func TestApplyAsGitApplyDoes(t *testing.T) {
	base := treeOf(map[string]string{"f.txt": src, "old.txt": "bye\n"})
	// The hunk says line 4, the text is at line 3: git apply moves it.
	moved := "diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -4,3 +4,3 @@\n two\n-three\n+THREE\n four\n" +
		"@@ -8,3 +8,4 @@\n seven\n eight\n+eight and a half\n nine\n" +
		"diff --git a/new.txt b/new.txt\nnew file mode 100755\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n" +
		"diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
	p, err := ParsePatch("moved", []byte(moved))
	require.NoError(t, err)
	assert.Equal(t, []string{"f.txt", "new.txt", "old.txt"}, p.Targets())
	ch, err := p.Apply(base, FuzzNone)
	require.NoError(t, err)
	got := base.with(ch)
	f, _ := got.File("f.txt")
	assert.Equal(t, strings.Replace(strings.Replace(src, "three", "THREE", 1), "eight\n", "eight\neight and a half\n", 1), string(f))
	n, ok := got.File("new.txt")
	assert.True(t, ok)
	assert.Equal(t, "hello\nworld\n", string(n))
	assert.True(t, got.files["new.txt"].exec)
	_, ok = got.File("old.txt")
	assert.False(t, ok)
	// The base is untouched, and its hash differs from the patched tree's.
	f, _ = base.File("f.txt")
	assert.Equal(t, src, string(f))
	assert.NotEqual(t, base.Hash(), got.Hash())
	assert.Equal(t, base.Hash(), treeOf(map[string]string{"old.txt": "bye\n", "f.txt": src}).Hash())

	// A context line that differs: git apply refuses, GNU patch's fuzz takes it.
	fuzzy := "--- a/f.txt\n+++ b/f.txt\n@@ -2,5 +2,5 @@\n TWO\n three\n-four\n+FOUR\n five\n SIX\n"
	p, err = ParsePatch("fuzzy", []byte(fuzzy))
	require.NoError(t, err)
	_, err = p.Apply(base, FuzzNone)
	assert.ErrorContains(t, err, "fuzzy: f.txt: hunk 1 (@@ -2,5 +2,5 @@) does not apply")
	ch, err = p.Apply(base, Fuzz3)
	require.NoError(t, err)
	f, _ = base.with(ch).File("f.txt")
	assert.Equal(t, strings.Replace(src, "four", "FOUR", 1), string(f))

	// A file that is not there, a new file that is.
	for diff, want := range map[string]string{
		"--- a/nope.txt\n+++ b/nope.txt\n@@ -1 +1 @@\n-a\n+b\n":                                             "nope.txt does not exist",
		"diff --git a/f.txt b/f.txt\nnew file mode 100644\n--- /dev/null\n+++ b/f.txt\n@@ -0,0 +1 @@\n+x\n": "f.txt already exists",
	} {
		p, err := ParsePatch("d", []byte(diff))
		require.NoError(t, err)
		_, err = p.Apply(base, Fuzz3)
		assert.ErrorContains(t, err, want)
	}
}

// A hunk without trailing context must end at the end of the file, as in git apply.
func TestApplyPinsAHunkWithoutTrailingContextToTheEnd(t *testing.T) {
	base := treeOf(map[string]string{"f.txt": "a\nb\nc\nb\n"})
	p, err := ParsePatch("end", []byte("--- a/f.txt\n+++ b/f.txt\n@@ -2,2 +2,2 @@\n c\n-b\n+B\n"))
	require.NoError(t, err)
	ch, err := p.Apply(base, FuzzNone)
	require.NoError(t, err)
	f, _ := base.with(ch).File("f.txt")
	assert.Equal(t, "a\nb\nc\nB\n", string(f))
}

// Where git and GNU patch are installed, the applier agrees with them on a real edit
// with moved hunks and with fuzz.
func TestApplyAgreesWithGitAndPatch(t *testing.T) {
	for _, tool := range []string{"git", "patch"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	var lines []string
	for i := range 60 {
		lines = append(lines, "line "+strings.Repeat("x", i%7)+" "+string(rune('a'+i%26)))
	}
	orig := strings.Join(lines, "\n") + "\n"
	shifted := "header 1\nheader 2\n" + orig // the patch was made against orig
	diff := "diff --git a/f.py b/f.py\n--- a/f.py\n+++ b/f.py\n" +
		"@@ -10,7 +10,8 @@\n " + strings.Join(lines[9:12], "\n ") + "\n-" + lines[12] + "\n+changed 13\n+added\n " + strings.Join(lines[13:16], "\n ") + "\n" +
		"@@ -40,6 +41,5 @@\n " + strings.Join(lines[39:42], "\n ") + "\n-" + lines[42] + "\n " + strings.Join(lines[43:45], "\n ") + "\n"
	p, err := ParsePatch("real", []byte(diff))
	require.NoError(t, err)
	for _, c := range []struct {
		text string
		fuzz int
		cmd  []string
	}{
		{shifted, FuzzNone, []string{"git", "apply", "p.diff"}},
		{strings.Replace(shifted, lines[9], "edited context", 1), Fuzz3, []string{"patch", "-p1", "--fuzz=3", "--batch", "-s", "-i", "p.diff"}},
	} {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "f.py"), []byte(c.text), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "p.diff"), []byte(diff), 0o644))
		cmd := exec.Command(c.cmd[0], c.cmd[1:]...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		want, err := os.ReadFile(filepath.Join(dir, "f.py"))
		require.NoError(t, err)
		base := treeOf(map[string]string{"f.py": c.text})
		ch, err := p.Apply(base, c.fuzz)
		require.NoError(t, err, c.cmd[0])
		got, _ := base.with(ch).File("f.py")
		assert.Equal(t, string(want), string(got), c.cmd[0])
		if c.fuzz == Fuzz3 {
			_, err := p.Apply(base, FuzzNone)
			assert.Error(t, err, "without fuzz the edited context does not match")
		}
	}
}

func TestNormalisedIgnoresPositionsIndexAndTrailingBlanks(t *testing.T) {
	a := "diff --git a/x.py b/x.py\nindex 1111111..2222222 100644\n--- a/x.py\n+++ b/x.py\n@@ -10,3 +10,3 @@ def f():\n ctx\n-old\n+new   \n ctx\n"
	b := "--- a/x.py\n+++ b/x.py\n@@ -12,4 +12,4 @@\n other ctx\n ctx\n-old\n+new\n ctx\n"
	c := "--- a/x.py\n+++ b/x.py\n@@ -12,4 +12,4 @@\n other ctx\n ctx\n-old\n+newer\n ctx\n"
	pa, err := ParsePatch("a", []byte(a))
	require.NoError(t, err)
	pb, err := ParsePatch("b", []byte(b))
	require.NoError(t, err)
	pc, err := ParsePatch("c", []byte(c))
	require.NoError(t, err)
	assert.Equal(t, pa.Normalised(), pb.Normalised())
	assert.NotEqual(t, pa.Normalised(), pc.Normalised())
	assert.Equal(t, "--- x.py\n+++ x.py\n-old\n+new\n", pa.Normalised())
}
