package name

import (
	"strings"
)

func Key(s string) string {
	return New(s).Key().String()
}

// Key is the identifier as a lower-case, slash-separated key. Backslashes count as
// slashes, and empty segments (leading, trailing or repeated separators) are dropped,
// so "/Admin//Widgets/" and "admin/widgets" name the same key.
func (i Ident) Key() Ident {
	s := strings.Replace(i.String(), "\\", "/", -1)
	var parts []string
	for _, part := range strings.Split(s, "/") {
		if part != "" {
			parts = append(parts, part)
		}
	}
	return New(strings.ToLower(strings.Join(parts, "/")))
}
