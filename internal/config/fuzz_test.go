package config_test

import (
	"os"
	"testing"

	"github.com/dixit-bot/dixit/internal/config"
)

// FuzzParse: whatever a repository commits as .github/dixit.yml, Parse answers with
// settings that validate, or with an error; it never panics.
func FuzzParse(f *testing.F) {
	for _, path := range []string{"../../examples/semver/dixit.yml", "../../examples/bench/clamp/dixit.yml"} {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{"", "protocol: critics\ncoders: 1\ntesters: 0\ncritics: {general: true}\n",
		"test: {preset: python, exclude: ['[']}\n", "agents:\n  coders:\n    - {name: a}\n", "coders: &a 3\ntesters: *a\n", "- 1"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := config.Parse(data)
		if err != nil {
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("Parse accepted settings that do not validate: %v\n%s", err, data)
		}
	})
}
