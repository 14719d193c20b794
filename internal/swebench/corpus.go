package swebench

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Limits on what the corpus may hold: generous for real data, and a bound on what a
// hostile file can make the loader read.
const (
	maxLine  = 16 << 20 // one instances.jsonl line
	maxDiff  = 4 << 20  // one patch
	maxIndex = 4 << 20  // one sources.json
)

// Instance is one line of instances.jsonl: an issue, its base, its gold fix and the
// tests that decide whether a patch resolves it.
type Instance struct {
	ID              string   `json:"instance_id"`
	Repo            string   `json:"repo"`
	BaseCommit      string   `json:"base_commit"`
	Version         string   `json:"version"`
	GoldPatch       string   `json:"gold_patch"`
	GoldTestPatch   string   `json:"gold_test_patch"`
	FailToPass      []string `json:"fail_to_pass"`
	PassToPass      []string `json:"pass_to_pass"`
	TestFiles       []string `json:"test_files"`
	Python          string   `json:"python"`
	BaseRef         string   `json:"base_ref"`
	BaseTree        string   `json:"base_tree"`
	ProblemStatment string   `json:"problem_statement"`

	// Coders and Tests are read from coders/<id>/ and testers/<id>/ (LoadPatches).
	Coders []Coder     `json:"-"`
	Tests  []TestPatch `json:"-"`
	// line is the instance's line as read, for the inputs' hash.
	line []byte
}

// Coder is one coder patch of an instance.
type Coder struct {
	Name               string   `json:"-"`
	Source             string   `json:"source"`
	Origin             string   `json:"origin"`
	Licence            string   `json:"licence"`
	Model              string   `json:"model"`
	ResolvedOnlySource bool     `json:"resolved_only_source"`
	Files              []string `json:"files"`
	SHA256             string   `json:"sha256"`
	AppliesToBase      bool     `json:"applies_to_base"`
	PublishedLabel     string   `json:"published_label"`
	Submission         string   `json:"submission"`
	DuplicateOf        string   `json:"duplicate_of"`
	Normalised         string   `json:"normalised"` // what the corpus changed in the patch, if anything
	Diff               []byte   `json:"-"`
}

// TestPatch is one LLM-written test patch of an instance.
type TestPatch struct {
	Name         string   `json:"-"`
	Source       string   `json:"source"`
	Origin       string   `json:"origin"`
	Licence      string   `json:"licence"`
	Model        string   `json:"model"`
	Pipeline     string   `json:"pipeline"`
	Files        []string `json:"files"`
	TouchedTests []string `json:"touched_tests"`
	AppliesWith  string   `json:"applies_with"`
	SHA256       string   `json:"sha256"`
	DuplicateOf  string   `json:"duplicate_of"`
	Normalised   string   `json:"normalised"` // what the corpus changed in the patch, if anything
	Diff         []byte   `json:"-"`
}

// The forms of the corpus' names. An instance id and a patch name become path
// components, so neither may hold a separator or be a dot name.
var (
	idRE      = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*__[A-Za-z0-9][A-Za-z0-9_.-]*-[0-9]+$`)
	nameRE    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$`)
	versionRE = regexp.MustCompile(`^[0-9]+\.[0-9]+$`)
	hexRE     = regexp.MustCompile(`^[0-9a-f]{40}$`)
	shaRE     = regexp.MustCompile(`^[0-9a-f]{64}$`)
	// A test name as SWE-bench lists sympy's: a bare function name, perhaps with its
	// class ("TestX::test_y" or "TestX.test_y") and pytest's parameter suffix.
	testNameRE = regexp.MustCompile(`^(?:[A-Za-z_][A-Za-z0-9_]*(?:::|\.))?[A-Za-z_][A-Za-z0-9_]*(?:\[[^\x00-\x1f]*\])?$`)
)

// Corpus is a swe-sympy style folder: instances.jsonl, coders/, testers/, bases.git.
type Corpus struct {
	Dir       string
	Instances []*Instance
}

// LoadCorpus reads instances.jsonl of dir and checks every line. ids, when given,
// keeps those instances only (each must exist). Patches are read by LoadPatches.
func LoadCorpus(dir string, ids ...string) (*Corpus, error) {
	file := filepath.Join(dir, "instances.jsonl")
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	defer f.Close()
	c := &Corpus{Dir: dir}
	seen := map[string]bool{}
	r := bufio.NewReaderSize(f, 1<<20)
	for n := 1; ; n++ {
		line, err := readLine(r)
		if errors.Is(err, io.EOF) && len(line) == 0 {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s:%d: %w", file, n, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		inst, err := parseInstance(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, n, err)
		}
		if seen[inst.ID] {
			return nil, fmt.Errorf("%s:%d: instance %s appears twice", file, n, inst.ID)
		}
		seen[inst.ID] = true
		c.Instances = append(c.Instances, inst)
	}
	if len(ids) > 0 {
		keep := make([]*Instance, 0, len(ids))
		for _, id := range ids {
			inst := c.Instance(id)
			if inst == nil {
				return nil, fmt.Errorf("%s: no instance %q", file, id)
			}
			keep = append(keep, inst)
		}
		c.Instances = keep
	}
	return c, nil
}

// Instance finds an instance by id, or nil.
func (c *Corpus) Instance(id string) *Instance {
	for _, inst := range c.Instances {
		if inst.ID == id {
			return inst
		}
	}
	return nil
}

// readLine reads one line of at most maxLine bytes, without its newline.
func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		part, isPrefix, err := r.ReadLine()
		buf = append(buf, part...)
		if len(buf) > maxLine {
			return nil, fmt.Errorf("line longer than %d bytes", maxLine)
		}
		if err != nil {
			return buf, err
		}
		if !isPrefix {
			return buf, nil
		}
	}
}

// parseInstance decodes and checks one instances.jsonl line.
func parseInstance(line []byte) (*Instance, error) {
	var inst Instance
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&inst); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value on the line")
	}
	inst.line = append([]byte(nil), line...)
	return &inst, inst.check()
}

func (inst *Instance) check() error {
	if !idRE.MatchString(inst.ID) {
		return fmt.Errorf("instance_id %q is not an id of the form owner__repo-number", inst.ID)
	}
	where := "instance " + inst.ID + ": "
	if !versionRE.MatchString(inst.Version) {
		return fmt.Errorf("%sversion %q is not major.minor", where, inst.Version)
	}
	if want := "refs/bases/" + inst.ID; inst.BaseRef != want {
		return fmt.Errorf("%sbase_ref %q: want %q", where, inst.BaseRef, want)
	}
	if !hexRE.MatchString(inst.BaseTree) {
		return fmt.Errorf("%sbase_tree %q is not a git tree id", where, inst.BaseTree)
	}
	if strings.TrimSpace(inst.GoldPatch) == "" || strings.TrimSpace(inst.GoldTestPatch) == "" {
		return fmt.Errorf("%sgold_patch or gold_test_patch is empty", where)
	}
	if len(inst.FailToPass) == 0 {
		return fmt.Errorf("%sfail_to_pass is empty", where)
	}
	if len(inst.TestFiles) == 0 {
		return fmt.Errorf("%stest_files is empty", where)
	}
	for _, f := range inst.TestFiles {
		if !localPath(f) || !strings.HasSuffix(f, ".py") {
			return fmt.Errorf("%stest file %q is not a clean relative .py path inside the tree", where, f)
		}
	}
	seen := map[string]bool{}
	for _, list := range [][]string{inst.FailToPass, inst.PassToPass} {
		for _, name := range list {
			if !testNameRE.MatchString(name) {
				return fmt.Errorf("%stest name %q is not a test function's name", where, name)
			}
			if seen[name] {
				return fmt.Errorf("%stest %q is listed twice in fail_to_pass and pass_to_pass", where, name)
			}
			seen[name] = true
		}
	}
	return nil
}

// localPath reports whether a slash path is clean, relative, stays inside the tree
// and holds nothing a shell or git would read specially.
func localPath(p string) bool {
	if p == "" || len(p) > 400 || strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\\\x00\n\r") ||
		path.Clean(p) != p || p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".git" || strings.HasPrefix(part, ".dixit") {
			return false
		}
	}
	return true
}

// LoadPatches reads an instance's coder and test patches, checking every entry of both
// sources.json files against its diff: the file exists, its SHA-256 is the one recorded,
// a duplicate names a patch of the same instance. Every error names the file.
func (c *Corpus) LoadPatches(inst *Instance) error {
	if inst.Coders != nil || inst.Tests != nil {
		return nil
	}
	coders, err := loadCoders(filepath.Join(c.Dir, "coders", inst.ID))
	if err != nil {
		return err
	}
	tests, err := loadTests(filepath.Join(c.Dir, "testers", inst.ID))
	if err != nil {
		return err
	}
	inst.Coders, inst.Tests = coders, tests
	return nil
}

func readIndex(file string, v any) error {
	data, err := readCapped(file, maxIndex)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: not the expected JSON: %w", file, err)
	}
	if dec.More() {
		return fmt.Errorf("%s: more than one JSON value", file)
	}
	return nil
}

// readCapped reads a regular file of at most max bytes.
func readCapped(file string, max int64) ([]byte, error) {
	fi, err := os.Lstat(file)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", file)
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d allowed", file, fi.Size(), max)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max+1))
}

// readDiff reads <dir>/<name>.diff and checks its recorded hash.
func readDiff(dir, name, sha string) ([]byte, error) {
	file := filepath.Join(dir, name+".diff")
	data, err := readCapped(file, maxDiff)
	if err != nil {
		return nil, err
	}
	if sha != "" {
		if !shaRE.MatchString(sha) {
			return nil, fmt.Errorf("%s: recorded sha256 %q is not a SHA-256", file, sha)
		}
		if got := sha256Hex(data); got != sha {
			return nil, fmt.Errorf("%s: SHA-256 %s, but sources.json records %s", file, got, sha)
		}
	}
	return data, nil
}

// diffFiles lists the .diff files of a folder by name, without the extension.
func diffFiles(dir string) (map[string]bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".diff"); ok {
			out[name] = true
		}
	}
	return out, nil
}

func loadCoders(dir string) ([]Coder, error) {
	index := filepath.Join(dir, "sources.json")
	var m map[string]Coder
	if err := readIndex(index, &m); err != nil {
		return nil, err
	}
	onDisk, err := diffFiles(dir)
	if err != nil {
		return nil, err
	}
	var out []Coder
	for _, name := range sortedKeys(m) {
		cd := m[name]
		cd.Name = name
		if !nameRE.MatchString(name) {
			return nil, fmt.Errorf("%s: coder name %q is not a plain file name", index, name)
		}
		if cd.Source == "" {
			return nil, fmt.Errorf("%s: coder %s has no source", index, name)
		}
		switch cd.PublishedLabel {
		case "", "resolved", "unresolved":
		default:
			return nil, fmt.Errorf("%s: coder %s: published_label %q (want resolved or unresolved)", index, name, cd.PublishedLabel)
		}
		if cd.DuplicateOf != "" {
			if _, ok := m[cd.DuplicateOf]; !ok || cd.DuplicateOf == name {
				return nil, fmt.Errorf("%s: coder %s is a duplicate of %q, which is not another coder of the instance", index, name, cd.DuplicateOf)
			}
		}
		if cd.Diff, err = readDiff(dir, name, cd.SHA256); err != nil {
			return nil, err
		}
		delete(onDisk, name)
		out = append(out, cd)
	}
	if len(onDisk) > 0 {
		return nil, fmt.Errorf("%s: patches with no entry in sources.json: %s", dir, strings.Join(sortedKeys(onDisk), ", "))
	}
	// A duplicate's original must be one that is itself an original.
	byName := map[string]*Coder{}
	for i := range out {
		byName[out[i].Name] = &out[i]
	}
	for _, cd := range out {
		if o := byName[cd.DuplicateOf]; o != nil && o.DuplicateOf != "" {
			return nil, fmt.Errorf("%s: coder %s duplicates %s, itself a duplicate", index, cd.Name, cd.DuplicateOf)
		}
	}
	return out, nil
}

func loadTests(dir string) ([]TestPatch, error) {
	index := filepath.Join(dir, "sources.json")
	var wire struct {
		Testers map[string]TestPatch `json:"testers"`
		Dropped []json.RawMessage    `json:"dropped"`
	}
	if err := readIndex(index, &wire); err != nil {
		return nil, err
	}
	if wire.Testers == nil {
		return nil, fmt.Errorf("%s: no \"testers\" object", index)
	}
	onDisk, err := diffFiles(dir)
	if err != nil {
		return nil, err
	}
	var out []TestPatch
	for _, name := range sortedKeys(wire.Testers) {
		tp := wire.Testers[name]
		tp.Name = name
		if !nameRE.MatchString(name) {
			return nil, fmt.Errorf("%s: test patch name %q is not a plain file name", index, name)
		}
		switch tp.AppliesWith {
		case "git-apply", "patch-fuzz3":
		default:
			return nil, fmt.Errorf("%s: test patch %s: applies_with %q (want git-apply or patch-fuzz3)", index, name, tp.AppliesWith)
		}
		for _, fn := range tp.TouchedTests {
			if !testNameRE.MatchString(fn) {
				return nil, fmt.Errorf("%s: test patch %s: touched test %q is not a test function's name", index, name, fn)
			}
		}
		if tp.DuplicateOf != "" {
			if _, ok := wire.Testers[tp.DuplicateOf]; !ok || tp.DuplicateOf == name {
				return nil, fmt.Errorf("%s: test patch %s is a duplicate of %q, which is not another test patch of the instance", index, name, tp.DuplicateOf)
			}
		}
		if tp.Diff, err = readDiff(dir, name, tp.SHA256); err != nil {
			return nil, err
		}
		delete(onDisk, name)
		out = append(out, tp)
	}
	if len(onDisk) > 0 {
		return nil, fmt.Errorf("%s: patches with no entry in sources.json: %s", dir, strings.Join(sortedKeys(onDisk), ", "))
	}
	return out, nil
}

// sortedKeys lists a map's keys in natural order: "x-2" before "x-10".
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return naturalLess(keys[i], keys[j]) })
	return keys
}

// naturalLess compares names with their runs of digits as numbers.
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
