package classify

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/gitstate"
)

// Caps on a coder's tree read into memory.
const (
	maxTreeFile  = 32 << 20
	maxTreeBytes = 256 << 20
	maxTreeFiles = 50000
)

// Files is a coder's tree held in memory, a ci.Tree whose hash is the git tree hash of its
// files: the hash the workshop repository gives the same content, so a backend can check
// that a runner judged the commit it was sent.
type Files struct {
	hash  string
	files []file // sorted by path
}

type file struct {
	path string // slash-separated, relative
	data []byte
	exec bool
}

var _ ci.Tree = (*Files)(nil)

// Hash returns the git tree hash of the files.
func (f *Files) Hash() string { return f.hash }

// Len returns the number of files.
func (f *Files) Len() int { return len(f.files) }

// WriteTo writes the files under dir.
func (f *Files) WriteTo(dir string) error {
	for _, fl := range f.files {
		p := filepath.Join(dir, filepath.FromSlash(fl.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if fl.exec {
			mode = 0o755
		}
		if err := os.WriteFile(p, fl.data, mode); err != nil {
			return err
		}
	}
	return nil
}

// DirTree reads the regular files under dir, skipping any .git directory, as the judge's
// tree. Symbolic links and other special files are refused, as the workshop refuses them.
// An executable file (any x bit) is mode 100755 in the hash, as git records it.
func DirTree(dir string) (*Files, error) {
	var files []file
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" && p != dir {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file (symbolic links and special files are refused)", rel)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Size() > maxTreeFile {
			return fmt.Errorf("%s: larger than %d bytes", rel, maxTreeFile)
		}
		if total += info.Size(); total > maxTreeBytes || len(files) >= maxTreeFiles {
			return fmt.Errorf("the tree is larger than %d bytes or %d files", maxTreeBytes, maxTreeFiles)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, file{path: filepath.ToSlash(rel), data: data, exec: info.Mode()&0o111 != 0})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", dir, err)
	}
	return newFiles(files), nil
}

// RepoTree reads the tree of a revision (a commit, branch, tag or any ref) of the git
// repository at dir (bare or not) or above it. Only committed content counts. Symbolic links and
// submodules are refused.
func RepoTree(dir, rev string) (*Files, error) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{EnableDotGitCommonDir: true}) // bare, a work tree's top, or a linked worktree
	if err != nil {
		repo, err = git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	}
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, fmt.Errorf("%s is not a git repository", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", dir, err)
	}
	h, err := repo.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		// go-git's words ("reference not found", "Revision invalid") name its internals.
		return nil, fmt.Errorf("repository %s has no branch, tag or commit %q", dir, rev)
	}
	commit, err := repo.CommitObject(*h)
	if err != nil {
		return nil, fmt.Errorf("repository %s: %s is not a commit: %w", dir, rev, err)
	}
	tree, err := commit.Tree()
	if err != nil {
		return nil, fmt.Errorf("repository %s: tree of %s: %w", dir, rev, err)
	}
	var files []file
	var total int64
	err = tree.Files().ForEach(func(f *object.File) error {
		if f.Mode != filemode.Regular && f.Mode != filemode.Executable {
			return fmt.Errorf("%s: mode %s (symbolic links and submodules are refused)", f.Name, f.Mode)
		}
		if f.Size > maxTreeFile {
			return fmt.Errorf("%s: larger than %d bytes", f.Name, maxTreeFile)
		}
		if total += f.Size; total > maxTreeBytes || len(files) >= maxTreeFiles {
			return fmt.Errorf("the tree is larger than %d bytes or %d files", maxTreeBytes, maxTreeFiles)
		}
		content, err := f.Contents()
		if err != nil {
			return fmt.Errorf("read %s: %w", f.Name, err)
		}
		files = append(files, file{path: f.Name, data: []byte(content), exec: f.Mode == filemode.Executable})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("repository %s at %s: %w", dir, rev, err)
	}
	out := newFiles(files)
	if out.hash != tree.Hash.String() { // cannot happen for regular files; proves the hash is git's
		return nil, fmt.Errorf("repository %s at %s: computed tree hash %s, git says %s", dir, rev, out.hash, tree.Hash)
	}
	return out, nil
}

// Files returns the tree's files, as git records them.
func (f *Files) Files() []gitstate.File {
	out := make([]gitstate.File, len(f.files))
	for i, fl := range f.files {
		out[i] = gitstate.File{Path: fl.path, Content: fl.data, Executable: fl.exec}
	}
	return out
}

// GitTree holds files read from git elsewhere (a pull request's head, fetched) as the
// judge's tree, with the same caps as the other readers.
func GitTree(files []gitstate.File) (*Files, error) {
	var out []file
	var total int64
	for _, f := range files {
		if len(f.Content) > maxTreeFile {
			return nil, fmt.Errorf("%s: larger than %d bytes", f.Path, maxTreeFile)
		}
		if total += int64(len(f.Content)); total > maxTreeBytes || len(out) >= maxTreeFiles {
			return nil, fmt.Errorf("the tree is larger than %d bytes or %d files", maxTreeBytes, maxTreeFiles)
		}
		out = append(out, file{path: f.Path, data: f.Content, exec: f.Executable})
	}
	return newFiles(out), nil
}

func newFiles(files []file) *Files {
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	return &Files{hash: gitTreeHash(files), files: files}
}

// gitTreeHash computes the SHA-1 git gives a tree of regular files (directories are
// implied by paths; empty directories do not exist in git).
func gitTreeHash(files []file) string {
	type entry struct {
		name, mode string
		hash       []byte
	}
	var dirHash func(prefix string, files []file) []byte
	dirHash = func(prefix string, files []file) []byte {
		var entries []entry
		for i := 0; i < len(files); {
			rest := strings.TrimPrefix(files[i].path, prefix)
			name, _, isDir := strings.Cut(rest, "/")
			if !isDir {
				mode := "100644"
				if files[i].exec {
					mode = "100755"
				}
				entries = append(entries, entry{name, mode, gitObject("blob", files[i].data)})
				i++
				continue
			}
			sub := prefix + name + "/"
			j := i
			for j < len(files) && strings.HasPrefix(files[j].path, sub) {
				j++
			}
			entries = append(entries, entry{name, "40000", dirHash(sub, files[i:j])})
			i = j
		}
		// Git orders entries as if directory names ended in "/".
		key := func(e entry) string {
			if e.mode == "40000" {
				return e.name + "/"
			}
			return e.name
		}
		sort.Slice(entries, func(a, b int) bool { return key(entries[a]) < key(entries[b]) })
		var body []byte
		for _, e := range entries {
			body = append(body, e.mode+" "+e.name+"\x00"...)
			body = append(body, e.hash...)
		}
		return gitObject("tree", body)
	}
	// Files sorted by path keep every directory's files contiguous only if "/" sorts
	// before every other byte of a name; sort by path components to be sure.
	sorted := append([]file(nil), files...)
	sort.Slice(sorted, func(a, b int) bool {
		return strings.ReplaceAll(sorted[a].path, "/", "\x00") < strings.ReplaceAll(sorted[b].path, "/", "\x00")
	})
	return hex.EncodeToString(dirHash("", sorted))
}

// gitObject is git's object hash: SHA-1 of "<type> <size>\0<content>".
func gitObject(kind string, content []byte) []byte {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(content))
	h.Write(content)
	return h.Sum(nil)
}
