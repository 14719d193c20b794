package sandbox

import (
	"path/filepath"
	"strings"
)

// Toolchain is what a contract's toolchain needs from the host inside the sandbox
// (package languages finds it on the host).
type Toolchain struct {
	Mounts   []string          // host paths bound read-only at the same place
	Path     []string          // directories put first on PATH
	Env      map[string]string // set for builds and runs
	BuildEnv map[string]string // set for builds only, over Env
	CacheVar string            // variable naming the judge-owned build cache, if any
	CacheSub string            // the cache's directory under CacheDir
	Check    string            // a command that proves the toolchain works in the sandbox
	Mirror   Mirror            // compiled files of its library the runs look for elsewhere
	// SeedTree compiles a tree's modules, writing what a run would look for under
	// Mirror.Under to {out} as if that were the prefix, and skipping the directory {skip}
	// (treeseed.go); "" when the toolchain has nothing to compile ahead.
	SeedTree string

	// With a prepared dependency cache ("{deps}" in values is where it is mounted,
	// "{src}" the tree): PrepareEnv is set over Env while preparing (with network),
	// DepsEnv and DepsPath (first on PATH) while building and running, offline, and
	// DepsBinds are the cache's directories that appear at the same place in the tree.
	PrepareEnv map[string]string
	DepsEnv    map[string]string
	DepsPath   []string
	DepsBinds  []string
	// BoundedEnv is set over Env when each process's address space is bounded (no
	// memory cgroup): what a JIT runtime needs to live within it (V8 reserves about
	// 10 GiB of it for one WebAssembly memory).
	BoundedEnv map[string]string
	// DepsScratch are directories inside DepsBinds where tools write caches of their
	// own (vite's node_modules/.vite-temp): each run gets an empty, writable one there,
	// and the dependencies around it stay read-only.
	DepsScratch []string
	// Tools are the programs a set of manifests calls for beyond the toolchain (the
	// package manager package.json names), read from the directory holding their
	// copies: each is installed once per version into a cache of its own, and the
	// prepare finds its bin/ first on PATH.
	Tools func(manifests string) []Tool
	// Seed is a host directory the prepare may take downloads from before the network
	// (Go: the host's module cache as a file:// proxy), if the lanes can read it.
	Seed string
	// ExecSeed is a script that builds, in an empty directory, what an agent's first
	// build compiles whatever its code (Go: the standard library a test links); its
	// build cache is then shared read-only by every agent's private cache.
	ExecSeed string
	// Manifests names more manifests than the contract's patterns, as slash paths in
	// the tree src, read from the judge's copy before anything of the tree runs: those
	// the tree's own files call for (Go: the go.mod of each directory that go.mod
	// replaces a module with).
	Manifests func(src string) []string
}

// Tool is a program a prepare needs that the host may lack.
type Tool struct {
	Name    string // with its version, "pnpm@10.12.1": what messages call it and its cache's key
	For     string // the manifest that calls for it, "pnpm-lock.yaml"
	Install string // shell command installing it into the working directory, with the network; its commands end up in bin/
}

// hostMounts drops missing paths and paths already visible through another mount
// (judged on their resolved form, so /usr/local/go is not bound twice).
func hostMounts(base []string, extra []string) []string {
	var keep, seen []string
	covered := func(p string) bool {
		for _, b := range append(append([]string{}, base...), seen...) {
			if p == b || strings.HasPrefix(p, strings.TrimSuffix(b, "/")+"/") {
				return true
			}
		}
		return false
	}
	for _, p := range extra {
		real, err := filepath.EvalSymlinks(p)
		if err != nil || covered(real) {
			continue
		}
		keep = append(keep, filepath.Clean(p))
		seen = append(seen, real)
	}
	return keep
}
