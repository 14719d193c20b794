package orchestrate

import (
	"encoding/json"
	"fmt"
	"strings"
)

// planRequest asks blind's planner for tests reasoned from the description alone.
const planRequest = `Please plan the tests for this specification from its description alone. Answer with a JSON object:
{"tests": [{"id": "...", "input": "...", "expected": "...", "reasoning": "...", "category": "happy_path | edge_case | boundary | error"}],
 "requirements": ["..."], "assumptions": ["..."], "uncertainties": ["..."]}
Cover the happy path, boundaries, edge cases the description hints at, and error cases.`

// testPlan is blind's plan: tests reasoned from the description, and what the planner
// read into it.
type testPlan struct {
	Tests         []plannedTest
	Requirements  []string
	Assumptions   []string
	Uncertainties []string
	Raw           string // the answer as given, when it could not be read
}

type plannedTest struct {
	ID, Input, Expected, Reasoning, Category string
}

// maxPlannedTests bounds what one plan can ask the coder to write.
const maxPlannedTests = 100

// parsePlan reads the planner's answer, tolerating the usual shapes (prose around the
// object, camelCase keys, values that are objects where strings were asked for). An
// answer that is not a plan is handed to the coder as it is.
func parsePlan(text string) testPlan {
	obj, ok := jsonObject(text)
	if !ok {
		return testPlan{Raw: clipText(strings.TrimSpace(text), 20000)}
	}
	var p testPlan
	for key, val := range obj {
		switch normalKey(key) {
		case "tests", "testcases":
			items, _ := val.([]any)
			for _, item := range items {
				m, ok := item.(map[string]any)
				if !ok || len(p.Tests) == maxPlannedTests {
					continue
				}
				var t plannedTest
				for k, v := range m {
					s := valueText(v)
					switch normalKey(k) {
					case "id", "name":
						t.ID = s
					case "input", "inputs":
						t.Input = s
					case "expected", "expectedoutput", "output":
						t.Expected = s
					case "reasoning", "reason", "why":
						t.Reasoning = s
					case "category", "kind":
						t.Category = s
					}
				}
				p.Tests = append(p.Tests, t)
			}
		case "requirements":
			p.Requirements = corrections(val)
		case "assumptions":
			p.Assumptions = corrections(val)
		case "uncertainties":
			p.Uncertainties = corrections(val)
		}
	}
	if len(p.Tests) == 0 {
		p.Raw = clipText(strings.TrimSpace(text), 20000)
	}
	return p
}

// valueText renders a plan value: a string as it is, anything else as compact JSON.
func valueText(v any) string {
	if s, ok := v.(string); ok {
		return clipText(s, maxCorrectionBytes)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return clipText(fmt.Sprint(v), maxCorrectionBytes)
	}
	return clipText(string(data), maxCorrectionBytes)
}

func normalKey(k string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.TrimSpace(k)))
}

func (p testPlan) summary() string {
	if len(p.Tests) == 0 {
		return "a plan that could not be read as JSON"
	}
	return fmt.Sprintf("%d planned tests, %d requirements, %d assumptions, %d uncertainties",
		len(p.Tests), len(p.Requirements), len(p.Assumptions), len(p.Uncertainties))
}

// implementPlan asks the coder to implement the spec and write the plan's tests as its own.
func implementPlan(p testPlan) string {
	var b strings.Builder
	b.WriteString("Please implement the specification. Here is a plan of tests, reasoned from the description alone; " +
		"write them as your own tests (in the repository's usual test files) and make them pass. " +
		"Where the plan seems wrong about the description, follow the description.\n")
	if p.Raw != "" {
		b.WriteString("\nThe plan:\n" + p.Raw + "\n")
	}
	for i, t := range p.Tests {
		fmt.Fprintf(&b, "\n%d. [%s] %s\n   input: %s\n   expected: %s\n   why: %s\n", i+1, orDash(t.Category), orDash(t.ID), orDash(t.Input), orDash(t.Expected), orDash(t.Reasoning))
	}
	for _, part := range []struct {
		title string
		items []string
	}{{"Requirements", p.Requirements}, {"Assumptions", p.Assumptions}, {"Uncertainties", p.Uncertainties}} {
		if len(part.items) > 0 {
			fmt.Fprintf(&b, "\n%s:\n- %s\n", part.title, strings.Join(part.items, "\n- "))
		}
	}
	b.WriteString("\n" + writeOwnTests)
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
