package deploy

import (
	"bufio"
	"cmp"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// need is what one REST operation asks of the App: a permission at a level, or the App's
// own JWT (app), or nothing beyond an installation token (token).
type need struct {
	perm, level string
	feature     string // "": a default install uses it; else the app-options.yml block that grants it
}

var (
	viaApp   = need{perm: "app"}   // authenticated as the App (JWT) or by a one-time code: no permission
	anyToken = need{perm: "token"} // any installation token may call it
	never    = need{perm: "never"} // GitHub refuses it to Apps; the code must not rely on it
)

// operationNeeds is kept by hand from GitHub's "Permissions required for GitHub Apps"
// pages: GitHub's OpenAPI description does not name an operation's permission (its
// x-github block has only enabledForGitHubApps, checked below against testdata).
var operationNeeds = map[string]need{
	"GET /repos/{owner}/{repo}":                                                  {"metadata", "read", ""},
	"GET /repos/{owner}/{repo}/collaborators/{username}/permission":              {"metadata", "read", ""},
	"GET /repos/{owner}/{repo}/contents/{path}":                                  {"contents", "read", ""},
	"GET /repos/{owner}/{repo}/issues":                                           {"issues", "read", ""},
	"GET /repos/{owner}/{repo}/issues/{issue_number}":                            {"issues", "read", ""},
	"GET /repos/{owner}/{repo}/issues/comments":                                  {"issues", "read", ""},
	"GET /repos/{owner}/{repo}/issues/{issue_number}/comments":                   {"issues", "read", ""},
	"GET /repos/{owner}/{repo}/issues/comments/{comment_id}":                     {"issues", "read", ""},
	"POST /repos/{owner}/{repo}/issues/{issue_number}/comments":                  {"issues", "write", ""},
	"PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}":                   {"issues", "write", ""},
	"GET /repos/{owner}/{repo}/pulls":                                            {"pull_requests", "read", ""},
	"GET /repos/{owner}/{repo}/pulls/{pull_number}":                              {"pull_requests", "read", ""},
	"POST /repos/{owner}/{repo}/pulls":                                           {"pull_requests", "write", ""},
	"PATCH /repos/{owner}/{repo}/pulls/{pull_number}":                            {"pull_requests", "write", ""},
	"GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews":                      {"pull_requests", "read", ""},
	"POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews":                     {"pull_requests", "write", ""},
	"PUT /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}":          {"pull_requests", "write", ""},
	"POST /repos/{owner}/{repo}/check-runs":                                      {"checks", "write", ""},
	"PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}":                      {"checks", "write", ""},
	"GET /repos/{owner}/{repo}/commits/{ref}/check-runs":                         {"checks", "read", ""},
	"POST /orgs/{org}/repos":                                                     {"administration", "write", "workshop-create"},
	"POST /user/repos":                                                           never, // Repositories.Create with no owner; the code always names one
	"POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches":      {"actions", "write", "actions-judge"},
	"GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs":             {"actions", "read", "actions-judge"},
	"GET /repos/{owner}/{repo}/actions/runs/{run_id}":                            {"actions", "read", "actions-judge"},
	"GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs":                       {"actions", "read", "actions-judge"},
	"GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts":                  {"actions", "read", "actions-judge"},
	"GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}": {"actions", "read", "actions-judge"},
	"GET /installation/repositories":                                             anyToken,
	"GET /app/installations":                                                     viaApp,
	"POST /app/installations/{installation_id}/access_tokens":                    viaApp,
	"GET /app/hook/deliveries":                                                   viaApp,
	"POST /app/hook/deliveries/{delivery_id}/attempts":                           viaApp,
	"POST /app-manifests/{code}/conversions":                                     viaApp,
}

// gitNeeds are what git over HTTPS asks: fetch reads contents, push writes them
// (internal/gitstate pushes the PR branch and the workshop's refs).
var gitNeeds = []need{{"contents", "write", ""}}

// A test fails when the code calls a GitHub endpoint whose permission the manifest lacks,
// or when the manifest asks for a permission no call needs. The calls are found in the
// code's go-github method calls (mapped to operations by go-github's own //meta:operation
// comments) and its hand-built REST paths.
func TestManifestPermissionsAreExactlyWhatTheCodeCalls(t *testing.T) {
	ops := calledOperations(t)
	require.NotEmpty(t, ops)
	described := describedOperations(t)
	var needs []need
	for op, where := range ops {
		n, ok := operationNeeds[op]
		if !assert.True(t, ok, "%s (called at %s) is not in operationNeeds: add the permission GitHub documents for it", op, where) {
			continue
		}
		apps, known := described[op]
		assert.True(t, known, "%s is not an operation of GitHub's description (testdata/github-operations.txt)", op)
		if n.perm != "app" && n.perm != "never" {
			assert.True(t, apps, "%s (called at %s): GitHub's description says Apps cannot call it", op, where)
		}
		needs = append(needs, n)
	}
	needs = append(needs, gitNeeds...)

	base := manifestPermissions(t, AppManifest)
	options := optionPermissions(t)
	used := map[string]bool{"metadata": true} // every App has metadata: read
	for _, n := range needs {
		if n.perm == "app" || n.perm == "token" || n.perm == "never" {
			continue
		}
		granted := base
		if n.feature != "" {
			granted = options[n.feature]
			require.NotNil(t, granted, "app-options.yml has no block %q", n.feature)
			used[n.feature+"/"+n.perm] = true
		} else {
			used[n.perm] = true
		}
		where := cmp.Or(n.feature, "a default install")
		assert.True(t, covers(granted[n.perm], n.level), "%s needs %s: %s, its manifest gives %q", where, n.perm, n.level, granted[n.perm])
	}
	for perm := range base {
		assert.True(t, used[perm], "app.yml asks for %s, which no call of the code needs", perm)
	}
	for feature, perms := range options {
		for perm := range perms {
			assert.True(t, used[feature+"/"+perm], "app-options.yml %s asks for %s, which no call of that feature needs", feature, perm)
		}
	}
	// The git calls the table assumes exist.
	gitstate, err := os.ReadFile("../internal/gitstate/gitstate.go")
	if err == nil {
		assert.Contains(t, string(gitstate), "push", "gitNeeds says the code pushes over HTTPS")
	}
}

func covers(granted, level string) bool {
	return granted == "write" || (granted == "read" && level == "read")
}

func manifestPermissions(t *testing.T, data []byte) map[string]string {
	var m struct {
		Perms map[string]string `yaml:"default_permissions"`
	}
	require.NoError(t, yaml.Unmarshal(data, &m))
	return m.Perms
}

func optionPermissions(t *testing.T) map[string]map[string]string {
	var m map[string]struct {
		Perms map[string]string `yaml:"default_permissions"`
	}
	require.NoError(t, yaml.Unmarshal(AppOptions, &m))
	out := map[string]map[string]string{}
	for k, v := range m {
		out[k] = v.Perms
	}
	return out
}

// describedOperations reads testdata/github-operations.txt: operation -> Apps may call it.
func describedOperations(t *testing.T) map[string]bool {
	f, err := os.Open("testdata/github-operations.txt")
	require.NoError(t, err)
	defer f.Close()
	out := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		out[line[:i]] = line[i+1:] == "apps"
	}
	require.NoError(t, sc.Err())
	return out
}

// goGitHubOperations maps "Service.Method" of go-github to the operations its
// //meta:operation comments name.
func goGitHubOperations(t *testing.T) map[string][]string {
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/google/go-github/v60").Output()
	require.NoError(t, err, "go list the go-github module")
	files, err := filepath.Glob(filepath.Join(strings.TrimSpace(string(dir)), "github", "*.go"))
	require.NoError(t, err)
	out := map[string][]string{}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		require.NoError(t, err)
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Doc == nil {
				continue
			}
			star, ok := fn.Recv.List[0].Type.(*ast.StarExpr)
			if !ok {
				continue
			}
			recv, _ := star.X.(*ast.Ident)
			if recv == nil || !strings.HasSuffix(recv.Name, "Service") {
				continue
			}
			for _, c := range fn.Doc.List {
				if op, ok := strings.CutPrefix(c.Text, "//meta:operation "); ok {
					key := strings.TrimSuffix(recv.Name, "Service") + "." + fn.Name.Name
					out[key] = append(out[key], op)
				}
			}
		}
	}
	require.NotEmpty(t, out["Issues.CreateComment"], "go-github's //meta:operation comments were found")
	return out
}

// rawPath is a REST path the code builds itself for Client.NewRequest, e.g.
// "repos/%s/%s/actions/workflows/%s/dispatches".
var rawPath = regexp.MustCompile(`^/?(repos|orgs|app|installation|user)/[^ ]*%[sdv]`)

// calledOperations scans the code (not its tests, nor the fake GitHub) for go-github
// calls and hand-built paths; it returns each operation with one place that calls it.
func calledOperations(t *testing.T) map[string]string {
	methods := goGitHubOperations(t)
	services := map[string]bool{}
	for k := range methods {
		services[strings.Split(k, ".")[0]] = true
	}
	out := map[string]string{}
	fset := token.NewFileSet()
	for _, root := range []string{"../internal", "../cmd"} {
		require.NoError(t, filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || d.Name() == "ghtest") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					inner, ok := n.X.(*ast.SelectorExpr)
					if ok && services[inner.Sel.Name] {
						for _, op := range methods[inner.Sel.Name+"."+n.Sel.Name] {
							out[op] = fset.Position(n.Pos()).String()
						}
					}
				case *ast.BasicLit:
					if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && rawPath.MatchString(s) {
						for _, op := range matchRaw(s) {
							out[op] = fset.Position(n.Pos()).String()
						}
					}
				}
				return true
			})
			return nil
		}))
	}
	return out
}

// matchRaw finds the table's operations whose path a hand-built format string makes; a
// path the table does not know comes back as "? /path", which fails the test.
func matchRaw(format string) []string {
	want := regexp.MustCompile(`%[sdv]`).ReplaceAllString("/"+strings.TrimPrefix(format, "/"), "{}")
	param := regexp.MustCompile(`\{[a-z_]+\}`)
	var ops []string
	for op := range operationNeeds {
		_, path, _ := strings.Cut(op, " ")
		if param.ReplaceAllString(path, "{}") == want {
			ops = append(ops, op)
		}
	}
	if len(ops) == 0 {
		return []string{"? " + want}
	}
	slices.Sort(ops)
	return ops
}
