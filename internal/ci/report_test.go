package ci

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/reports"
)

// reportOf hands data to a fresh evidence as one run's report, the way it arrives: as
// output (in small pieces, so framing lines are split) or as the wrapper's base64 lines,
// and returns why the run is not proven ("" when it is).
func reportOf(format string, fromOutput bool, e expectation, data []byte) string {
	ev := &evidence{format: format, fromOutput: fromOutput, expect: e, problems: map[int]string{}}
	if fromOutput {
		for len(data) > 0 {
			n := min(len(data), 7)
			ev.Output(data[:n])
			data = data[n:]
		}
		ev.EndRun()
	} else {
		ev.StartBlock(1)
		enc := base64.StdEncoding.EncodeToString(data)
		for len(enc) > 0 {
			n := min(len(enc), 76)
			ev.BlockLine(enc[:n])
			enc = enc[n:]
		}
		ev.EndBlock()
	}
	_, problem := ev.firstProblem(1)
	return problem
}

func recorded(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "reports", name))
	require.NoError(t, err)
	return data
}

// TestReportsProveAPass reads reports the real runners wrote (testdata/reports) and
// forged or damaged ones: only a complete report in which the test file's tests ran and
// passed, and none was skipped, proves a pass.
func TestReportsProveAPass(t *testing.T) {
	goNames := expect(Contract{Report: ReportTest2JSON}, "dixit_1_test.go", recorded(t, "go_pass_test.go.txt"))
	pyNames := expect(Contract{Report: ReportJUnit}, "test_dixit_p.py", recorded(t, "pytest_pass.py.txt"))
	nodeNames := expect(Contract{Report: ReportTAP}, "p.test.js", recorded(t, "node_pass.js.txt"))
	framed := recorded(t, "go_pass.framed")
	cut := framed[:len(framed)-len("\x16PASS\n")]
	cases := []struct {
		name, format string
		fromOutput   bool
		e            expectation
		data         []byte
		want         string // "" for a proven pass, else a fragment of the reason
	}{
		{"go framing, all passed", ReportTest2JSON, true, goNames, framed, ""},
		{"go framing, a subtest skipped", ReportTest2JSON, true, expectation{names: []string{"TestAdd"}, unique: true}, recorded(t, "go_skip.framed"), "TestAdd/later was skipped"},
		{"go framing, cut before the end", ReportTest2JSON, true, goNames, cut, "the test report is incomplete"},
		{"go framing, another file's tests", ReportTest2JSON, true, expectation{names: []string{"TestOther"}, unique: true}, framed, "the expected test TestOther did not run"},
		{"go framing, nothing framed", ReportTest2JSON, true, goNames, []byte("PASS\nok  \texample.com/x\t0.01s\n"), missingReport},
		{"go framing, a test reported twice", ReportTest2JSON, true, goNames,
			append([]byte("\x16=== RUN   TestAdd\n\x16--- PASS: TestAdd (0.00s)\n"), framed...), "the report names TestAdd 2 times"},
		{"go framing, a line after the end", ReportTest2JSON, true, goNames, append(append([]byte{}, framed...), "\x16--- PASS: TestLate (0.00s)\n"...), "goes on after its closing result"},
		{"go test -json, all passed", ReportTest2JSON, false, goNames, recorded(t, "go_pass.jsonl"), ""},
		{"go test -json, not JSON", ReportTest2JSON, false, goNames, []byte("--- PASS: TestAdd\n"), "line 1 is not a test2json event"},
		{"pytest, all passed", ReportJUnit, false, pyNames, recorded(t, "pytest_pass.xml"), ""},
		{"pytest, a failure and a skip", ReportJUnit, false, expectation{}, recorded(t, "pytest_fail_skip.xml"), "test_skip was skipped"},
		{"pytest, collection error", ReportJUnit, false, expectation{}, recorded(t, "pytest_collection_error.xml"), "the report says test_dixit_c failed"},
		{"pytest, cut short", ReportJUnit, false, pyNames, recorded(t, "pytest_pass.xml")[:200], "not a whole JUnit XML document"},
		{"pytest, not JUnit", ReportJUnit, false, pyNames, []byte("<html></html>"), "its root element is <html>"},
		{"pytest, no test cases", ReportJUnit, false, expectation{}, []byte(`<testsuites><testsuite name="pytest" tests="0"/></testsuites>`), "no test ran"},
		{"pytest, counts a failure it does not show", ReportJUnit, false, expectation{},
			[]byte(`<testsuite name="pytest" failures="1"><testcase name="test_a"/></testsuite>`), "the report says test suite pytest failed"},
		{"node junit, all passed", ReportJUnit, false, nodeNames, recorded(t, "node_pass.junit.xml"), ""},
		{"node tap, all passed", ReportTAP, false, nodeNames, recorded(t, "node_pass.tap"), ""},
		{"vitest junit, a describe block's tests", ReportJUnit, false, expectation{names: []string{"destr"}},
			[]byte(`<testsuites><testsuite name="test/a.test.ts" tests="2"><testcase classname="test/a.test.ts" name="destr &gt; parses number"/><testcase classname="test/a.test.ts" name="destr &gt; parses null"/></testsuite></testsuites>`), ""},
		{"vitest junit, another describe's tests", ReportJUnit, false, expectation{names: []string{"destr"}},
			[]byte(`<testsuites><testsuite name="test/a.test.ts" tests="1"><testcase classname="test/a.test.ts" name="destroy &gt; x"/></testsuite></testsuites>`), "the expected test destr did not run"},
		{"node tap, skip and todo", ReportTAP, false, expectation{}, recorded(t, "node_skip_todo.tap"), "skipme was skipped"},
		{"node tap, the file's exit only", ReportTAP, false, expectation{path: "e.test.js"}, recorded(t, "node_file_only.tap"), "the test file reported no test of its own"},
		{"tap, fewer points than planned", ReportTAP, false, expectation{}, []byte("1..2\nok 1 - a\n"), "the test report is incomplete"},
		{"tap, bail out", ReportTAP, false, expectation{}, []byte("1..1\nBail out! no database\n"), "Bail out! no database"},
		{"empty file", ReportTAP, false, nodeNames, []byte("\n"), missingReport},
		{"larger than the cap", ReportTAP, false, nodeNames, make([]byte, reports.MaxReport+1), "larger than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := reportOf(c.format, c.fromOutput, c.e, c.data)
			if c.want == "" {
				assert.Empty(t, got)
			} else {
				assert.Contains(t, got, c.want)
			}
		})
	}
}

// TestEachRunNeedsItsOwnReport: every run of an invocation must bring a report; a
// second one for the same run, or more separators than runs, proves nothing.
func TestEachRunNeedsItsOwnReport(t *testing.T) {
	pass := recorded(t, "node_pass.tap")
	block := func(ev *evidence, run int, data []byte) {
		ev.StartBlock(run)
		ev.BlockLine(base64.StdEncoding.EncodeToString(data))
		ev.EndBlock()
	}
	ev := newEvidence(Contract{Report: ReportTAP, Run: "x {report}"}, expectation{})
	block(ev, 1, pass)
	block(ev, 3, pass)
	run, problem := ev.firstProblem(3)
	assert.Equal(t, 2, run)
	assert.Equal(t, missingReport, problem)

	block(ev, 2, pass)
	block(ev, 2, pass)
	run, problem = ev.firstProblem(3)
	assert.Equal(t, 2, run)
	assert.Contains(t, problem, "arrived twice")

	framed := recorded(t, "go_pass.framed")
	ev = newEvidence(Contract{Report: ReportTest2JSON, Run: "./dixit.test -test.v=test2json"}, expectation{})
	for range 3 {
		ev.Output(framed)
		ev.EndRun()
	}
	run, problem = ev.firstProblem(2)
	assert.Equal(t, 2, run)
	assert.Contains(t, problem, "more run separators than there were runs")
}

func TestExpectedTests(t *testing.T) {
	goFile := []byte("package x\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n\n" +
		"func TestMain(m *testing.M) { m.Run() }\nfunc TestA(t *testing.T) {}\nfunc Testlower(t *testing.T) {}\n" +
		"func Test(t *testing.T) {}\nfunc FuzzB(f *testing.F) {}\nfunc TestHelper(x int) {}\n" +
		"func ExampleNoOutput() {}\nfunc ExampleOut() {\n\tfmt.Println(1)\n\t// Output: 1\n}\n")
	assert.Equal(t, []string{"TestA", "Test", "FuzzB", "ExampleOut"}, expect(Contract{}, "a/dixit_1_test.go", goFile).names)
	pyFile := []byte("import pytest\n\ndef test_a():\n    pass\n\nasync def test_b():\n    pass\n\ndef helper():\n    def test_inner():\n        pass\n")
	assert.Equal(t, []string{"test_a", "test_b"}, expect(Contract{}, "test_dixit_1.py", pyFile).names)
	jsFile := []byte("test('adds', () => {});\ndescribe(\"group\", () => {\n  it('inner', () => {});\n});\ntest(`templ ${x}`, () => {});\ntest.only('only', () => {});\n")
	assert.Equal(t, []string{"adds", "group", "only"}, expect(Contract{}, "dixit_1.test.js", jsFile).names)
	assert.Nil(t, expect(Contract{}, "check.sh", []byte("test_a()")).names)
}

// TestTheVerdictCacheKnowsTheReport: a verdict given on the exit status alone is not
// reused once the contract names a report, nor the other way round.
func TestTheVerdictCacheKnowsTheReport(t *testing.T) {
	dir := t.TempDir()
	exitOnly := Contract{Path: "t_{id}.sh", Run: "sh t_{id}.sh"}
	proven := exitOnly
	proven.Report, proven.Run = ReportTAP, "sh t_{id}.sh > {report}"
	for i, c := range []Contract{exitOnly, proven, exitOnly} {
		inner := &countingJudge{}
		cached, err := NewCached(inner, c, dir, quietLogger())
		require.NoError(t, err)
		_, err = cached.Run(context.Background(), 2, cacheJobs("t"))
		require.NoError(t, err)
		want := 2
		if i == 2 {
			want = 0 // the first contract's verdicts are still on disk
		}
		assert.Equal(t, want, inner.jobs, "contract %d", i)
	}
}

// TestExitStatusOnlyIsSaid: a contract without a report still passes on exit status 0,
// and its passing verdicts say that nothing more was checked.
func TestExitStatusOnlyIsSaid(t *testing.T) {
	c := Contract{Path: "t_{id}.sh", Run: "sh t_{id}.sh", Timeout: 10e9}
	l, err := NewLocal(LocalOptions{Contract: c, WorkDir: t.TempDir(), Logger: quietLogger()})
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	vs, err := l.Run(context.Background(), 2, []Job{
		{Coder: "a", Tree: mapTree{"f": "x"}, Test: Test{ID: "1", Content: []byte("exit 0\n")}},
		{Coder: "b", Tree: mapTree{"f": "x"}, Test: Test{ID: "2", Content: []byte("exit 3\n")}},
	})
	require.NoError(t, err)
	assert.Equal(t, Pass, vs[0].Outcome)
	assert.Contains(t, vs[0].Output, "passed on exit status 0 alone")
	assert.Equal(t, Fail, vs[1].Outcome)
	assert.NotContains(t, vs[1].Output, "exit status 0 alone")
	assert.True(t, strings.HasSuffix(strings.TrimSpace(vs[1].Output), "exit status 3"), vs[1].Output)
}

// TestReportsTravelFromTheSandbox: a report written to {report} reaches the judge after
// each run, from a fresh file each time; a run that writes none, a report the sandbox
// cannot read, and a symbolic link to a file of the tree prove nothing.
func TestReportsTravelFromTheSandbox(t *testing.T) {
	c := Contract{Path: "t_{id}.sh", Run: "sh t_{id}.sh {report}", Report: ReportTAP, Timeout: 10e9}
	l, err := NewLocal(LocalOptions{Contract: c, WorkDir: t.TempDir(), Logger: quietLogger()})
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	tap := `printf 'TAP version 13\nok 1 - adds\n1..1\n' > "$1"` + "\n"
	tree := mapTree{"forged.tap": "ok 1 - adds\n1..1\n"}
	runBatch(t, l, 3, []judgeCase{
		{name: "every run reports", tree: tree, test: []byte(tap), want: []Outcome{Pass}, runs: 3},
		{name: "no report", tree: tree, test: []byte("exit 0\n"), want: []Outcome{Fail},
			output: "run 1 of 3: exit status 0 but the test report is missing"},
		{name: "only the first run reports", tree: tree, want: []Outcome{Fail},
			test:   []byte("[ -e once ] && exit 0\ntouch once\n" + tap),
			output: "run 2 of 3: exit status 0 but the test report is missing"},
		{name: "a failing test in a report", tree: tree, want: []Outcome{Fail}, output: "the report says adds failed",
			test: []byte(`printf 'not ok 1 - adds\n1..1\n' > "$1"` + "\n")},
		{name: "unreadable", tree: tree, want: []Outcome{Fail}, output: "the test report could not be read in the sandbox",
			test: []byte(tap + `chmod 000 "$1"` + "\n")},
		{name: "a link to the tree's own", tree: tree, want: []Outcome{Fail}, output: "the test report is missing",
			test: []byte(`ln -s "$PWD/forged.tap" "$1"` + "\n")},
	})
}
