package patchdiff_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/patchdiff"
)

// base is the tree every case patches.
func base() []gitstate.File {
	return []gitstate.File{
		{Path: "a.txt", Content: []byte("one\ntwo\nthree\n")},
		{Path: "dir/b.txt", Content: []byte("alpha\nbeta\ngamma\ndelta\n")},
		{Path: "run.sh", Content: []byte("echo hi\n"), Executable: true},
		{Path: "img.bin", Content: []byte("a\x00b\x01\x02")},
		{Path: "gone.bin", Content: []byte("old\x00data")},
	}
}

// tree maps a result to path → content, with "*" after an executable's content.
func tree(files []gitstate.File) map[string]string {
	m := map[string]string{}
	for _, f := range files {
		m[f.Path] = string(f.Content)
		if f.Executable {
			m[f.Path] += "*"
		}
	}
	return m
}

// with is the base tree changed by kv (path, content; "" content deletes).
func with(kv ...string) map[string]string {
	m := tree(base())
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(m, kv[i])
		} else {
			m[kv[i]] = kv[i+1]
		}
	}
	return m
}

func TestApplyEachKindOfChange(t *testing.T) {
	tests := []struct {
		name string
		diff string
		want map[string]string
	}{
		{"modify", `diff --git a/a.txt b/a.txt
index 4c5fd91..0e39a8b 100644
--- a/a.txt
+++ b/a.txt
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three
`, with("a.txt", "one\nTWO\nthree\n")},
		{"two hunks", `diff --git a/dir/b.txt b/dir/b.txt
--- a/dir/b.txt
+++ b/dir/b.txt
@@ -1,1 +1,1 @@
-alpha
+ALPHA
@@ -4,1 +4,2 @@
 delta
+epsilon
`, with("dir/b.txt", "ALPHA\nbeta\ngamma\ndelta\nepsilon\n")},
		{"new file", `diff --git a/new/c.go b/new/c.go
new file mode 100644
index 0000000..e69de29
--- /dev/null
+++ b/new/c.go
@@ -0,0 +1,2 @@
+package c
+// C.
`, with("new/c.go", "package c\n// C.\n")},
		{"new empty executable", `diff --git a/empty.sh b/empty.sh
new file mode 100755
index 0000000..e69de29
`, with("empty.sh", "*")},
		{"deleted file", `diff --git a/a.txt b/a.txt
deleted file mode 100644
index 4c5fd91..0000000
--- a/a.txt
+++ /dev/null
@@ -1,3 +0,0 @@
-one
-two
-three
`, with("a.txt", "")},
		{"rename with a change, and a mode change", `diff --git a/a.txt b/a.txt
old mode 100644
new mode 100755
diff --git a/dir/b.txt b/dir/c.txt
similarity index 73%
rename from dir/b.txt
rename to dir/c.txt
index 7a28df3..adc7e54 100644
--- a/dir/b.txt
+++ b/dir/c.txt
@@ -1,4 +1,4 @@
 alpha
 beta
 gamma
-delta
+DELTA
`, with("a.txt", "one\ntwo\nthree\n*", "dir/b.txt", "", "dir/c.txt", "alpha\nbeta\ngamma\nDELTA\n")},
		{"pure rename keeps the executable bit", `diff --git a/run.sh b/bin/run.sh
similarity index 100%
rename from run.sh
rename to bin/run.sh
`, with("run.sh", "", "bin/run.sh", "echo hi\n*")},
		{"copy", `diff --git a/a.txt b/copy.txt
similarity index 100%
copy from a.txt
copy to copy.txt
`, with("copy.txt", "one\ntwo\nthree\n")},
		{"plain diff -u, one component stripped", `--- base/a.txt	2026-11-22 14:49:01.782122294 +0000
+++ patched/a.txt	2026-11-22 21:43:41.550576246 +0000
@@ -3 +3 @@
-three
+3
`, with("a.txt", "one\ntwo\n3\n")},
		{"format-patch series changing one file twice", `From a99f5f382041e05d95f86969bb00bc78bc1c4a11 Mon Sep 17 00:00:00 2001
From: x <x@x>
Subject: [PATCH 1/2] first

---
 a.txt | 2 +-

diff --git a/a.txt b/a.txt
--- a/a.txt
+++ b/a.txt
@@ -1,3 +1,3 @@
-one
+ONE
 two
 three
-- 
2.39.5

From b99f5f382041e05d95f86969bb00bc78bc1c4a11 Mon Sep 17 00:00:00 2001
From: x <x@x>
Subject: [PATCH 2/2] second

---
diff --git a/a.txt b/a.txt
--- a/a.txt
+++ b/a.txt
@@ -1,3 +1,3 @@
 ONE
 two
-three
+THREE
-- 
2.39.5
`, with("a.txt", "ONE\ntwo\nTHREE\n")},
		{"no newline at end of file", `diff --git a/a.txt b/a.txt
--- a/a.txt
+++ b/a.txt
@@ -3 +3 @@
-three
+three
\ No newline at end of file
`, with("a.txt", "one\ntwo\nthree")},
		{"binary (git diff --binary)", read(t, "binary.diff"),
			with("img.bin", "a\x00b\x01\x02\x03more", "gone.bin", "", "new.bin", "new\x00file")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := base()
			got, err := patchdiff.Apply(in, strings.NewReader(tc.diff))
			require.NoError(t, err)
			assert.Equal(t, tc.want, tree(got))
			assert.Equal(t, tree(base()), tree(in), "the input is not modified")
			for i := 1; i < len(got); i++ {
				assert.Less(t, got[i-1].Path, got[i].Path, "sorted by path")
			}
		})
	}
}

func TestApplyRefusesABadDiff(t *testing.T) {
	hunk := "@@ -1 +1 @@\n-x\n+y\n"
	tests := []struct {
		name string
		diff string
		want string
	}{
		{"empty", "", "no diff"},
		{"not a diff", "Dear maintainer,\nplease merge.\n", "no diff"},
		{"context mismatch", "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-TWO\n+2\n three\n",
			"a.txt: hunk 1 (@@ -1,3 +1,3 @@) does not apply at line 2: conflict: fragment line does not match src line"},
		{"second hunk mismatch", "diff --git a/dir/b.txt b/dir/b.txt\n--- a/dir/b.txt\n+++ b/dir/b.txt\n@@ -1 +1 @@\n-alpha\n+A\n@@ -4 +4 @@\n-omega\n+O\n",
			"dir/b.txt: hunk 2 (@@ -4,1 +4,1 @@) does not apply at line 4: conflict"},
		{"hunk past the end", "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -9 +9 @@\n-x\n+y\n",
			"a.txt: hunk 1 (@@ -9,1 +9,1 @@) does not apply at line 4: conflict: src has fewer lines than required by fragment"},
		{"changes a file that does not exist", "diff --git a/nope.txt b/nope.txt\n--- a/nope.txt\n+++ b/nope.txt\n" + hunk,
			"nope.txt: the diff changes it, but it does not exist"},
		{"creates a file that exists", "diff --git a/a.txt b/a.txt\nnew file mode 100644\n--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+x\n",
			"a.txt: the diff creates it, but it exists"},
		{"renames onto a file that exists", "diff --git a/a.txt b/run.sh\nsimilarity index 100%\nrename from a.txt\nrename to run.sh\n",
			"run.sh: the diff renames or copies a.txt onto it, but it exists"},
		{"deletes with other content", "diff --git a/a.txt b/a.txt\ndeleted file mode 100644\n--- a/a.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-one\n-two\n",
			"a.txt: hunk 1 (@@ -1,2 +0,0 @@) does not apply at line 3: conflict: src still has content after full delete"},
		{"parent directory, git", "diff --git a/../x b/../x\nnew file mode 100644\n--- /dev/null\n+++ b/../x\n@@ -0,0 +1 @@\n+x\n",
			`"../x": not a path inside the tree`},
		{"parent directory inside, git", "diff --git a/dir/../../x b/dir/../../x\n--- a/dir/../../x\n+++ b/dir/../../x\n" + hunk,
			`"dir/../../x": not a path inside the tree`},
		{"parent directory, plain", "--- /dev/null\n+++ b/../../etc/cron.d/x\n@@ -0,0 +1 @@\n+x\n",
			`"b/../../etc/cron.d/x": not a path inside the tree`},
		{"absolute path, plain", "--- /etc/passwd\n+++ /etc/passwd\n" + hunk, `"/etc/passwd": not a path inside the tree`},
		{"absolute path, git rename", "diff --git a/a.txt b/a.txt\nsimilarity index 100%\nrename from a.txt\nrename to /tmp/x\n",
			`"/tmp/x": not a path inside the tree`},
		{"into .git", "diff --git a/.git/hooks/pre-commit b/.git/hooks/pre-commit\nnew file mode 100755\n--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+x\n",
			`".git/hooks/pre-commit": not a path inside the tree`},
		{"a symbolic link", "diff --git a/link b/link\nnew file mode 120000\n--- /dev/null\n+++ b/link\n@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file\n",
			"link: mode 120000 (symbolic links and submodules are refused)"},
		{"a file where a directory is", "diff --git a/dir b/dir\nnew file mode 100644\n--- /dev/null\n+++ b/dir\n@@ -0,0 +1 @@\n+x\n",
			"dir is both a file and a directory in the patched tree"},
		{"a hunk without a file", "@@ -1 +1 @@\n-one\n+1\n", "parse the diff: gitdiff: line 1: patch fragment without file header"},
		{"binary without its content", read(t, "binary-without-data.diff"),
			"img.bin: a binary change without its content (\"Binary files differ\"); make the diff with `git diff --binary`"},
		{"binary against another version", strings.Replace(read(t, "binary.diff"), "index 39e62dcbba379d119fb88454c51dace2bcbb79d6", "index 49e62dcbba379d119fb88454c51dace2bcbb79d6", 1),
			"img.bin: the binary patch was made against another version of it"},
		{"too large", "diff --git a/a.txt b/a.txt\n" + strings.Repeat("x", patchdiff.MaxDiffBytes), "the diff is larger than 10485760 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := patchdiff.Apply(base(), strings.NewReader(tc.diff))
			require.Error(t, err)
			assert.Nil(t, got)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func read(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return string(data)
}

// FuzzApply: whatever the diff, Apply does not panic, and a tree it returns has only
// clean relative paths, none twice, none inside .git, none both a file and a directory.
func FuzzApply(f *testing.F) {
	for _, name := range []string{"binary.diff", "binary-without-data.diff"} {
		f.Add([]byte(read(f, name)))
	}
	f.Add([]byte("diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"))
	f.Add([]byte("diff --git a/run.sh b/bin/run.sh\nsimilarity index 100%\nrename from run.sh\nrename to bin/run.sh\n"))
	f.Add([]byte("--- /dev/null\n+++ b/../x\n@@ -0,0 +1 @@\n+x\n"))
	f.Add([]byte("--- a/dir/b.txt\n+++ b/dir/b.txt\n@@ -4 +4,2 @@\n delta\n+e\n"))
	f.Fuzz(func(t *testing.T, diff []byte) {
		files, err := patchdiff.Apply(base(), bytes.NewReader(diff))
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, fl := range files {
			p := fl.Path
			require.False(t, seen[p], "%q twice", p)
			seen[p] = true
			require.NotEmpty(t, p)
			require.NotEqual(t, '/', p[0], "%q is absolute", p)
			require.Equal(t, filepath.ToSlash(filepath.Clean(p)), p, "%q is not clean", p)
			require.False(t, p == ".." || strings.HasPrefix(p, "../"), "%q leaves the tree", p)
			for _, elem := range strings.Split(p, "/") {
				require.NotEqual(t, ".git", strings.ToLower(elem), "%q is inside .git", p)
			}
		}
		for p := range seen {
			for dir := filepath.Dir(p); dir != "."; dir = filepath.Dir(dir) {
				require.False(t, seen[filepath.ToSlash(dir)], "%q is a file and a directory", dir)
			}
		}
	})
}
