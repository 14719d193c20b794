package strictyaml_test

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/strictyaml"
)

type inner struct {
	Copies int           `yaml:"copies"`
	Wait   time.Duration `yaml:"wait"`
}

type settings struct {
	Name    string            `yaml:"name"`
	Inner   *inner            `yaml:"inner"`
	List    []inner           `yaml:"list"`
	Env     map[string]string `yaml:"env"`
	Secret  string            `yaml:"-"`
	Untaged bool
}

func TestDecodeKeepsDefaultsAndRecordsLines(t *testing.T) {
	s := settings{Name: "default"}
	lines, err := strictyaml.Decode("f.yml", []byte("inner:\n  copies: 2\nlist:\n  - {wait: 0}\n  - wait: 5m\nuntaged: true\n"), &s)
	require.NoError(t, err)
	assert.Equal(t, "default", s.Name, "an absent key keeps its value")
	assert.Equal(t, 2, s.Inner.Copies)
	assert.Equal(t, 5*time.Minute, s.List[1].Wait)
	assert.True(t, s.Untaged, "an untagged field is its lower-cased name, as yaml.v3 has it")
	assert.Equal(t, strictyaml.Lines{"inner": 1, "inner.copies": 2, "list": 3, "list[0]": 4, "list[0].wait": 4, "list[1]": 5, "list[1].wait": 5, "untaged": 6}, lines)
}

func TestDecodeRefuses(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"a key the struct hides", "secret: x\n", `f.yml line 1: unknown key "secret"; the keys here are name, inner, list, env, untaged`},
		{"a merge key that brings an unknown key", "base: &b {copies: 1, waits: 2s}\n", `f.yml line 1: unknown key "base"; the keys here are name, inner, list, env, untaged`},
		{"a merged section is checked too", "inner:\n  <<: {copies: 1, wiat: 2s}\n", `f.yml line 2: unknown key "wiat" in inner; did you mean "wait"?`},
		{"a mapping as a key", "? {a: 1}\n: 2\n", `f.yml line 1: a key must be a plain name`},
		{"text where a number is wanted, in a list", "list:\n  - copies: two\n", `f.yml line 2: list[0].copies: must be a whole number (got "two")`},
		{"a section where text is wanted", "name: {first: a}\n", `f.yml line 1: name: must be text (got a section of keys)`},
		{"a long value is clipped", "inner: {copies: " + strings.Repeat("x", 60) + "}\n", `f.yml line 1: inner.copies: must be a whole number (got "` + strings.Repeat("x", 40) + `…")`},
		{"a duplicate in free names", "env:\n  A: 1\n  A: 2\n", `f.yml line 3: env.A: set twice (first on line 2)`},
		{"an alias to nothing", "name: *nope\n", `f.yml line 1: an alias (*name) refers to no anchor (&name) above it`},
		{"control characters", "name: \x01\n", `f.yml line 1: the file holds control characters; it must be plain text`},
		{"not UTF-8", "name: \xff\xfe\n", `f.yml line 1: the file is not UTF-8 text`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s settings
			_, err := strictyaml.Decode("f.yml", []byte(tc.yaml), &s)
			assert.EqualError(t, err, tc.want)
		})
	}
}

// A file of nested aliases is small but names a huge tree; the walk stops early.
func TestDecodeBoundsAliases(t *testing.T) {
	doc := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f"} {
		doc += n + ": &" + n + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = n
	}
	var v struct {
		A []string
		B [][]string
		C [][][]string
		D [][][][]string
		E [][][][][]string
		F [][][][][][]string
	}
	_, err := strictyaml.Decode("", []byte(doc), &v)
	assert.ErrorContains(t, err, "aliases (*name) expand the file to more than")
}

func TestSuggest(t *testing.T) {
	known := []string{"reruns", "timeout", "env", "max_rounds", "webhook_secret_file"}
	for typed, want := range map[string]string{
		"rerun": "reruns", "Reruns": "reruns", "timeuot": "timeout", "tiemout": "timeout", "max-rounds": "max_rounds",
		"maxrounds": "max_rounds", "envs": "env", "ENV": "env",
		"webhook_secret": "", "rounds": "", "flavour": "", "e": "", "": "",
	} {
		assert.Equal(t, want, strictyaml.Suggest(typed, known), typed)
	}
}

func TestLocate(t *testing.T) {
	lines := strictyaml.Lines{"test": 3, "test.timeout": 5, "agents.coders[1]": 9}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{strictyaml.Errorf("test.timeout", "too long"), "f.yml line 5: test.timeout: too long"},
		{strictyaml.Errorf("test.run", "must be set"), "f.yml line 3: test.run: must be set"},
		{strictyaml.Errorf("agents.coders[1].name", "bad"), "f.yml line 9: agents.coders[1].name: bad"},
		{strictyaml.Errorf("coders", "too few"), "f.yml: coders: too few"},
		{errors.New("plain"), "f.yml: plain"},
	} {
		assert.EqualError(t, lines.Locate("f.yml", tc.err), tc.want)
	}
	assert.EqualError(t, lines.Locate("", strictyaml.Errorf("test.timeout", "too long")), "line 5: test.timeout: too long")
	assert.NoError(t, lines.Locate("f.yml", nil))

	err := lines.Locate("f.yml", strictyaml.Errorf("test", "unreadable: %w", fs.ErrNotExist))
	assert.ErrorIs(t, err, fs.ErrNotExist, "the cause stays reachable")
}

func TestDescribe(t *testing.T) {
	assert.Equal(t, "a whole number", strictyaml.Describe(int64(0)))
	assert.Equal(t, "a duration such as 90s, 5m or 1h", strictyaml.Describe(time.Second))
	assert.Equal(t, "true or false", strictyaml.Describe(false))
	assert.Equal(t, "a number", strictyaml.Describe(0.5))
}
