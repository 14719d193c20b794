package tamperscan

import (
	"fmt"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// ParseDiff reads a unified diff (git diff, a pull request's .diff, or plain diff -u)
// into the change it makes: each file it creates or changes, with the lines it adds.
// Deleted files add nothing. The diff is the coder's: an error says it does not parse.
func ParseDiff(diff string) (Change, error) {
	files, _, err := gitdiff.Parse(strings.NewReader(diff))
	if err != nil {
		return nil, fmt.Errorf("parse the diff: %w", err)
	}
	// Only git's headers carry the a/ b/ prefixes the parser strips itself.
	strip := !strings.HasPrefix(diff, "diff --git ") && !strings.Contains(diff, "\ndiff --git ")
	var c Change
	for _, f := range files {
		if f.IsDelete {
			continue
		}
		name := f.NewName
		if _, rest, ok := strings.Cut(name, "/"); strip && ok {
			name = rest
		}
		file := File{Path: name}
		for _, frag := range f.TextFragments {
			n := int(frag.NewPosition)
			for _, l := range frag.Lines {
				switch l.Op {
				case gitdiff.OpAdd:
					file.Added = append(file.Added, Line{Number: n, Text: strings.TrimRight(l.Line, "\r\n")})
					n++
				case gitdiff.OpContext:
					n++
				}
			}
		}
		c = append(c, file)
	}
	return c, nil
}

// NewFile is a file the change creates whole: every line is added.
func NewFile(path, content string) File {
	f := File{Path: path}
	if content == "" {
		return f
	}
	for i, text := range strings.Split(strings.TrimSuffix(content, "\n"), "\n") {
		f.Added = append(f.Added, Line{Number: i + 1, Text: strings.TrimSuffix(text, "\r")})
	}
	return f
}
