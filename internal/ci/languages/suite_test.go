package languages

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSuiteNames(t *testing.T) {
	for _, tc := range []struct{ file, classname, name, want string }{
		{"tests/test_x.py", "tests.test_x", "test_y", "tests/test_x.py::test_y"},
		{"tests/test_x.py", "tests.test_x.TestC", "test_m[1]", "tests/test_x.py::TestC::test_m[1]"},
		{"tests/test_broken.py", "", "tests.test_broken", "tests/test_broken.py"},
	} {
		assert.Equal(t, tc.want, pythonNodeID(tc.file, tc.classname, tc.name))
	}
	assert.Equal(t, "deep::inner::x", rustTestPath("deep::inner", "x"))
	assert.Equal(t, "top", rustTestPath("crate", "top"))
	assert.Equal(t, "inner::nested", rustTestPath("integration", "inner::nested"))
}

func TestSuiteGoMessages(t *testing.T) {
	out := "\x16=== RUN   TestA\n    a_test.go:9: want 3\n\x16--- FAIL: TestA (0.00s)\n" +
		"\x16=== RUN   TestB\n    b_test.go:12: \n        \tError Trace:\t/src/b_test.go:12\n        \tError:      \tNot equal: \n        \t            \texpected: 1\n" +
		"\x16=== RUN   TestC/sub\n    c_test.go:3: in a subtest\n" +
		"\x16=== RUN   TestD\n    d_test.go:7: \n        \tError Trace:\t/src/d_test.go:7\n        \tError:      \tReceived unexpected error:\n        \t            \tdial tcp: connection refused\n"
	assert.Equal(t, map[string]string{
		"TestA": "a_test.go:9: want 3",
		"TestB": "b_test.go:12: Not equal:",
		"TestC": "c_test.go:3: in a subtest",
		"TestD": "d_test.go:7: Received unexpected error: dial tcp: connection refused",
	}, goMessages([]byte(out)))
}
