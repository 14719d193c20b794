package name

import (
	"strings"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

func Key(s string) string {
	return New(s).Key().String()
}

// Key lower-cases with Unicode's rules rather than byte by byte, and drops the empty
// segments that leading, trailing or doubled separators leave.
func (i Ident) Key() Ident {
	segments := strings.FieldsFunc(i.String(), func(r rune) bool {
		return r == '/' || r == '\\'
	})
	return New(cases.Lower(language.Und).String(strings.Join(segments, "/")))
}
