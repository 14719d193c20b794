package contract_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/languages"
)

// A tester names where its test goes: in the package it is about, never outside the
// contract's places or over a file the judge keeps.
func TestNamedTestPath(t *testing.T) {
	c, ok := languages.Preset("go")
	require.True(t, ok)
	cases := []struct {
		path, problem string
	}{
		{path: "internal/clamp/clamp_dixit_test.go"},
		{path: "clamp_test.go"},
		{path: "internal/clamp/clamp.go", problem: "not one of the places"},
		{path: "../escape_test.go", problem: "each part"},
		{path: "/etc/x_test.go", problem: "each part"},
		{path: "a//b_test.go", problem: "each part"},
		{path: "a/-rf_test.go", problem: "each part"},
		{path: "a/$(id)_test.go", problem: "each part"},
		{path: ".git/x_test.go", problem: "each part"},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			got, err := contract.Place(c, "t1", tc.path)
			if tc.problem != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.problem)
				assert.Contains(t, err.Error(), tc.path, "the error names what the tester wrote")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.path, got.Rel)
		})
	}

	kept := contract.Contract{Path: "t_{id}.py", Paths: []string{"**/*.py"}, Exclude: []string{"test_*.py"}}
	_, err := contract.Place(kept, "t1", "pkg/module.py")
	require.Error(t, err, "a place the judge does not clear could overwrite the coder's code")
	assert.Contains(t, err.Error(), "test.exclude")

	_, err = contract.Place(contract.Contract{Path: "t_{id}.py"}, "t1", "tests/test_x.py")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "test.paths is empty")
}
