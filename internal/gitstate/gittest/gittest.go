// Package gittest serves git repositories over smart HTTP for tests, with the real
// `git http-backend` behind net/http/cgi and GitHub's token convention for auth
// (user x-access-token, password the installation token).
package gittest

import (
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Server is a git host for tests.
type Server struct {
	URL   string // base URL; a repository is at URL + "/" + name + ".git"
	Token string // the password clients must present
	// Accept, when set, decides which passwords are valid instead of Token: for tests
	// whose tokens come from a fake GitHub.
	Accept func(token string) bool
	root   string
	t      testing.TB
}

// NewServer starts a git host; it is skipped when git is not installed.
func NewServer(t testing.TB) *Server {
	t.Helper()
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	s := &Server{Token: "ghs_test-installation-token", root: t.TempDir(), t: t}
	backend := &cgi.Handler{
		Path: gitPath,
		Args: []string{"http-backend"},
		Env:  []string{"GIT_PROJECT_ROOT=" + s.root, "GIT_HTTP_EXPORT_ALL=1"},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		valid := pass == s.Token
		if s.Accept != nil {
			valid = s.Accept(pass)
		}
		if !ok || user != "x-access-token" || !valid {
			w.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		// http-backend accepts pushes from an authenticated user only.
		r.Header.Del("Authorization")
		h := *backend
		h.Env = append(append([]string{}, backend.Env...), "REMOTE_USER="+user)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Repo creates a bare repository name.git whose branch holds files in one commit, and
// returns its clone URL.
func (s *Server) Repo(name, branch string, files map[string]string) string {
	s.t.Helper()
	work := s.t.TempDir()
	for p, content := range files {
		full := filepath.Join(work, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			s.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			s.t.Fatal(err)
		}
	}
	bare := filepath.Join(s.root, name+".git")
	s.git(work, "init", "-q", "-b", branch)
	s.git(work, "add", ".")
	s.git(work, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "initial")
	s.git(s.root, "clone", "-q", "--bare", work, bare)
	s.git(bare, "config", "http.receivepack", "true")
	return s.URL + "/" + name + ".git"
}

// Commit records files as the whole tree of a new commit on top of parent (a ref or commit
// of repository name), points each of refs at it, and returns the commit: a push to a
// pull request is Commit(name, "main", files, "refs/heads/fix", "refs/pull/2/head").
func (s *Server) Commit(name, parent string, files map[string]string, refs ...string) string {
	s.t.Helper()
	work := s.t.TempDir()
	bare := filepath.Join(s.root, name+".git")
	s.git(work, "clone", "-q", "--no-checkout", bare, ".")
	s.git(work, "checkout", "-q", "--detach", parent)
	s.git(work, "rm", "-rq", "--ignore-unmatch", ".")
	for p, content := range files {
		full := filepath.Join(work, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			s.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			s.t.Fatal(err)
		}
	}
	s.git(work, "add", "-A")
	s.git(work, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "change", "--allow-empty")
	for _, ref := range refs {
		s.git(work, "push", "-qf", "origin", "HEAD:"+ref)
	}
	return s.rev(work, "HEAD")
}

func (s *Server) rev(dir, rev string) string {
	s.t.Helper()
	cmd := exec.Command("git", "rev-parse", rev)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		s.t.Fatalf("git rev-parse %s: %v", rev, err)
	}
	return strings.TrimSpace(string(out))
}

func (s *Server) git(dir string, args ...string) {
	s.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// EmptyRepo creates an empty bare repository name.git that accepts pushes, as GitHub
// creates a repository without a README, and returns its clone URL.
func (s *Server) EmptyRepo(name string) string {
	s.t.Helper()
	bare := filepath.Join(s.root, name+".git")
	s.git(s.root, "init", "-q", "--bare", bare)
	s.git(bare, "config", "http.receivepack", "true")
	return s.URL + "/" + name + ".git"
}

// Refs returns the refs of a repository the server holds, by name, as git itself reads them.
func (s *Server) Refs(name string) map[string]string {
	s.t.Helper()
	cmd := exec.Command("git", "for-each-ref", "--format=%(objectname) %(refname)")
	cmd.Dir = filepath.Join(s.root, name+".git")
	out, err := cmd.Output()
	if err != nil {
		s.t.Fatalf("git for-each-ref in %s: %v", name, err)
	}
	refs := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if hash, ref, ok := strings.Cut(line, " "); ok {
			refs[ref] = hash
		}
	}
	return refs
}

// Path returns the directory of a repository the server holds, to inspect it directly.
func (s *Server) Path(name string) string { return filepath.Join(s.root, name+".git") }

// ReadDir returns the files under dir by slash path, to seed a repository with Repo.
func ReadDir(t testing.TB, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatalf("read %s: %v", dir, err)
	}
	return files
}
