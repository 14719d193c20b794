package name

import (
	"strings"

	"github.com/gobuffalo/segments"
)

func Key(s string) string {
	return New(s).Key().String()
}

// Key joins the path's non-empty segments, lower-cased.
func (i Ident) Key() Ident {
	return New(strings.ToLower(segments.Join(segments.Split(i.String(), "/", "\\"), "/")))
}
