package tamperscan

import (
	"regexp"
	"strings"
)

// pattern is one row of the table: what to look for, where, and the words a person reads.
type pattern struct {
	// found names what was found; "%s" in it is replaced by the line's first non-empty
	// submatch (or the whole match), so that the finding names the very call.
	found  string
	why    string
	honest string // what honest code does with it too; "" when it rarely does
	lang   lang   // other: every file
	// nonTest: only in files that are not tests (in a test, the same line is the test's).
	nonTest bool
	// line is matched against each added line; path against the file's path, once.
	line, path *regexp.Regexp
	inComments bool // //go:linkname is a comment to Go's parser and an order to its linker
	inInitOnly bool
	// logging: honest loggers do it, said as such when the file logs.
	logging bool
}

func (p pattern) applies(k fileKind) bool {
	return (p.lang == other || p.lang == k.lang) && !(p.nonTest && k.test)
}

// what is the finding's name for a line p matched.
func (p pattern) what(text string) (string, bool) {
	m := p.line.FindStringSubmatch(text)
	if m == nil {
		return "", false
	}
	what := m[0]
	for _, sub := range m[1:] {
		if sub != "" {
			what = sub
			break
		}
	}
	return strings.ReplaceAll(p.found, "%s", strings.TrimSpace(what)), true
}

// table is the patterns, compiled, and the words that say a file logs.
type table struct {
	patterns []pattern
	logging  *regexp.Regexp
}

// Reasons several patterns share.
const (
	whyArgs   = "changes what the test runner reads as its arguments, or where it writes its report"
	whyWords  = "prints or rewrites the lines the test runner reports with: a pass the code wrote itself"
	whyRunner = "a module named like the test runner: with the working directory on sys.path, it is the runner"
)

func newTable() table {
	re := regexp.MustCompile
	return table{logging: re(`(?i)\b(s?log|logger|logging|logrus|zap|zerolog|klog)\b`), patterns: []pattern{
		// Go: the process and the runner, from code under test.
		{found: "%s", lang: golang, nonTest: true, logging: true, line: re(`\b(runtime\.(Callers|CallersFrames|Caller|Stack|FuncForPC))\b`),
			why:    "reads its own call stack: code that knows which test called it can answer that test alone, or print a pass in its name",
			honest: "loggers and error wrappers read their caller too: look at what the code does with the name"},
		{found: "%s", lang: golang, nonTest: true, line: re(`\b((syscall|unix)\.Exec)\b`),
			why: "replaces the test process with another program, which then speaks for the test"},
		{found: "%s", lang: golang, nonTest: true, line: re(`\b((syscall|unix)\.Exit)\(`),
			why: "ends the process past Go's exit checks (-test.paniconexit0 does not see it): the exit status is the code's, not the runner's"},
		{found: "os.Exit in init", lang: golang, nonTest: true, inInitOnly: true, line: re(`\bos\.Exit\(`),
			why: "ends the process before the test runner has run anything, and before it arms its exit checks"},
		{found: "//go:linkname", lang: golang, inComments: true, line: re(`^\s*//go:linkname\b`),
			why: "binds a name to another package's unexported function or variable: the runtime's or testing's internals"},
		{found: "a write through unsafe.Pointer", lang: golang, nonTest: true, line: re(`^\s*\*\s*\(\s*\*[^)]*\)\s*\(\s*unsafe\.Pointer\b.*[^=!<>:]=[^=]`),
			why: "writes memory Go's types would not let it: the runner's state, or its instructions"},
		{found: "a write to %s", lang: golang, nonTest: true, line: re(`\b(os\.(Args|Stdout|Stderr|Stdin))\s*(\[[^\]]*\])?\s*=[^=]`), why: whyArgs},
		{found: "%s", lang: golang, nonTest: true, line: re(`("debug/(elf|gosym|pe|macho)")`),
			why: "reads a binary's symbol table: the way code finds the test runner's functions in its own memory"},
		{found: "%s", lang: golang, nonTest: true, line: re(`\b(os\.Args\[0\]|os\.Executable\(\))`),
			why:    "names its own test binary: run again, it lets the code relay a report of its own choosing",
			honest: "programs name themselves in usage lines, or find files beside their binary, with it"},
		{found: "an import of %s outside a test file", lang: golang, nonTest: true, line: re(`^\s*(?:import\s+)?(?:[\w.]+\s+)?("testing(?:/internal/[\w/]+)?")\s*$`),
			why:    "the test runner's own package in code that is not a test: it can run tests of its own and report for them",
			honest: "test helper packages import it too"},
		{found: "%s", lang: golang, nonTest: true, line: re(`\b(testing\.(Main|MainStart|RunTests|InternalTest|InternalBenchmark|InternalExample))\b`),
			why: "drives the test runner's main loop from code under test: a report of the code's own choosing"},
		{found: "the runner's report words (%s)", lang: golang, nonTest: true, line: re(`(--- (PASS|FAIL|SKIP)|=== (RUN|PAUSE|CONT)|\\x16|\\026)`), why: whyWords},
		{found: "a test's name looked for", lang: golang, nonTest: true, line: re(`(HasPrefix|Contains)\([^)]*"Test|[!=]= "Test`),
			why: "looks for a test's name in code that is not a test: code that behaves differently when a test calls it"},
		{found: "a replace directive", lang: goMod, line: re(`^\s*replace\b|=>`),
			why:    "resolves a dependency to other code, perhaps a copy of the test's assertion library",
			honest: "modules replace to a local directory of their own too"},

		// Every language.
		{found: "/proc/self", line: re(`/proc/self\b`),
			why: "reads or writes its own process through /proc: its memory, its binary, its arguments"},
		{found: "%s", line: re(`\b((syscall|unix)\.Mprotect|mprotect)\b`),
			why: "makes memory pages writable and executable: the way code rewrites the test runner's functions in memory"},

		// Python: the runner, its hooks and the interpreter, from code under test.
		{found: "atexit", lang: python, line: re(`\batexit\b`),
			why: "runs code after the tests end, once the runner has written its report: it can rewrite the report or the exit status"},
		{found: "a write to sys.modules", lang: python, line: re(`\bsys\.modules\s*(\[[^\]]*\]\s*=[^=]|\.(update|setdefault|pop|__setitem__)\b)|\bdel\s+sys\.modules\b`),
			why: "replaces a module for whoever imports it next: the test runner's, or the assertion library the test uses"},
		{found: "_pytest", lang: python, nonTest: true, line: re(`\b_pytest\b`),
			why: "pytest's internals, from code that is not a test: it can change how tests are called or reported"},
		{found: "%s in code that is not a test", lang: python, nonTest: true, line: re(`^\s*(?:import|from)\s+(pytest)\b|\b(pytest)\.hookimpl\b|^\s*def\s+(pytest)_\w+`),
			why: "the runner's own module, or a hook of it: a plugin changes what the runner collects, runs or reports"},
		{found: "unittest in code that is not a test", lang: python, nonTest: true, line: re(`^\s*(import|from)\s+unittest(\.(case|result|runner|main|suite|loader|signals))?(\s|$|,)|\bunittest\.(TestCase|TestResult|TextTestRunner|TextTestResult)\.\w+\s*=[^=]`),
			why:    "the runner's own classes, from code that is not a test: replacing one changes what every test reports",
			honest: "test helpers import it too"},
		{found: "builtins", lang: python, line: re(`^\s*import\s+builtins\b|^\s*from\s+builtins\s+import\b|\b__builtins__\b|\bbuiltins\.\w+\s*=[^=]`),
			why: "changes the names every module sees (print, open, __import__, AssertionError), and with them every test"},
		{found: "%s", lang: python, line: re(`\b((sys|threading)\.(settrace|setprofile))\b`),
			why: "sees and can change every frame the runner and the test run"},
		{found: "os._exit", lang: python, line: re(`\bos\._exit\b`),
			why: "ends the process at once: the runner cleans nothing up, and the exit status is the code's"},
		{found: "a write to %s", lang: python, line: re(`\b(sys\.(argv|stdout|stderr|__stdout__|__stderr__))\s*(\[[^\]]*\])?\s*=[^=]|\b(sys\.argv)\.(append|insert|extend|remove|pop|clear)\b`), why: whyArgs},
		{found: "%s", lang: python, line: re(`\b(sys\.(meta_path|path_hooks))\b`),
			why: "intercepts imports: the test's own imports can get the coder's modules"},
		{found: "JUnit report words (%s)", lang: python, nonTest: true, line: re(`(<testcase|<failure|failures=|junitxml|--junit)`), why: whyWords},

		// Files that are a runner, a plugin or a hook by their name or place.
		{found: "a module named like the test runner", path: re(`(^|/)(pytest|py|unittest)\.py$`), why: whyRunner},
		{found: "a package named like the test runner", path: re(`(^|/)(_pytest|pytest|pluggy|unittest)/`), why: whyRunner},
		{found: "a conftest.py", path: re(`(^|/)conftest\.py$`),
			why:    "pytest loads it before any test: its hooks and fixtures change what the runner does",
			honest: "projects keep honest fixtures there too"},
		{found: "a site hook", path: re(`(^|/)(sitecustomize|usercustomize)\.py$`),
			why: "Python runs it at every start, before the runner"},
		{found: "a .pth file", path: re(`\.pth$`),
			why: "Python's site module runs its import lines at every start, before the runner"},
		{found: "a plugin's entry points", path: re(`\.(dist|egg)-info/entry_points\.txt$`),
			why: "declares plugins pytest loads by itself (pytest11), whatever the test's configuration says"},
		{found: "a vendor/ directory", path: re(`(^|/)vendor/`),
			why: "vendored code replaces a dependency, the test's assertion library included, and go.sum does not check it"},
	}}
}
