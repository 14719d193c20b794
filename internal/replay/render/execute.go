package render

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dixit-bot/dixit/internal/replay"
)

// classOrder lists the disagreement classes in the order a reader wants them.
var classOrder = []string{replay.ClassFlaky, replay.ClassTimeout, replay.ClassStable, replay.ClassEnvironment, replay.ClassUnconfirmed}

// ExecSummary is the agreement in a few lines, for a terminal.
func ExecSummary(w io.Writer, rep *replay.ExecReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "\nexecuted %d problems: %d coders (%d distinct programs) in %d judge jobs, %.0f s\n",
		rep.Problems, rep.Coders, rep.Programs, rep.Jobs, rep.Seconds)
	fmt.Fprintf(&b, "agreement with the recorded matrix: %d of %d cells (%s) at the first execution, %d (%s) counting confirming runs\n",
		rep.Agree, rep.Cells, share(rep.Agree, rep.Cells), rep.AgreeAfter, share(rep.AgreeAfter, rep.Cells))
	fmt.Fprintf(&b, "disagreements: %s; cells timed out here: %d; cells the environment kept from running (not counted): %d\n",
		classes(rep), rep.Timeouts, rep.Environment)
	for _, e := range rep.EnvironmentAt {
		fmt.Fprintf(&b, "  environment: %s\n", oneLine(e, 200))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func share(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%.3f%%", 100*float64(n)/float64(of))
}

func classes(rep *replay.ExecReport) string {
	if len(rep.ByClass) == 0 {
		return "none"
	}
	var parts []string
	keys := slices.Sorted(maps.Keys(rep.ByClass))
	for _, c := range append(slices.Clone(classOrder), keys...) {
		if n, ok := rep.ByClass[c]; ok && !slices.Contains(parts, fmt.Sprintf("%d %s", n, c)) {
			parts = append(parts, fmt.Sprintf("%d %s", n, c))
		}
	}
	return strings.Join(parts, ", ")
}

// ExecMarkdown writes execute.md: the agreement and every listed disagreement.
func ExecMarkdown(w io.Writer, rep *replay.ExecReport) error {
	var b strings.Builder
	b.WriteString("# Recorded code through the judge\n\n")
	fmt.Fprintf(&b, "Every recorded program of %d problems, run against every recorded assert in the judge's sandbox "+
		"(the `python` contract: pytest in bubblewrap), one job per distinct program with one test per assert, each assert "+
		"under the data set's limits (load 3 s, assert 0.5 s, 0.05 s after a program's fourth timeout) and its PYTHONHASHSEED=0; "+
		"a module missing from this python3 makes a cell the environment's, never compared. Each cell whose first "+
		"execution disagrees with the recorded matrix runs again alone, %d times (the judge's reruns), to classify it.\n\n",
		rep.Problems, rep.Reruns)
	b.WriteString("| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| coders (distinct programs) | %d (%d) |\n| judge jobs | %d |\n| time | %.0f s |\n", rep.Coders, rep.Programs, rep.Jobs, rep.Seconds)
	fmt.Fprintf(&b, "| cells compared | %d |\n| **agree, first execution** | **%d (%s)** |\n| agree, counting confirming runs | %d (%s) |\n",
		rep.Cells, rep.Agree, share(rep.Agree, rep.Cells), rep.AgreeAfter, share(rep.AgreeAfter, rep.Cells))
	fmt.Fprintf(&b, "| timed out here (counted as failing, as recorded) | %d |\n| kept from running by the environment (not counted) | %d |\n",
		rep.Timeouts, rep.Environment)
	fmt.Fprintf(&b, "| disagreements | %s |\n", classes(rep))
	b.WriteString("\nClasses: **flaky**, the cell's result changed between executions; **timeout**, an execution ran out of time on it; " +
		"**stable**, every execution here gives the answer the matrix does not; **environment**, the judge could not run it; " +
		"**unconfirmed**, past the cap on confirming jobs.\n")
	if len(rep.EnvironmentAt) > 0 {
		b.WriteString("\n## Environment failures\n\n")
		for _, e := range rep.EnvironmentAt {
			fmt.Fprintf(&b, "- %s\n", oneLine(e, 300))
		}
	}
	if len(rep.Disagreements) > 0 {
		b.WriteString("\n## Disagreements\n\n| problem | coder | test | assert | recorded | first execution | confirming job | class |\n|---|---|---|---|---|---|---|---|\n")
		for _, d := range rep.Disagreements {
			rec := "fail"
			if d.Recorded {
				rec = "pass"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | `%s` | %s | %s | %s | %s |\n", d.TaskID, d.Coder, d.Test,
				strings.ReplaceAll(oneLine(d.Assert, 100), "|", `\|`), rec, d.First, strings.ReplaceAll(oneLine(d.Confirm, 80), "|", `\|`), d.Class)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteExec puts execute.md and execute.json into dir and returns their paths.
func WriteExec(dir string, rep *replay.ExecReport) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("execute output: %w", err)
	}
	var md strings.Builder
	if err := ExecMarkdown(&md, rep); err != nil {
		return nil, err
	}
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("execute.json: %w", err)
	}
	paths := []string{filepath.Join(dir, "execute.md"), filepath.Join(dir, "execute.json")}
	for i, data := range [][]byte{[]byte(md.String()), append(js, '\n')} {
		if err := os.WriteFile(paths[i], data, 0o644); err != nil {
			return nil, fmt.Errorf("write %s: %w", paths[i], err)
		}
	}
	return paths, nil
}
