// Command swerun plays sympy issues end to end as a user would, with the bot binary:
// `bot run --population` on each population `bot eval --corpus … --populations` wrote
// (real agents' patches as coders, real LLM test patches as testers, the repository's
// affected tests guarding the coders), then `bot vet` of each held-out agent patch, and
// prints what each step said and took beside SWE-bench's labels.
//
//	go build -o /tmp/bot ./cmd/bot
//	go run ./cmd/bot eval --corpus ../shared/data/swe-sympy --populations /tmp/pops --instances …
//	go run ./bench/swerun -bot /tmp/bot -populations /tmp/pops [-state /tmp/swerun]
//
// The human's part is scripted, and only that: when a coder is stuck (it breaks the
// repository's own tests, or fails a vetted test it cannot catch up with, as a recorded
// patch never can) and the population has a fresh patch standing by, the driver answers
// `bot decide … replace <coder>`, as a maintainer would replace a broken agent; any other
// stop is the run's outcome. Every verdict still comes from the judge.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

func main() {
	bot := flag.String("bot", "bot", "the bot binary (go build -o /tmp/bot ./cmd/bot)")
	pops := flag.String("populations", "", "the folder bot eval --populations wrote")
	state := flag.String("state", filepath.Join(os.TempDir(), "dixit-swerun"), "the runs' state folder (kept: a second invocation resumes)")
	decisions := flag.Int("decisions", 6, "at most this many replacements per run")
	flag.Parse()
	if *pops == "" {
		fmt.Fprintln(os.Stderr, "swerun: -populations is required")
		os.Exit(2)
	}
	if err := run(*bot, *pops, *state, *decisions); err != nil {
		fmt.Fprintln(os.Stderr, "swerun:", err)
		os.Exit(1)
	}
}

// summary is what the driver reads of summary.json and vet-summary.json.
type summary struct {
	Run      string  `json:"run"`
	Outcome  string  `json:"outcome"`
	Reason   string  `json:"reason"`
	Rounds   int     `json:"rounds"`
	Wall     float64 `json:"wall_seconds"`
	Vetted   []any   `json:"vetted"`
	Evidence struct {
		Stuck *struct {
			Coder string `json:"coder"`
		} `json:"stuck"`
	} `json:"evidence"`
	Existing *struct {
		Scope   []string                 `json:"scope"`
		Set     struct{ Tests []string } `json:"set"`
		Seconds float64                  `json:"seconds"`
	} `json:"existing_tests"`
	Judge struct {
		Executions int     `json:"executions"`
		Seconds    float64 `json:"seconds"`
	} `json:"judge"`
	Vet *struct {
		Conclusion string `json:"conclusion"`
		Why        string `json:"why"`
	} `json:"vet"`
}

func run(bot, pops, state string, maxDecisions int) error {
	entries, err := os.ReadDir(pops)
	if err != nil {
		return err
	}
	fmt.Println("| instance | outcome | rounds | vetted | replaced | own tests: files on the base, tests in the set | run wall | held-out patch (SWE-bench label) | bot vet |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		pop := filepath.Join(pops, e.Name())
		if err := instance(bot, pop, state, maxDecisions); err != nil {
			return fmt.Errorf("%s: %w", e.Name(), err)
		}
	}
	return nil
}

func instance(bot, pop, state string, maxDecisions int) error {
	start := time.Now()
	if err := botRun(bot, "run", "--population", pop, "--state", state); err != nil {
		return err
	}
	runDir, err := runDirOf(state, filepath.Base(pop))
	if err != nil {
		return err
	}
	var replaced []string
	for {
		s, err := read(filepath.Join(runDir, "summary.json"))
		if err != nil {
			return err
		}
		if s.Outcome != "CODERS_STUCK" || s.Evidence.Stuck == nil || len(replaced) >= maxDecisions {
			break
		}
		stuck := s.Evidence.Stuck.Coder
		if !standingBy(pop, stuck) {
			break
		}
		if err := botRun(bot, "decide", "--state", state, s.Run, "replace", stuck); err != nil {
			return err
		}
		replaced = append(replaced, stuck)
		if err := botRun(bot, "run", "--resume", s.Run, "--state", state); err != nil {
			return err
		}
	}
	s, err := read(filepath.Join(runDir, "summary.json"))
	if err != nil {
		return err
	}
	wall := time.Since(start)
	own := "off"
	if s.Existing != nil {
		own = fmt.Sprintf("%d, %d (%.0f s)", len(s.Existing.Scope), len(s.Existing.Set.Tests), s.Existing.Seconds)
	}
	labels := map[string]string{}
	if data, err := os.ReadFile(filepath.Join(pop, "held-out", "labels.json")); err == nil {
		_ = json.Unmarshal(data, &labels) // labels are for the reader only
	}
	held, _ := filepath.Glob(filepath.Join(pop, "held-out", "*.diff"))
	sort.Strings(held)
	for i, h := range held {
		vetStart := time.Now()
		if err := botRun(bot, "vet", "--population", pop, "--patch", h, "--state", state); err != nil {
			return err
		}
		v, err := read(filepath.Join(runDir, "vet-summary.json"))
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(filepath.Base(h), ".diff")
		verdict := "none"
		if v.Vet != nil {
			verdict = fmt.Sprintf("%s (%.0f s): %s", v.Vet.Conclusion, time.Since(vetStart).Seconds(), cell(v.Vet.Why))
		}
		first := []string{filepath.Base(pop), s.Outcome, fmt.Sprint(s.Rounds), fmt.Sprint(len(s.Vetted)), orNone(strings.Join(replaced, ", ")), own,
			fmt.Sprintf("%.0f s (judge %d runs, %.0f s)", wall.Seconds(), s.Judge.Executions, s.Judge.Seconds)}
		if i > 0 {
			first = []string{"", "", "", "", "", "", ""}
		}
		fmt.Printf("| %s | %s (%s) | %s |\n", strings.Join(first, " | "), name, cmpOr(labels[name], "no label"), verdict)
	}
	if len(held) == 0 {
		fmt.Printf("| %s | %s | %d | %d | %s | %s | %.0f s | none | |\n", filepath.Base(pop), s.Outcome, s.Rounds, len(s.Vetted), orNone(strings.Join(replaced, ", ")), own, wall.Seconds())
	}
	return nil
}

// botRun runs the bot; exit codes 3 (the run stopped for a human) and 4 (the patch
// fails) are answers, not errors.
func botRun(bot string, args ...string) error {
	cmd := exec.Command(bot, args...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) && (exit.ExitCode() == 3 || exit.ExitCode() == 4) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("bot %s: %w\n%s", strings.Join(args, " "), err, tail(string(out), 2000))
	}
	return nil
}

// runDirOf is the run directory of a population: its name plus a digest.
func runDirOf(state, name string) (string, error) {
	found, err := filepath.Glob(filepath.Join(state, "runs", name+"-*"))
	if err != nil {
		return "", err
	}
	var dirs []string
	for _, f := range found {
		if info, err := os.Stat(filepath.Join(f, "summary.json")); err == nil && !info.IsDir() {
			dirs = append(dirs, f)
		}
	}
	if len(dirs) != 1 {
		return "", fmt.Errorf("want one run of %s under %s, found %d", name, state, len(dirs))
	}
	return dirs[0], nil
}

// standingBy tells whether the population has a fresh coder for the one stuck: the next
// replacement in its line (dee → dee_2 → dee_3).
func standingBy(pop, stuck string) bool {
	base, k := stuck, 2
	if i := strings.LastIndex(stuck, "_"); i > 0 {
		var n int
		if _, err := fmt.Sscanf(stuck[i+1:], "%d", &n); err == nil && fmt.Sprint(n) == stuck[i+1:] && n >= 2 {
			base, k = stuck[:i], n+1
		}
	}
	info, err := os.Stat(filepath.Join(pop, "replacements", fmt.Sprintf("%s_%d", base, k)))
	return err == nil && info.IsDir()
}

func read(file string) (*summary, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var s summary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &s, nil
}

func cell(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

func orNone(s string) string { return cmpOr(s, "none") }

func cmpOr(s, other string) string {
	if s == "" {
		return other
	}
	return s
}
