package name

import "testing"

// What a key already was stays as it was: lower case, segments kept whole (spaces and
// punctuation included), backslashes read as slashes.
func Test_Key_KeepsSegmentsAsTheyAre(t *testing.T) {
	table := map[string]string{
		"Admin Widgets/New Item": "admin widgets/new item",
		"Foo\\Bar-Baz":           "foo/bar-baz",
		"widgets":                "widgets",
	}
	for in, want := range table {
		if got := Key(in); got != want {
			t.Errorf("Key(%q) = %q, want %q", in, got, want)
		}
	}
}
