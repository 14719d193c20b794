package name

import "testing"

// A key has no empty segments: leading, trailing and doubled separators go, whichever
// slash they are written with.
func Test_Key_DropsEmptySegments(t *testing.T) {
	table := map[string]string{
		"/Admin//Widgets/":    "admin/widgets",
		"\\Foo\\\\Bar\\":      "foo/bar",
		"//users":             "users",
		"Admin\\/Widgets//id": "admin/widgets/id",
	}
	for in, want := range table {
		if got := Key(in); got != want {
			t.Errorf("Key(%q) = %q, want %q", in, got, want)
		}
	}
}
