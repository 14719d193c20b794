package gitstate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// ImportOptions say what Import keeps of a directory that untrusted code wrote.
type ImportOptions struct {
	// Frozen says why a path may not be added, changed or deleted ("" when it may). The
	// tree holds Parent's files at frozen paths, whatever the directory holds there.
	Frozen func(path string) string
	Parent string // a commit or tree; "" for none
	// MaxFile is the largest file taken; 0 for no limit.
	MaxFile int64
	// MaxFiles and MaxBytes bound the whole tree (0 for no limit): the files past the
	// bound, in path order, are left out with one note.
	MaxFiles int
	MaxBytes int64
}

// Dropped is a path the tree does not hold as the directory did, and why.
type Dropped struct {
	Path string
	Why  string
}

// Reasons for leaving a path out that are no one's policy but git's and the disk's.
const (
	whyReserved = "git reserves this name"
	whySpecial  = "not a regular file"
	whyLink     = "not a regular file: a symbolic link"
)

// Import stores the directory as a tree, leaving out what a tree must not hold: names
// git takes for .git (at any depth, not only the root's), symbolic links and other
// special files, what cannot be read, files over MaxFile or past MaxFiles or MaxBytes,
// and changes at frozen paths. Each file is stored as it is read: memory holds paths,
// not contents. It returns the tree and what it left out, sorted by path. The error is
// kept for the directory itself being unreadable and for failures of the workshop.
func (w *Workshop) Import(dir string, o ImportOptions) (string, []Dropped, error) {
	imp := importer{w: w, dir: dir, o: o, frozen: map[string]plumbing.Hash{}}
	if err := filepath.WalkDir(dir, imp.visit); err != nil {
		return "", nil, fmt.Errorf("import %s: %w", dir, err)
	}
	if err := imp.keepFrozen(); err != nil {
		return "", nil, fmt.Errorf("import %s: %w", dir, err)
	}
	w.mu.Lock()
	tree, err := w.writeTree(imp.files)
	w.mu.Unlock()
	if err != nil {
		return "", nil, fmt.Errorf("import %s: %w", dir, err)
	}
	sort.Slice(imp.dropped, func(i, j int) bool { return imp.dropped[i].Path < imp.dropped[j].Path })
	return tree, imp.dropped, nil
}

// importer is one Import's walk and what it found.
type importer struct {
	w       *Workshop
	dir     string
	o       ImportOptions
	files   []blob
	dropped []Dropped
	frozen  map[string]plumbing.Hash // frozen paths the directory holds, and their content
	bytes   int64                    // content taken so far
}

func (im *importer) drop(rel, why string) {
	im.dropped = append(im.dropped, Dropped{Path: rel, Why: why})
}

func (im *importer) visit(p string, d fs.DirEntry, err error) error {
	if p == im.dir {
		return err // the directory itself must be there
	}
	rel, rerr := filepath.Rel(im.dir, p)
	if rerr != nil {
		return rerr
	}
	rel = filepath.ToSlash(rel)
	switch {
	case err != nil:
		im.drop(rel, "cannot be read: "+cause(err))
		return nil // WalkDir skips what it could not read
	case ReservedName(d.Name()):
		im.drop(rel, whyReserved)
		return skip(d)
	case strings.Contains(d.Name(), `\`): // checkPath refuses it: a separator on Windows
		im.drop(rel, "a backslash in a name")
		return skip(d)
	case d.IsDir():
		return nil
	case d.Type()&fs.ModeSymlink != 0:
		im.drop(rel, whyLink)
		return nil
	case !d.Type().IsRegular():
		im.drop(rel, whySpecial)
		return nil
	}
	info, err := d.Info()
	if err != nil {
		im.drop(rel, "cannot be read: "+cause(err))
		return nil
	}
	if im.o.MaxFile > 0 && info.Size() > im.o.MaxFile {
		im.drop(rel, fmt.Sprintf("larger than %d bytes", im.o.MaxFile))
		return nil
	}
	if over := im.over(info.Size()); over != "" {
		im.drop(rel, "the tree would hold more than "+over+": this file and all after it are left out")
		return filepath.SkipAll
	}
	data, err := os.ReadFile(p)
	if err != nil {
		im.drop(rel, "cannot be read: "+cause(err))
		return nil
	}
	if im.isFrozen(rel) {
		im.frozen[rel] = blobHash(data) // compared with the parent's once the walk is done
		return nil
	}
	im.w.mu.Lock()
	h, err := im.w.writeBlob(data)
	im.w.mu.Unlock()
	if err != nil {
		return fmt.Errorf("store %s: %w", rel, err)
	}
	im.files = append(im.files, blob{path: rel, hash: h, executable: info.Mode()&0o111 != 0})
	im.bytes += int64(len(data))
	return nil
}

// blobHash is the hash git gives a file's content.
func blobHash(data []byte) plumbing.Hash { return plumbing.ComputeHash(plumbing.BlobObject, data) }

// over names the bound a file of size more would take the tree past, or "".
func (im *importer) over(size int64) string {
	switch {
	case im.o.MaxFiles > 0 && len(im.files)+len(im.frozen) >= im.o.MaxFiles:
		return fmt.Sprintf("%d files", im.o.MaxFiles)
	case im.o.MaxBytes > 0 && im.bytes+size > im.o.MaxBytes:
		return fmt.Sprintf("%d bytes", im.o.MaxBytes)
	}
	return ""
}

func (im *importer) isFrozen(rel string) bool { return im.o.Frozen != nil && im.o.Frozen(rel) != "" }

// keepFrozen puts the parent's files at frozen paths into the tree and notes every
// frozen path the directory added, changed or deleted, and any file in their way.
func (im *importer) keepFrozen() error {
	if im.o.Frozen == nil {
		return nil
	}
	var kept []blob // already in the workshop: the parent holds them
	if im.o.Parent != "" {
		parent, err := im.w.Files(im.o.Parent)
		if err != nil {
			return err
		}
		for _, f := range parent {
			if im.isFrozen(f.Path) {
				kept = append(kept, blob{path: f.Path, hash: blobHash(f.Content), executable: f.Executable})
			}
		}
	}
	have := map[string]bool{}
	for _, k := range kept {
		have[k.path] = true
		if h, ok := im.frozen[k.path]; !ok {
			im.drop(k.path, "deleted, kept: "+im.o.Frozen(k.path))
		} else if h != k.hash {
			im.drop(k.path, im.o.Frozen(k.path))
		}
	}
	for p := range im.frozen {
		if !have[p] {
			im.drop(p, im.o.Frozen(p))
		}
	}
	// A file where a kept one needs a directory (".github" as a file) gives way.
	im.files = slices.DeleteFunc(im.files, func(f blob) bool {
		for _, k := range kept {
			if strings.HasPrefix(k.path, f.path+"/") {
				im.drop(f.path, "in the way of "+k.path+": "+im.o.Frozen(k.path))
				return true
			}
		}
		return false
	})
	im.files = append(im.files, kept...)
	return nil
}

// skip leaves out a directory's contents, or nothing more for a file.
func skip(d fs.DirEntry) error {
	if d.IsDir() {
		return filepath.SkipDir
	}
	return nil
}

// cause is an I/O error without the path it names: "permission denied".
func cause(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
