package languages

import (
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// goReplaced lists the go.mod of every directory of the tree that the tree's go.mod
// replaces a module with (replace example.com/x => ./x): go mod download reads them to
// know what those modules require, so the prepare needs them beside go.mod. Directories
// outside the tree, and modules replaced by other modules, are not the tree's to give.
func goReplaced(src string) []string {
	data, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		return nil
	}
	var out []string
	for _, dir := range replaceDirs(string(data)) {
		if dir = path.Clean(dir); filepath.IsLocal(dir) {
			out = append(out, path.Join(dir, "go.mod"))
		}
	}
	return out
}

// replaceDirs reads the directory paths on the right of go.mod's replace directives,
// in a line or a block. Go takes a path for a directory when it begins with ./ or ../
// (or is absolute), and a module path otherwise.
func replaceDirs(gomod string) []string {
	var dirs []string
	block := false
	for _, line := range strings.Split(gomod, "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
			continue
		case block && fields[0] == ")":
			block = false
			continue
		case !block && fields[0] == "replace" && len(fields) == 2 && fields[1] == "(":
			block = true
			continue
		case !block && fields[0] == "replace":
			fields = fields[1:]
		case !block:
			continue
		}
		arrow := -1
		for i, f := range fields {
			if f == "=>" {
				arrow = i
			}
		}
		if arrow < 0 || arrow+1 >= len(fields) {
			continue
		}
		target := unquote(fields[arrow+1])
		if strings.HasPrefix(target, "./") || strings.HasPrefix(target, "../") || target == "." || target == ".." {
			dirs = append(dirs, target)
		}
	}
	return dirs
}

// unquote reads a go.mod string, which may be quoted.
func unquote(s string) string {
	if strings.HasPrefix(s, `"`) || strings.HasPrefix(s, "`") {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}
