package replay

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mbppPath is the second corpus, kept in the repository.
const mbppPath = "../../data/mbpp-replay/problems.jsonl"

// rawMBPP is a problems.jsonl line read without the loader, to count it independently.
type rawMBPP struct {
	TaskID string `json:"task_id"`
	Coders []struct {
		Source     string `json:"source"`
		HiddenPass bool   `json:"hidden_pass"`
	} `json:"coders"`
	Tests []struct {
		Source  string `json:"source"`
		Correct bool   `json:"correct"`
	} `json:"tests"`
	PassMatrix [][]int `json:"pass_matrix"`
}

func readRawMBPP(t *testing.T) []rawMBPP {
	t.Helper()
	f, err := os.Open(mbppPath)
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 8<<20)
	var out []rawMBPP
	for sc.Scan() {
		var r rawMBPP
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		out = append(out, r)
	}
	require.NoError(t, sc.Err())
	return out
}

// TestMBPPCorpusMatchesItsReadme: the file is the one the README describes (sha256), and
// the loader sees what a plain JSON reading counts, the README's figures.
func TestMBPPCorpusMatchesItsReadme(t *testing.T) {
	b, err := os.ReadFile(mbppPath)
	require.NoError(t, err)
	readme, err := os.ReadFile(filepath.Join(filepath.Dir(mbppPath), "README.md"))
	require.NoError(t, err)
	sum := sha256.Sum256(b)
	m := regexp.MustCompile("sha256 `([0-9a-f]{64})`").FindSubmatch(readme)
	require.NotNil(t, m, "README.md states no sha256")
	assert.Equal(t, string(m[1]), hex.EncodeToString(sum[:]), "problems.jsonl changed: rebuild the README's figures")

	problems, err := LoadFile(context.Background(), mbppPath)
	require.NoError(t, err)
	raw := readRawMBPP(t)
	require.Len(t, problems, len(raw))
	var coders, correctCoders, tests, correctTests, cells, passCells int
	for i, r := range raw {
		assert.Equal(t, r.TaskID, problems[i].TaskID)
		coders += len(r.Coders)
		tests += len(r.Tests)
		for _, c := range r.Coders {
			correctCoders += b2i(c.HiddenPass)
		}
		for _, x := range r.Tests {
			correctTests += b2i(x.Correct)
		}
		for _, row := range r.PassMatrix {
			for _, v := range row {
				cells++
				passCells += v
			}
		}
	}
	assert.Equal(t, []int{257, 2756, 1843, 779, 776, 8369}, []int{len(raw), coders, correctCoders, tests, correctTests, cells},
		"problems, coders, correct coders, tests, correct tests, cells (README.md, Counts)")
	var loaded, loadedPass int
	for _, p := range problems {
		for _, row := range p.Pass {
			for _, v := range row {
				loaded++
				loadedPass += b2i(v)
			}
		}
	}
	assert.Equal(t, []int{cells, passCells}, []int{loaded, loadedPass})
}

// TestMBPPRuleCountedIndependently: on the diverse K=5 panels, the kept tests and the
// wrong ones kept, counted here straight from the raw matrix with BASELINE.md's rule
// (kept iff 5p >= 3K and p < K), agree with Evaluate and with BASELINE.md.
func TestMBPPRuleCountedIndependently(t *testing.T) {
	problems, err := LoadFile(context.Background(), mbppPath)
	require.NoError(t, err)
	raw := readRawMBPP(t)
	const k = 5
	panels := Draw(problems, Diverse, k, DefaultSeed, 20)
	var kept, wrongKept, allPass int
	for i, r := range raw {
		for _, panel := range panels[i] {
			for j, x := range r.Tests {
				p := 0
				for _, c := range panel {
					p += r.PassMatrix[c][j]
				}
				if 5*p >= 3*k && p < k {
					kept++
					wrongKept += b2i(!x.Correct)
				}
				allPass += b2i(p == k)
			}
		}
	}
	got := Evaluate(problems, panels, Rule{60})
	assert.Equal(t, []int{kept, wrongKept, allPass}, []int{got.KeptTests, got.WrongKept, got.AllPassTests})
	assert.Equal(t, []int{5000, 3969, 0}, []int{got.Panels, got.KeptTests, got.WrongKept}, "BASELINE.md's diverse K=5 row")
}
