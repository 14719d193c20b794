package name

import (
	"strings"

	"github.com/gobuffalo/flect"
)

func Key(s string) string {
	return New(s).Key().String()
}

func (i Ident) Key() Ident {
	s := strings.Replace(i.String(), "\\", "/", -1)
	s = strings.Trim(s, "/")
	var parts []string
	for _, part := range strings.Split(s, "/") {
		parts = append(parts, flect.Underscore(part))
	}
	return New(strings.ToLower(strings.Join(parts, "/")))
}
