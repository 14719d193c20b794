package ci

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shellContract runs a shell script as the test: no toolchain, no build, fast.
func shellContract() Contract {
	return Contract{Path: "t_{id}.sh", Run: "sh ./t_{id}.sh", Timeout: 5 * time.Second}
}

func shellTree() mapTree { return mapTree{"README": "a tree\n"} }

func newShellJudge(t *testing.T, edit func(*LocalOptions)) *Local {
	t.Helper()
	opts := LocalOptions{Contract: shellContract(), WorkDir: t.TempDir(), Logger: quietLogger()}
	if edit != nil {
		edit(&opts)
	}
	l, err := NewLocal(opts)
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	return l
}

func shellJob(id, script string) Job {
	return Job{Coder: "c-" + id, Tree: shellTree(), Test: Test{ID: id, Content: []byte(script)}}
}

func TestLocalVerdictsInJobOrder(t *testing.T) {
	l := newShellJudge(t, func(o *LocalOptions) { o.Parallel = 3 })
	var jobs []Job
	for i := 0; i < 6; i++ { // the first job finishes last
		jobs = append(jobs, shellJob(fmt.Sprint(i), fmt.Sprintf("sleep 0.%d\necho job %d\nexit 1\n", 5-i, i)))
	}
	vs, err := l.Run(context.Background(), 1, jobs)
	require.NoError(t, err)
	require.Len(t, vs, len(jobs))
	for i, v := range vs {
		assert.Equal(t, Fail, v.Outcome)
		assert.Contains(t, v.Output, fmt.Sprintf("job %d\n", i))
	}
}

func TestLocalJudgeErrors(t *testing.T) {
	ok := shellJob("ok", "exit 0\n")
	cases := []struct {
		name  string
		jobs  []Job
		setup func(t *testing.T, l *Local) context.Context
		want  string
	}{
		{name: "id escapes the tree", jobs: []Job{ok, shellJob("../evil", "exit 0\n")}, want: "test id"},
		{name: "id with a slash", jobs: []Job{shellJob("a/b", "exit 0\n")}, want: "test id"},
		{name: "id with shell syntax", jobs: []Job{shellJob("x;rm", "exit 0\n")}, want: "test id"},
		{name: "empty id", jobs: []Job{shellJob("", "exit 0\n")}, want: "test id"},
		{name: "no tree", jobs: []Job{{Coder: "c", Test: Test{ID: "x"}}}, want: "no tree"},
		{name: "tree cannot be written", jobs: []Job{ok, {Coder: "c", Tree: failingTree{}, Test: Test{ID: "x"}}}, want: "disk on fire"},
		{name: "work dir unusable", jobs: []Job{ok}, want: "job dir",
			setup: func(t *testing.T, l *Local) context.Context {
				require.NoError(t, os.RemoveAll(l.sb.WorkDir()))
				require.NoError(t, os.WriteFile(l.sb.WorkDir(), nil, 0o644))
				return context.Background()
			}},
		{name: "context cancelled", jobs: []Job{ok, shellJob("slow", "sleep 10\n")}, want: "context canceled",
			setup: func(t *testing.T, l *Local) context.Context {
				ctx, cancel := context.WithCancel(context.Background())
				time.AfterFunc(300*time.Millisecond, cancel)
				return ctx
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := newShellJudge(t, nil)
			ctx := context.Background()
			if c.setup != nil {
				ctx = c.setup(t, l)
			}
			start := time.Now()
			vs, err := l.Run(ctx, 2, c.jobs)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.Nil(t, vs)
			assert.Less(t, time.Since(start), 5*time.Second)
		})
	}
}

func TestNewLocalErrors(t *testing.T) {
	cases := []struct {
		name string
		edit func(*LocalOptions)
		want string
	}{
		{name: "no run command", edit: func(o *LocalOptions) { o.Contract.Run = "" }, want: "run command"},
		{name: "no path", edit: func(o *LocalOptions) { o.Contract.Path = "" }, want: "path"},
		{name: "path escapes", edit: func(o *LocalOptions) { o.Contract.Path = "../{id}.sh" }, want: "not a clean path"},
		{name: "absolute path", edit: func(o *LocalOptions) { o.Contract.Path = "/etc/{id}.sh" }, want: "not a clean path"},
		{name: "bad exclude pattern", edit: func(o *LocalOptions) { o.Contract.Exclude = []string{"["} }, want: "exclude"},
		{name: "unknown toolchain", edit: func(o *LocalOptions) { o.Contract.Toolchain = "cobol" }, want: "toolchain"},
		{name: "unknown sandbox", edit: func(o *LocalOptions) { o.Sandbox = "chroot" }, want: "unknown sandbox"},
		{name: "work dir is a file", edit: func(o *LocalOptions) {
			f := filepath.Join(o.WorkDir, "file")
			os.WriteFile(f, nil, 0o644)
			o.WorkDir = f
		}, want: "work dir"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := LocalOptions{Contract: shellContract(), WorkDir: t.TempDir(), Logger: quietLogger()}
			c.edit(&opts)
			l, err := NewLocal(opts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.Nil(t, l)
		})
	}
}

// warnCounter is a slog handler that keeps warnings.
type warnCounter struct {
	mu   *sync.Mutex
	msgs *[]string
}

func newWarnCounter() warnCounter { return warnCounter{mu: &sync.Mutex{}, msgs: &[]string{}} }

func (w warnCounter) Enabled(context.Context, slog.Level) bool { return true }
func (w warnCounter) WithAttrs([]slog.Attr) slog.Handler       { return w }
func (w warnCounter) WithGroup(string) slog.Handler            { return w }
func (w warnCounter) Handle(_ context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return nil
	}
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	w.mu.Lock()
	*w.msgs = append(*w.msgs, b.String())
	w.mu.Unlock()
	return nil
}

func (w warnCounter) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string{}, *w.msgs...)
}
