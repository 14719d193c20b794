package name

import (
	"strings"
)

func Key(s string) string {
	return New(s).Key().String()
}

func (i Ident) Key() Ident {
	segments := strings.FieldsFunc(i.String(), func(r rune) bool {
		return r == '/' || r == '\\'
	})
	return New(strings.ToLower(strings.Join(segments, "/")))
}
