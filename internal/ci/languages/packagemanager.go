package languages

import (
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci/sandbox"
)

// nodeTools is the package manager a node project calls for when it is not npm, from
// the registry at the version named: package.json's packageManager ("pnpm@10.12.1"; a
// corepack hash after "+" is not checked, npm checks the tarball against the
// registry), else the latest of the major its lockfile's format belongs to. Corepack
// is not used: its signature check needs keys a judge's node may not have.
func nodeTools(dir string) []sandbox.Tool {
	var tools []sandbox.Tool
	add := func(name, version, from string) {
		for _, t := range tools {
			if strings.HasPrefix(t.Name, name+"@") {
				return
			}
		}
		if t, ok := packageManager(name, version, from); ok {
			tools = append(tools, t)
		}
	}
	if name, version, ok := strings.Cut(namedManager(dir), "@"); ok {
		add(name, version, "package.json (packageManager)")
	}
	if v := pnpmOfLockfileFile(filepath.Join(dir, "pnpm-lock.yaml")); v != "" {
		add("pnpm", v, "pnpm-lock.yaml")
	}
	if v := yarnOfLockfile(filepath.Join(dir, "yarn.lock")); v != "" {
		add("yarn", v, "yarn.lock")
	}
	return tools
}

// managerVersion is what a version may look like: it goes into a shell command.
var managerVersion = regexp.MustCompile(`^\d+(\.\d+){0,2}(-[0-9A-Za-z.]+)?$`)

// packageManager is the Tool that installs pnpm or yarn at a version (or a major) from
// the npm registry; yarn 2 and later are published there as @yarnpkg/cli-dist.
func packageManager(name, version, from string) (sandbox.Tool, bool) {
	version, _, _ = strings.Cut(version, "+")
	if !managerVersion.MatchString(version) {
		return sandbox.Tool{}, false
	}
	pkg := name
	switch {
	case name == "yarn" && !strings.HasPrefix(version, "1.") && version != "1":
		pkg = "@yarnpkg/cli-dist"
	case name == "yarn", name == "pnpm":
	default:
		return sandbox.Tool{}, false // npm comes with node; others are the prepare's to find
	}
	return sandbox.Tool{
		Name: name + "@" + version,
		For:  from,
		Install: "npm install --no-save --no-package-lock --ignore-scripts --no-audit --no-fund --loglevel=error " +
			pkg + "@" + version + " && ln -s node_modules/.bin bin",
	}, true
}

// namedManager is package.json's packageManager, or "".
func namedManager(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return ""
	}
	var p struct {
		PackageManager any `json:"packageManager"`
	}
	if json.Unmarshal(data, &p) != nil {
		return ""
	}
	s, _ := p.PackageManager.(string)
	return s
}

// pnpmOfLockfile is the pnpm major that writes a lockfile format's major (9.0: pnpm 9
// and 10), or "".
func pnpmOfLockfile(format string) string {
	switch format {
	case "9":
		return "10"
	case "6":
		return "8"
	case "5":
		return "7"
	}
	return ""
}

// yarnOfMetadata is the yarn major that writes a yarn.lock's __metadata version, 4 when
// it is newer than the judge knows.
func yarnOfMetadata(format string) string {
	switch format {
	case "4":
		return "2"
	case "6":
		return "3"
	}
	return "4"
}

// pnpmOfLockfileFile is the pnpm major of a pnpm-lock.yaml, by its first lines.
func pnpmOfLockfileFile(file string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	return versionKey(string(data), "lockfileVersion:", pnpmOfLockfile)
}

// yarnOfLockfile is the yarn major whose lockfile this is: yarn 1's has no __metadata,
// later ones name their format's version there.
func yarnOfLockfile(file string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	_, meta, berry := strings.Cut("\n"+string(data), "\n__metadata:")
	if !berry {
		return "1"
	}
	return cmp.Or(versionKey(meta, "  version:", yarnOfMetadata), "4")
}

// versionKey finds a version key among a YAML text's first lines and maps its major
// to the package manager's, or "" without one.
func versionKey(text, key string, major func(string) string) string {
	for _, line := range strings.SplitN(text, "\n", 20) {
		if v, ok := strings.CutPrefix(line, key); ok {
			format, _, _ := strings.Cut(strings.Trim(strings.TrimSpace(v), `'"`), ".")
			return major(format)
		}
	}
	return ""
}
