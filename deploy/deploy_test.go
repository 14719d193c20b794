package deploy

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

func TestAppManifestAsksForNoMoreThanItNeeds(t *testing.T) {
	data, err := os.ReadFile("app.yml")
	require.NoError(t, err)
	var m struct {
		Permissions map[string]string `yaml:"default_permissions"`
		Events      []string          `yaml:"default_events"`
	}
	require.NoError(t, yaml.Unmarshal(data, &m))
	assert.NotContains(t, m.Permissions, "workflows", "the App can never change a workflow")
	assert.Equal(t, "read", m.Permissions["metadata"])
	assert.ElementsMatch(t, []string{"issues", "issue_comment", "pull_request", "check_run", "check_suite"}, m.Events)
	assert.NotContains(t, m.Permissions, "administration", "creating workshops is opt-in (app-options.yml)")
	assert.NotContains(t, m.Permissions, "actions", "the actions judge is opt-in (app-options.yml)")
	opts, err := os.ReadFile("app-options.yml")
	require.NoError(t, err)
	for _, line := range strings.Split(string(data)+string(opts), "\n") {
		trimmed := strings.TrimSpace(line)
		for _, name := range []string{"metadata", "issues", "pull_requests", "contents", "checks", "actions", "administration"} {
			if strings.HasPrefix(trimmed, name+":") {
				assert.Regexp(t, `#.*(GET|POST|PATCH|PUT|git) `, line, "permission %s names the API calls that need it", name)
			}
		}
	}
}

// dockerfile is deploy/Dockerfile with continuation lines joined, one instruction a line.
func dockerfile(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("Dockerfile")
	require.NoError(t, err)
	var out []string
	cur := ""
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		cur += strings.TrimSuffix(trimmed, "\\") + " "
		if !strings.HasSuffix(trimmed, "\\") {
			out = append(out, strings.TrimSpace(cur))
			cur = ""
		}
	}
	return out
}

func instructions(lines []string, name string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(strings.ToUpper(l), name+" ") {
			out = append(out, strings.TrimSpace(l[len(name):]))
		}
	}
	return out
}

func TestDockerfileBaseImagesArePinnedByDigest(t *testing.T) {
	froms := instructions(dockerfile(t), "FROM")
	require.Len(t, froms, 2, "a build stage and a runtime stage")
	pinned := regexp.MustCompile(`^[a-z0-9./-]+:[0-9a-z.-]+@sha256:[0-9a-f]{64}( AS \w+)?$`)
	for _, f := range froms {
		assert.Regexp(t, pinned, f, "a base image named by tag and digest")
	}
	assert.Contains(t, froms[0], " AS build")
	assert.True(t, strings.HasPrefix(froms[1], "debian:bookworm-slim@"),
		"the runtime is a slim Debian, not the Go build image: %s", froms[1])
}

func TestDockerfileRuntimeHasWhatTheJudgeRuns(t *testing.T) {
	lines := dockerfile(t)
	runs := strings.Join(instructions(lines, "RUN"), "\n")
	for _, pkg := range []string{"bubblewrap", "util-linux", "git", "python3-pytest", "nodejs", "tini", "ca-certificates"} {
		assert.Regexp(t, `\s`+regexp.QuoteMeta(pkg)+`\s`, runs, "the runtime installs %s", pkg)
	}
	assert.Contains(t, runs, "chmod a-s", "no setuid binary is left in the image")
	copies := strings.Join(instructions(lines, "COPY"), "\n")
	assert.Contains(t, copies, "--from=build /usr/local/go /usr/local/go", "the Go contract needs the toolchain, and only it")
	assert.Contains(t, copies, "--from=build /out/bot /usr/local/bin/bot")
	assert.Contains(t, strings.Join(instructions(lines, "ENV"), " "), "/usr/local/go/bin", "go is on PATH")
	assert.Contains(t, strings.Join(instructions(lines, "RUN"), " "), "./cmd/bot")
	_, err := os.Stat("../cmd/bot/main.go")
	assert.NoError(t, err, "the Dockerfile builds a package that exists")
}

func TestDockerfileRunsAsANumericNonRootUser(t *testing.T) {
	users := instructions(dockerfile(t), "USER")
	require.Len(t, users, 1)
	// Kubernetes' runAsNonRoot can only check a numeric user.
	assert.Regexp(t, `^[1-9][0-9]*(:[1-9][0-9]*)?$`, users[0])
	assert.Equal(t, "10001:10001", users[0], "the uid the manifests run as")
}

func TestDockerfileHealthcheckAsksTheServersHealthEndpoint(t *testing.T) {
	hc := instructions(dockerfile(t), "HEALTHCHECK")
	require.Len(t, hc, 1)
	assert.Contains(t, hc[0], "/healthz")
	assert.Contains(t, hc[0], "DIXIT_LISTEN", "it follows the port the server listens on")
	server, err := os.ReadFile("../internal/server/server.go")
	require.NoError(t, err)
	assert.Contains(t, string(server), `"GET /healthz"`, "the endpoint the health check asks exists")
	assert.Contains(t, strings.Join(instructions(dockerfile(t), "ENTRYPOINT"), ""), `"serve"`)
}

func TestDockerignoreKeepsHistoryStateAndBinariesOut(t *testing.T) {
	data, err := os.ReadFile("../.dockerignore")
	require.NoError(t, err)
	lines := strings.Split(string(data), "\n")
	for _, p := range []string{".git", ".dixit", "/bot", "**/*.test"} {
		assert.Contains(t, lines, p)
	}
	for _, kept := range []string{"examples", "internal", "cmd", "go.mod", "go.sum"} {
		assert.NotContains(t, lines, kept, "the build needs %s", kept)
	}
}

// No file in deploy/ names a moving tag: an image is a released version or a digest.
func TestNothingDeploysLatest(t *testing.T) {
	latest := regexp.MustCompile(`:latest\b`)
	files := []string{"../.dockerignore"}
	require.NoError(t, filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(path, "_test.go") {
			files = append(files, path)
		}
		return err
	}))
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.False(t, latest.Match(data), "%s names :latest", f)
	}
}

// The run line people copy from docs/install.md is one under which bwrap starts
// (runtime_test.go shows why each option is needed).
func TestInstallDocsRunTheImageSoBubblewrapStarts(t *testing.T) {
	data, err := os.ReadFile("../docs/install.md")
	require.NoError(t, err)
	doc := string(data)
	start := strings.Index(doc, "docker run -d")
	require.GreaterOrEqual(t, start, 0, "docs/install.md shows how to run the image")
	line := doc[start : start+strings.Index(doc[start:], "```")]
	for _, opt := range []string{"--cap-drop ALL", "no-new-privileges", "seccomp=deploy/seccomp-bwrap.json",
		"systempaths=unconfined", "apparmor=unconfined", "--read-only", "--tmpfs /tmp", ":/var/lib/dixit"} {
		assert.Contains(t, line, opt)
	}
	assert.NotContains(t, line, "--privileged")
	assert.NotContains(t, line, "--cap-add")
	assert.NotContains(t, line, "seccomp=unconfined")
}
