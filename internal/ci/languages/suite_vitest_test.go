package languages

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A contract that runs vitest has its repository's own tests run by vitest, each named
// by its file and its describe path, as vitest's JUnit report gives them.
func TestVitestSuite(t *testing.T) {
	c, _ := Preset("typescript")
	c.Run = "vitest run --reporter=junit --outputFile.junit={report} {path}"
	spec, ok := SuiteFor(c)
	require.True(t, ok)
	script := spec.Run(SuitePlan{Units: []SuiteUnit{{Name: "test/a.test.ts"}, {Name: "test/b c.test.ts"}}})
	assert.Equal(t, "vitest run --reporter=default --reporter=junit --outputFile.junit=.dixit-suite/run/vitest.xml 'test/a.test.ts' 'test/b c.test.ts'", script)

	src := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(src, SuiteRunDir), 0o755))
	report := `<?xml version="1.0" encoding="UTF-8" ?>
<testsuites name="vitest tests" tests="3" failures="1" errors="0">
  <testsuite name="test/a.test.ts" tests="3" failures="1" skipped="1">
    <testcase classname="test/a.test.ts" name="destr &gt; parses number" time="0.001"></testcase>
    <testcase classname="test/a.test.ts" name="destr &gt; prevents prototype pollution" time="0.002">
      <failure message="expected [] to have a length of 1 but got +0" type="AssertionError">AssertionError: expected [] …</failure>
    </testcase>
    <testcase classname="test/a.test.ts" name="skipped one" time="0"><skipped/></testcase>
  </testsuite>
</testsuites>`
	require.NoError(t, os.WriteFile(filepath.Join(src, vitestReport), []byte(report), 0o644))
	cases, problem, err := spec.Read(src, SuitePlan{})
	require.NoError(t, err)
	assert.Empty(t, problem)
	require.Len(t, cases, 3)
	assert.Equal(t, SuiteCase{Name: "test/a.test.ts::destr > parses number", Outcome: "pass"}, cases[0])
	assert.Equal(t, "test/a.test.ts::destr > prevents prototype pollution", cases[1].Name)
	assert.Equal(t, "fail", cases[1].Outcome)
	assert.Equal(t, "expected [] to have a length of 1 but got +0", cases[1].Message)

	_, problem, err = spec.Read(t.TempDir(), SuitePlan{})
	require.NoError(t, err)
	assert.Contains(t, problem, "vitest wrote no report")

	c.Run = "node --import tsx --test {path}"
	spec, _ = SuiteFor(c)
	assert.Contains(t, spec.Run(SuitePlan{Toolchain: "typescript", Units: []SuiteUnit{{Name: "test/a.test.ts"}}}), "node --import tsx --test")
}
