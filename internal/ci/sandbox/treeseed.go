package sandbox

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// treeSeed is the tree's own bytecode, compiled once per sandbox from the first tree a
// job lays out, for every later job to read: a Python job of a tree as large as sympy's
// compiled the modules it imports again in every job (about 2 s of CPU for sympy's
// import), since its bytecode lives in the job's private /tmp.
//
// The seed is compiled by the judge's own command (Toolchain.SeedTree) in a sandbox, with
// nothing of the tree's run, in a directory the judge makes fresh; it leaves the job's
// tree before any of the job's code runs, and later jobs see it read-only. The compiled
// files are checked against their sources' hashes (Python's checked-hash bytecode), so a
// job whose module differs from the seed's compiles its own, and a coder's tree cannot
// make another coder's job run code it did not write: it could only make the seed hold
// the compiled form of its own sources, which a job uses only for identical sources.
type treeSeed struct {
	mu    sync.Mutex
	tried bool     // one attempt per sandbox: a tree that does not compile is not retried
	binds []string // bwrap arguments binding the seed, once it is ready
}

// SeedTree compiles the tree of the job at dir into the sandbox's seed, if the toolchain
// has a command for it, bubblewrap runs, and no job has tried already. Any failure only
// leaves the jobs without a seed: they compile what they import, as before.
func (s *Sandbox) SeedTree(ctx context.Context, dir string, lane Lane) {
	if s.seed == nil || s.tc.SeedTree == "" || s.tc.Mirror.Under == "" || s.bwrap == "" {
		return
	}
	s.seed.mu.Lock()
	if s.seed.tried {
		s.seed.mu.Unlock()
		return
	}
	s.seed.tried = true
	s.seed.mu.Unlock()
	binds, err := s.compileSeed(ctx, dir, lane)
	if err != nil {
		s.log.Info("ci: jobs compile the tree's modules themselves", "why", err.Error())
		return
	}
	s.seed.mu.Lock()
	s.seed.binds = binds
	s.seed.mu.Unlock()
}

// compileSeed runs the toolchain's command on the job's tree with its output in a fresh
// directory of the tree, then moves that directory out of the tree.
func (s *Sandbox) compileSeed(ctx context.Context, dir string, lane Lane) ([]string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	name := ".dixit-seed-" + hex.EncodeToString(b)
	out := filepath.Join(dir, "src", name)
	if err := os.Mkdir(out, 0o755); err != nil {
		return nil, err
	}
	defer os.RemoveAll(out)
	if os.Geteuid() == 0 {
		if err := os.Chown(out, lane.UID, lane.GID); err != nil {
			return nil, err
		}
	}
	script := strings.NewReplacer("{out}", path.Join(boxSrc, name), "{skip}", name).Replace(s.tc.SeedTree)
	inv := Invocation{Dir: dir, Lane: lane, Script: script, Runs: 1, Timeout: cmp.Or(s.buildTimeout, 5*time.Minute)}
	res, err := s.Execute(ctx, inv)
	if err != nil {
		return nil, err
	}
	if !res.Passed(1) {
		_, note := s.Outcome(res, inv.Timeout, true)
		return nil, fmt.Errorf("compiling the tree's modules: %s", note)
	}
	// What the command wrote for the tree at boxSrc is under out + boxSrc.
	compiled := filepath.Join(out, filepath.FromSlash(boxSrc))
	if fi, err := os.Lstat(compiled); err != nil || !fi.IsDir() {
		return nil, errors.New("compiling the tree's modules: no module compiled")
	}
	seed := filepath.Join(s.work, name)
	if err := os.Rename(compiled, seed); err != nil {
		return nil, err
	}
	at := path.Join(KeepDir, s.tc.Mirror.Under, boxSrc)
	return append(keepDirArgs(at), "--ro-bind", seed, at), nil
}

// seedBinds are the bwrap arguments that show the seed to a job, or nil.
func (s *Sandbox) seedBinds() []string {
	if s.seed == nil {
		return nil
	}
	s.seed.mu.Lock()
	defer s.seed.mu.Unlock()
	return s.seed.binds
}
