package session

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"time"
)

var unsafeInRef = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// runID names a run after its population and a digest of the population's content, so
// the same command on the same population resumes the same run.
func runID(dir string) (string, error) {
	h := sha256.New()
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("read population %s: %w", dir, err)
	}
	sort.Strings(paths)
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return "", fmt.Errorf("read population %s: %w", dir, err)
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(data))
		h.Write(data)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("population %s: %w", dir, err)
	}
	name := unsafeInRef.ReplaceAllString(filepath.Base(abs), "-")
	return name + "-" + hex.EncodeToString(h.Sum(nil))[:8], nil
}

// discard removes a run directory. It first renames it out of the way, atomically, so
// that a process killed halfway leaves either the whole run or none of it.
func discard(runDir string) error {
	trash := fmt.Sprintf("%s.discarded-%d", runDir, time.Now().UnixNano())
	if err := os.Rename(runDir, trash); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	leftovers, _ := filepath.Glob(runDir + ".discarded-*")
	for _, dir := range leftovers {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	return nil
}
