package pytouch

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDefs(t *testing.T) {
	src := `import pytest
from x import (a,
    b)

def test_a():
    def test_nested():
        pass
    s = """
def test_in_string():
    pass
"""

@XFAIL
def test_b(): pass

async def test_c():
    pass

class TestK(object):
    """doc
def test_doc(): pass
    """
    x = 1

    def test_m(self):
        def test_inner():
            pass

    @pytest.mark.skip
    def test_n(self): pass
def helper(): pass
class Other:
    def test_o(self): pass
def test_it's_not(): pass
`
	defs := Defs([]byte(src))
	assert.Equal(t, map[string]bool{"test_a": true, "test_b": true, "test_c": true, "TestK::test_m": true,
		"TestK::test_n": true, "helper": true, "Other::test_o": true}, defs)
	f := "t/test_x.py"
	assert.Equal(t, []string{f + "::test_a"}, NodeIDs(f, defs, "test_a"))
	assert.Equal(t, []string{f + "::test_a[1-2]"}, NodeIDs(f, defs, "test_a[1-2]"))
	assert.Equal(t, []string{f + "::TestK::test_m"}, NodeIDs(f, defs, "test_m"))
	assert.Equal(t, []string{f + "::TestK::test_m"}, NodeIDs(f, defs, "TestK::test_m"))
	assert.Equal(t, []string{f + "::TestK::test_m"}, NodeIDs(f, defs, "TestK.test_m"))
	assert.Empty(t, NodeIDs(f, defs, "test_o"), "pytest collects Test* classes only")
	assert.Empty(t, NodeIDs(f, defs, "test_nested"))
	assert.Empty(t, NodeIDs(f, defs, "test_in_string"))
	assert.Empty(t, NodeIDs(f, defs, "test_doc"))
}

// A change touches the tests it adds and those whose code it alters, decorators and
// parameters included; comments, blank lines, helpers and imports touch none.
func TestTouched(t *testing.T) {
	base := `"""Tests of x."""
import pytest
from x import f


def helper():
    return 1


def test_a():
    assert f(1) == 1


@pytest.mark.parametrize("n", [
    1,
    2,
])
def test_p(n):
    assert f(n) == n


class TestK:
    def test_m(self):
        s = """
def test_in_string():
"""
        assert s

    def test_n(self):
        assert True


def test_z():
    assert f(0) == 0
`
	const file = "t/test_x.py"
	cases := []struct {
		name, from, to string
		want           []string
	}{
		{"a new function", "def test_z():", "def test_new():\n    assert f(2) == 2\n\n\ndef test_z():", []string{file + "::test_new"}},
		{"a changed body", "    assert f(1) == 1", "    assert f(1) == 2", []string{file + "::test_a"}},
		{"a changed parameter", "    2,\n", "    3,\n", []string{file + "::test_p"}},
		{"a new decorator", "def test_a():", "@pytest.mark.slow\ndef test_a():", []string{file + "::test_a"}},
		{"a method", "        assert True", "        assert f(3) == 3", []string{file + "::TestK::test_n"}},
		{"a new method", "    def test_n(self):", "    def test_o(self):\n        pass\n\n    def test_n(self):", []string{file + "::TestK::test_o"}},
		{"inside a string in a method", "def test_in_string():\n", "def test_in_string(): pass\n", []string{file + "::TestK::test_m"}},
		{"a comment in a test", "    assert f(1) == 1", "    # the identity\n    assert f(1) == 1  ", nil},
		{"a comment at the top", "import pytest", "# more tests\nimport pytest", nil},
		{"a helper", "    return 1", "    return 2", nil},
		{"an import", "from x import f", "from x import f, g", nil},
		{"a function pytest does not collect", "def helper():", "def check_it():\n    assert 1\n\n\ndef helper():", nil},
		{"a redefinition: the last counts", "def test_z():", "def test_a():\n    assert f(5) == 5\n\n\ndef test_z():", []string{file + "::test_a"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			patched := strings.Replace(base, tc.from, tc.to, 1)
			assert.NotEqual(t, base, patched, "the case changes the module")
			assert.Equal(t, tc.want, Touched(file, []byte(base), []byte(patched)))
		})
	}
	assert.Equal(t, []string{file + "::test_a", file + "::test_p", file + "::TestK::test_m", file + "::TestK::test_n", file + "::test_z"},
		Touched(file, nil, []byte(base)), "a new file: every test it defines")
}
