package humaneval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/replay"
)

// header is the import header the data set puts in front of every coder (its README).
const header = "from typing import *\nimport math\nimport re\nimport collections\nimport itertools\nimport heapq\nimport functools\nimport string\nimport hashlib\n"

// sentinel is run after the asserts: a stub that does not load fails it, and would
// otherwise make every assert "fail on the base" for a reason of ours.
const sentinel = "assert True"

// Stub is the problem's base: the prompt as given (signature and docstring) with an empty
// body, so the function returns None, as a repository does before the change.
func Stub(p *replay.Problem) string {
	prompt := p.Prompt
	if !strings.HasSuffix(prompt, "\n") {
		prompt += "\n"
	}
	return header + prompt + "    pass\n"
}

// BuildOptions say how to build the derived lines.
type BuildOptions struct {
	Judge    ci.Judge     // runs the stub's asserts (replay.ExecContract, sandboxed)
	Python   string       // the python3 that parses programs for the groups; it runs none
	Progress func(string) // may be nil
}

// Build computes every problem's derived line: the stub's result on each assert, in the
// judge, and the groups of identical normalised programs.
func Build(ctx context.Context, problems []replay.Problem, opts BuildOptions) ([]Derived, error) {
	out := make([]Derived, 0, len(problems))
	for i := range problems {
		p := &problems[i]
		d, err := buildOne(ctx, p, opts)
		if err != nil {
			return nil, err
		}
		if opts.Progress != nil {
			opts.Progress(fmt.Sprintf("%s: stub passes %d of %d asserts, %d distinct programs of %d",
				p.TaskID, strings.Count(d.Stub, "p"), len(d.Stub), groups(d.CodeGroup), len(p.Coders)))
		}
		out = append(out, d)
	}
	return out, nil
}

func buildOne(ctx context.Context, p *replay.Problem, opts BuildOptions) (Derived, error) {
	withSentinel := *p
	withSentinel.Tests = append(append([]replay.Test(nil), p.Tests...), replay.Test{ID: "sentinel", Code: sentinel})
	results, err := replay.RunAsserts(ctx, opts.Judge, &withSentinel, Stub(p))
	if err != nil {
		return Derived{}, fmt.Errorf("build derived: %w", err)
	}
	if last := results[len(results)-1]; last != replay.AssertPass {
		return Derived{}, fmt.Errorf("build derived: %s: the stub did not run (its sentinel assert: %s)", p.TaskID, last)
	}
	var stub strings.Builder
	for _, r := range results[:len(p.Tests)] {
		stub.WriteByte(stubChars[r])
	}
	group, err := codeGroups(ctx, opts.Python, p)
	if err != nil {
		return Derived{}, fmt.Errorf("build derived: %s: %w", p.TaskID, err)
	}
	return Derived{TaskID: p.TaskID, TestsSHA: testsSHA(p), CodersSHA: codersSHA(p), Stub: stub.String(), CodeGroup: group}, nil
}

// normalise parses each program and prints it back without comments, docstrings or
// layout, the surface differences Agentless' majority vote ignores. It only parses: no
// program runs. A program that does not parse is compared by its text, trailing spaces
// and blank lines aside.
const normalise = `
import ast, json, sys
def strip(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree
out = []
for code in json.load(sys.stdin):
    try:
        out.append(ast.unparse(strip(ast.parse(code))))
    except Exception:
        out.append("\n".join(l.rstrip() for l in code.splitlines() if l.strip()))
json.dump(out, sys.stdout)
`

// codeGroups numbers the problem's coders by normalised program, in order of first
// appearance.
func codeGroups(ctx context.Context, python string, p *replay.Problem) ([]int, error) {
	codes := make([]string, len(p.Coders))
	for i, c := range p.Coders {
		codes[i] = c.Code
	}
	in, err := json.Marshal(codes)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, python, "-c", normalise)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("normalise programs with %s: %w: %s", python, err, strings.TrimSpace(stderr.String()))
	}
	var norm []string
	if err := json.Unmarshal(raw, &norm); err != nil || len(norm) != len(codes) {
		return nil, fmt.Errorf("normalise programs with %s: %d answers for %d programs (%v)", python, len(norm), len(codes), err)
	}
	at := map[string]int{}
	out := make([]int, len(norm))
	for i, n := range norm {
		g, ok := at[n]
		if !ok {
			g = len(at)
			at[n] = g
		}
		out[i] = g
	}
	return out, nil
}

func groups(g []int) int {
	n := 0
	for _, x := range g {
		n = max(n, x+1)
	}
	return n
}
