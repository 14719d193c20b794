package replay

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func loadSlice(t *testing.T) []Problem {
	t.Helper()
	ps, err := LoadFile(context.Background(), "testdata/slice.jsonl")
	require.NoError(t, err)
	require.Len(t, ps, 4)
	return ps
}

// panelIDs lists the coder ids of a problem's drawn panels.
func panelIDs(p Problem, panels [][]int) []string {
	var out []string
	for _, panel := range panels {
		var ids []string
		for _, c := range panel {
			ids = append(ids, p.Coders[c].ID)
		}
		out = append(out, strings.Join(ids, " "))
	}
	return out
}

// TestDrawMatchesRecordedPython: what drawPanels (below) printed under CPython 3.11.7 for
// the slice, seed 20261122, 3 panels per problem.
func TestDrawMatchesRecordedPython(t *testing.T) {
	ps := loadSlice(t)
	tests := []struct {
		kind    Kind
		k       int
		problem int
		want    []string
	}{
		{Diverse, 3, 0, []string{
			"agentcoder/gpt-4-agentcoder#0 ldb/codellama#0 ldb/gpt-3.5-turbo-0613#0",
			"agentcoder/chatgpt-agentcoder#0 ldb/starcoder#0 reflexion/gpt-4-simple#0",
			"reflexion/gpt-4-simple#0 ldb/gpt-4-1106-preview#0 ldb/starcoder#0",
		}},
		{Diverse, 7, 3, []string{
			"ldb/gpt-3.5-turbo-0613#0 ldb/codellama#0 agentcoder/gpt-3.5-turbo-1106#1 codet/codegen-16b#3 ldb/gpt-4-1106-preview#0 ldb/starcoder#0 reflexion/gpt-4-simple#0",
			"ldb/gpt-4-1106-preview#0 codet/codegen-16b#3 reflexion/gpt-4-simple#0 agentcoder/gpt-3.5-turbo-1106#0 ldb/codellama#0 ldb/gpt-3.5-turbo-0613#0 ldb/starcoder#0",
			"ldb/codellama#0 ldb/gpt-4-1106-preview#0 ldb/gpt-3.5-turbo-0613#0 ldb/starcoder#0 reflexion/gpt-4-simple#0 codet/codegen-16b#3 agentcoder/gpt-3.5-turbo-1106#0",
		}},
		{Random, 5, 2, []string{
			"ldb/gpt-3.5-turbo-0613#0 codet/codegen-16b#0 codet/codegen-16b#5 codet/codegen-16b#3 agentcoder/gpt-3.5-turbo-1106#1",
			"codet/codegen-16b#3 codet/codegen-16b#6 codet/codegen-16b#5 ldb/codellama#0 reflexion/gpt-4-simple#0",
			"codet/codegen-16b#2 agentcoder/gpt-3.5-turbo-1106#0 agentcoder/gpt-3.5-turbo-1106#4 codet/codegen-16b#3 codet/codegen-16b#6",
		}},
		{Same("agentcoder/gpt-3.5-turbo-1106"), 3, 3, []string{
			"agentcoder/gpt-3.5-turbo-1106#0 agentcoder/gpt-3.5-turbo-1106#1 agentcoder/gpt-3.5-turbo-1106#3",
			"agentcoder/gpt-3.5-turbo-1106#3 agentcoder/gpt-3.5-turbo-1106#1 agentcoder/gpt-3.5-turbo-1106#0",
			"agentcoder/gpt-3.5-turbo-1106#3 agentcoder/gpt-3.5-turbo-1106#0 agentcoder/gpt-3.5-turbo-1106#1",
		}},
		{Same("agentcoder/gpt-3.5-turbo-1106"), 5, 3, nil}, // HumanEval/119 has 3 such coders
		{Diverse, 9, 2, nil}, // HumanEval/47 has 7 sources
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%d/%s", tc.kind, tc.k, ps[tc.problem].TaskID), func(t *testing.T) {
			panels := Draw(ps, tc.kind, tc.k, DefaultSeed, 3)
			assert.Equal(t, tc.want, panelIDs(ps[tc.problem], panels[tc.problem]))
		})
	}
}

// drawPanels is the baseline's reading of BASELINE.md, in Python: one random.Random per
// kind and K, problems in file order, sample then choice.
const drawPanels = `
import json, random, sys
path, seed, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
probs = [json.loads(l) for l in open(path)]
for kind in ["diverse", "random", "same:codet/codegen-16b", "same:agentcoder/gpt-3.5-turbo-1106"]:
    for K in (3, 5, 7, 9):
        rng = random.Random(f"{seed}/{kind}/{K}")
        for p in probs:
            coders = [c["id"] for c in p["coders"]]
            by = {}
            for c in p["coders"]:
                by.setdefault(c["source"], []).append(c["id"])
            for i in range(n):
                if kind == "diverse":
                    srcs = sorted(by)
                    if len(srcs) < K:
                        break
                    panel = [rng.choice(by[s]) for s in rng.sample(srcs, K)]
                elif kind == "random":
                    if len(coders) < K:
                        break
                    panel = rng.sample(coders, K)
                else:
                    pool = by.get(kind[5:], [])
                    if len(pool) < K:
                        break
                    panel = rng.sample(pool, K)
                print(kind, K, p["task_id"], i, " ".join(panel))
`

// TestDrawMatchesLivePython draws every kind and size on the slice in Go and in the
// python3 on this machine, when there is one.
func TestDrawMatchesLivePython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	out, err := exec.Command(py, "-c", drawPanels, "testdata/slice.jsonl", "7", "6").Output()
	require.NoError(t, err)
	ps := loadSlice(t)
	var got []string
	for _, kind := range []Kind{Diverse, Random, Same("codet/codegen-16b"), Same("agentcoder/gpt-3.5-turbo-1106")} {
		for _, k := range []int{3, 5, 7, 9} {
			panels := Draw(ps, kind, k, 7, 6)
			for i, p := range ps {
				for j, ids := range panelIDs(p, panels[i]) {
					got = append(got, fmt.Sprintf("%s %d %s %d %s", kind, k, p.TaskID, j, ids))
				}
			}
		}
	}
	assert.Equal(t, strings.Split(strings.TrimSpace(string(out)), "\n"), got)
}

func TestParseKind(t *testing.T) {
	for _, s := range []string{"diverse", "random", "same:codet/codegen-16b"} {
		k, err := ParseKind(s)
		require.NoError(t, err)
		assert.Equal(t, s, k.String())
	}
	for _, s := range []string{"", "same:", "mixed", "Diverse"} {
		_, err := ParseKind(s)
		assert.ErrorContains(t, err, "want diverse, random or same:<source>", s)
	}
}

// TestKindsForNamesTheDataSetsOwnSources: a same-source row for each source with enough
// coders on some problem, the largest first, and none for a source that never has K.
func TestKindsForNamesTheDataSetsOwnSources(t *testing.T) {
	coders := func(sources ...string) []Coder {
		var out []Coder
		for i, s := range sources {
			out = append(out, Coder{ID: fmt.Sprintf("%s#%d", s, i), Source: s})
		}
		return out
	}
	ps := []Problem{
		{TaskID: "a", Coders: coders("small", "small", "small", "one", "big", "big")},
		{TaskID: "b", Coders: coders("big", "big", "big", "big", "one", "pair", "pair")},
	}
	var names []string
	for _, k := range KindsFor(ps, 3) {
		names = append(names, k.String())
	}
	assert.Equal(t, []string{"diverse", "random", "same:big", "same:small"}, names)
	names = names[:0]
	for _, k := range KindsFor(ps, 2) {
		names = append(names, k.String())
	}
	assert.Equal(t, []string{"diverse", "random", "same:big", "same:small", "same:pair"}, names)
}
