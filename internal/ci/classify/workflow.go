package classify

import (
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Workflow is the classification workflow the App keeps in a workshop repository at
// WorkflowPath (internal/ci/classify/workflow/dixit-classify.yml; docs/actions.md).
//
//go:embed workflow/dixit-classify.yml
var Workflow []byte

// WorkflowPath is where Workflow goes in a workshop repository.
const WorkflowPath = ".github/workflows/dixit-classify.yml"

var (
	pinnedSHA  = regexp.MustCompile(`@[0-9a-f]{40}$`)
	dockerPin  = regexp.MustCompile(`^docker://[^@]+@sha256:[0-9a-f]{64}$`)
	expression = regexp.MustCompile(`\$\{\{`)
	secretsRef = regexp.MustCompile(`\$\{\{[^}]*\bsecrets\b`)
)

// CheckWorkflow is the static check every workflow of Dixit must pass. It refuses:
//
//   - the pull_request_target trigger (it runs with a write token on untrusted code);
//   - a `uses:` not pinned to a full 40-hex commit SHA (local ./ actions and docker://
//     images pinned by sha256 digest are allowed);
//   - any ${{ }} expression inside `run:` (inputs, github.event, matrix values... reach
//     scripts only through env:, where the shell cannot mistake them for code);
//   - a missing top-level `permissions:`, `write-all`, or any scope other than read or none;
//   - a reference to secrets;
//   - actions/checkout without persist-credentials: false;
//   - a job without timeout-minutes.
//
// name labels the errors; each error names the line.
func CheckWorkflow(name string, data []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("%s: invalid YAML: %w", name, err)
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return fmt.Errorf("%s: not a workflow (want a mapping at the top)", name)
	}
	c := &checker{name: name}
	root := doc.Content[0]
	if loc := secretsRef.FindIndex(data); loc != nil {
		line := 1 + strings.Count(string(data[:loc[0]]), "\n")
		c.fail(&yaml.Node{Line: line}, "refers to secrets: a classification workflow runs untrusted code and gets none")
	}
	c.triggers(get(root, "on"))
	if p := get(root, "permissions"); p == nil {
		c.fail(root, "no top-level permissions: state them (contents: read), or the token gets the repository's default, possibly write")
	} else {
		c.permissions(p)
	}
	jobs := get(root, "jobs")
	if jobs == nil || jobs.Kind != yaml.MappingNode {
		c.fail(root, "no jobs")
		return c.err()
	}
	for i := 0; i+1 < len(jobs.Content); i += 2 {
		c.job(jobs.Content[i].Value, jobs.Content[i+1])
	}
	return c.err()
}

type checker struct {
	name string
	errs []error
}

func (c *checker) fail(n *yaml.Node, format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf("%s:%d: %s", c.name, n.Line, fmt.Sprintf(format, args...)))
}

func (c *checker) err() error { return errors.Join(c.errs...) }

// triggers refuses pull_request_target in any of the three forms of `on:`.
func (c *checker) triggers(on *yaml.Node) {
	if on == nil {
		return
	}
	var names []*yaml.Node
	switch on.Kind {
	case yaml.ScalarNode:
		names = []*yaml.Node{on}
	case yaml.SequenceNode:
		names = on.Content
	case yaml.MappingNode:
		for i := 0; i < len(on.Content); i += 2 {
			names = append(names, on.Content[i])
		}
	}
	for _, n := range names {
		if n.Value == "pull_request_target" {
			c.fail(n, "pull_request_target runs with a write token and secrets on code from forks")
		}
	}
}

// permissions allows read-all, {} and scopes set to read or none.
func (c *checker) permissions(p *yaml.Node) {
	switch p.Kind {
	case yaml.ScalarNode:
		if p.Value != "read-all" {
			c.fail(p, "permissions: %s: want read-all or a map of scopes set to read or none", p.Value)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(p.Content); i += 2 {
			k, v := p.Content[i], p.Content[i+1]
			if v.Kind != yaml.ScalarNode || (v.Value != "read" && v.Value != "none") {
				c.fail(v, "permissions: %s: %s: want read or none", k.Value, v.Value)
			}
		}
	default:
		c.fail(p, "permissions: want read-all or a map of scopes")
	}
}

func (c *checker) job(name string, job *yaml.Node) {
	if job.Kind != yaml.MappingNode {
		c.fail(job, "job %s: not a mapping", name)
		return
	}
	if p := get(job, "permissions"); p != nil {
		c.permissions(p)
	}
	if u := get(job, "uses"); u != nil { // a reusable workflow
		c.uses(u)
	} else if get(job, "timeout-minutes") == nil {
		c.fail(job, "job %s: no timeout-minutes (the default is 6 hours)", name)
	}
	steps := get(job, "steps")
	if steps == nil {
		return
	}
	for _, step := range steps.Content {
		if step.Kind != yaml.MappingNode {
			continue
		}
		if run := get(step, "run"); run != nil && expression.MatchString(run.Value) {
			c.fail(run, "job %s: %s inside run: pass the value through env: and use \"$VAR\" (an expression is pasted into the script before the shell parses it)",
				name, firstExpression(run.Value))
		}
		u := get(step, "uses")
		if u == nil {
			continue
		}
		c.uses(u)
		if strings.HasPrefix(u.Value, "actions/checkout@") {
			with := get(step, "with")
			if pc := get(with, "persist-credentials"); pc == nil || pc.Value != "false" {
				c.fail(u, "job %s: actions/checkout without persist-credentials: false leaves the token in .git/config for the code that runs next", name)
			}
		}
	}
}

func (c *checker) uses(u *yaml.Node) {
	v := u.Value
	switch {
	case strings.HasPrefix(v, "./"):
	case strings.HasPrefix(v, "docker://"):
		if !dockerPin.MatchString(v) {
			c.fail(u, "uses: %s: pin the image by digest (@sha256:...)", v)
		}
	case !pinnedSHA.MatchString(v):
		c.fail(u, "uses: %s: pin to a full 40-hex commit SHA (tags and branches can be moved)", v)
	}
}

func firstExpression(s string) string {
	i := strings.Index(s, "${{")
	j := strings.Index(s[i:], "}}")
	if j < 0 {
		return strings.TrimSpace(s[i:])
	}
	return s[i : i+j+2]
}

// get returns the value of key in a mapping node, or nil.
func get(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
