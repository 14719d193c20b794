package languages

import (
	"io/fs"
	"os"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/reports"
)

// javaSuiteBuild compiles the project's sources, then its tests (src/test/ and the
// files named like tests anywhere) against them and the JUnit Platform launcher, with
// javac alone, as the java preset does.
func javaSuiteBuild(SuitePlan) string {
	tests := `\( -path './src/test/*' -o -name '*Test.java' -o -name '*Tests.java' -o -name '*IT.java' \)`
	return `find . -name '*.java' ! -path './` + SuiteDir + `/*' ! ` + tests + ` >"$TMPDIR/main" &&
find . -name '*.java' ! -path './` + SuiteDir + `/*' ` + tests + ` >"$TMPDIR/tests" &&
mkdir -p ` + SuiteDir + `/main ` + SuiteDir + `/test &&
{ ! [ -s "$TMPDIR/main" ] || javac -nowarn -encoding UTF-8 -d ` + SuiteDir + `/main @"$TMPDIR/main"; } &&
{ ! [ -s "$TMPDIR/tests" ] || javac -nowarn -encoding UTF-8 -d ` + SuiteDir + `/test -cp "` + SuiteDir + `/main:$JUNIT_CONSOLE" @"$TMPDIR/tests"; }`
}

// javaSuiteRun runs every test class with the JUnit Platform console launcher, which
// writes its XML reports into the run's directory.
func javaSuiteRun(SuitePlan) string {
	return `java -jar "$JUNIT_CONSOLE" --disable-banner --details=tree --class-path ` + SuiteDir + `/test:` + SuiteDir + `/main ` +
		`--scan-class-path ` + SuiteDir + `/test --reports-dir ` + SuiteRunDir
}

// javaSuiteRead names each test "package.Class#method()" from the launcher's reports.
func javaSuiteRead(src string, _ SuitePlan) ([]SuiteCase, string, error) {
	root, err := os.OpenRoot(src)
	if err != nil {
		return nil, "", err
	}
	defer root.Close()
	entries, err := fs.ReadDir(root.FS(), SuiteRunDir)
	if err != nil {
		return nil, "", err
	}
	var cases []SuiteCase
	seen := false
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "TEST-") || !strings.HasSuffix(e.Name(), ".xml") {
			continue
		}
		data, err := readSuiteFile(src, SuiteRunDir+"/"+e.Name())
		if err != nil {
			return nil, "", err
		}
		doc, err := reports.JUnitCases(data)
		if err != nil {
			return nil, "the JUnit Platform's report " + e.Name() + " is not whole XML: " + err.Error(), nil
		}
		seen = true
		cases = append(cases, junitCases(doc, javaName)...)
	}
	if !seen {
		return nil, "the JUnit Platform launcher wrote no report: it could not start", nil
	}
	return cases, "", nil
}

// javaName is a JUnit Platform test case's name, "package.Class#method()".
func javaName(c reports.Case) string { return c.Class + "#" + c.Name }

// javaSuite runs every test class with the JUnit Platform launcher, which Only does not
// restrict (no Scope).
func javaSuite(contract.Contract) Suite {
	return Suite{Build: javaSuiteBuild, Run: javaSuiteRun, Read: javaSuiteRead}
}
