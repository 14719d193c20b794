package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// record is a line of problems.jsonl, humaneval-replay's schema (internal/replay reads both).
type record struct {
	TaskID            string          `json:"task_id"`
	EntryPoint        string          `json:"entry_point"`
	Prompt            string          `json:"prompt"`
	CanonicalSolution string          `json:"canonical_solution"`
	HiddenTest        string          `json:"hidden_test"`
	HiddenTestPlus    json.RawMessage `json:"hidden_test_plus"`
	Coders            []coderRecord   `json:"coders"`
	Tests             []testRecord    `json:"tests"`
	PassMatrix        [][]int8        `json:"pass_matrix"`
}

type coderRecord struct {
	ID              string `json:"id"`
	Source          string `json:"source"`
	Code            string `json:"code"`
	HiddenPass      bool   `json:"hidden_pass"`
	HiddenPassBase  bool   `json:"hidden_pass_base"`
	HiddenPassPlus  bool   `json:"hidden_pass_plus"`
	LabelFromSource *bool  `json:"label_from_source"`
	Loads           bool   `json:"loads"`
	TestTimeouts    int    `json:"test_timeouts"`
	TestsSkipped    int    `json:"tests_skipped"`
}

type testRecord struct {
	ID             string  `json:"id"`
	Source         string  `json:"source"`
	Code           string  `json:"code"`
	Correct        bool    `json:"correct"`
	CanonicalError *string `json:"canonical_error"`
	NSamples       int     `json:"n_samples"`
}

// assemble turns a problem and its run into a record. There are no MBPP+ inputs here, so
// hidden_pass_plus repeats hidden_pass_base and hidden_test_plus is null.
func assemble(p *problem, r result) record {
	rec := record{TaskID: p.TaskID, EntryPoint: p.EntryPoint, Prompt: p.Prompt, CanonicalSolution: p.Canonical,
		HiddenTest:     strings.Join(append(slices.Clone(p.TestImports), p.TestList...), "\n") + "\n",
		HiddenTestPlus: json.RawMessage("null"), Coders: []coderRecord{}, Tests: []testRecord{}, PassMatrix: [][]int8{}}
	perSource := map[string]int{}
	for _, t := range r.Tests {
		id := fmt.Sprintf("%s#%d", t.Source, perSource[t.Source])
		perSource[t.Source]++
		rec.Tests = append(rec.Tests, testRecord{ID: id, Source: t.Source, Code: t.Code, Correct: t.Correct,
			CanonicalError: t.CanonicalError, NSamples: t.NSamples})
	}
	for _, c := range r.Coders {
		rec.Coders = append(rec.Coders, coderRecord{ID: c.ID, Source: c.Source, Code: c.Code, HiddenPass: c.HiddenPass,
			HiddenPassBase: c.HiddenPass, HiddenPassPlus: c.HiddenPass, LabelFromSource: c.Label, Loads: c.Loads,
			TestTimeouts: c.TestTimeouts})
		rec.PassMatrix = append(rec.PassMatrix, c.Row)
	}
	return rec
}

func write(path string, recs []record) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", r.TaskID, err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// summarise prints the counts the README quotes, so that they come from the build.
func summarise(w io.Writer, recs []record, results []result, skipped map[string]int) {
	type tally struct{ n, pass, label, agree, loads int }
	bySource := map[string]*tally{}
	testsBy := map[string]*tally{}
	var coders, tests, cells, timeouts, selfFound, selfCopies, selfOff, canonBad int
	var seconds float64
	for i, r := range recs {
		res := results[i]
		seconds += res.Seconds
		selfFound += res.SelfTests.Found
		selfCopies += res.SelfTests.Copies
		selfOff += res.SelfTests.OffEntry
		if !res.CanonicalHidden {
			canonBad++
		}
		for _, c := range r.Coders {
			t := bySource[c.Source]
			if t == nil {
				t = &tally{}
				bySource[c.Source] = t
			}
			t.n++
			t.pass += b2i(c.HiddenPass)
			t.loads += b2i(c.Loads)
			if c.LabelFromSource != nil {
				t.label++
				t.agree += b2i(*c.LabelFromSource == c.HiddenPass)
			}
			timeouts += c.TestTimeouts
		}
		for _, t := range r.Tests {
			s := testsBy[t.Source]
			if s == nil {
				s = &tally{}
				testsBy[t.Source] = s
			}
			s.n++
			s.pass += b2i(t.Correct)
		}
		coders += len(r.Coders)
		tests += len(r.Tests)
		cells += len(r.Coders) * len(r.Tests)
	}
	fmt.Fprintf(w, "problems %d, coders %d, tests %d, cells %d, timed-out cells %d, runner seconds %.0f\n",
		len(recs), coders, tests, cells, timeouts, seconds)
	fmt.Fprintf(w, "canonical fails its own test_list on %d problems\n", canonBad)
	fmt.Fprintf(w, "module-level asserts in coder programs %d: copies of test_list %d, not calling the entry point %d\n",
		selfFound, selfCopies, selfOff)
	for _, k := range sortedKeys(skipped) {
		fmt.Fprintf(w, "left out: %s: %d\n", k, skipped[k])
	}
	fmt.Fprintln(w, "| coder source | coders | hidden_pass | loads | source label agrees |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, k := range sortedKeys(bySource) {
		t := bySource[k]
		fmt.Fprintf(w, "| %s | %d | %.1f%% | %d | %d/%d |\n", k, t.n, pct(t.pass, t.n), t.loads, t.agree, t.label)
	}
	fmt.Fprintln(w, "| test source | asserts | correct |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, k := range sortedKeys(testsBy) {
		t := testsBy[k]
		fmt.Fprintf(w, "| %s | %d | %.1f%% |\n", k, t.n, pct(t.pass, t.n))
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmp.Compare[string])
	return keys
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}
