package words

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestCountSaysTheNounThatFitsTheNumber(t *testing.T) {
	assert.Equal(t, "1 event", Count(1, "event", "events"))
	assert.Equal(t, "0 events", Count(0, "event", "events"))
	assert.Equal(t, "73 events", Count(73, "event", "events"))
	assert.Equal(t, "1 entry", Count(1, "entry", "entries"))
	assert.Equal(t, "2 entries", Count(2, "entry", "entries"))
	assert.Equal(t, "retry", Noun(1, "retry", "retries"))
}

func TestListJoinsAsASentenceDoes(t *testing.T) {
	assert.Equal(t, "", List())
	assert.Equal(t, "5 coders", List("5 coders"))
	assert.Equal(t, "5 coders and the patch", List("5 coders", "the patch"))
	assert.Equal(t, "5 coders, the patch and 6 mutants", List("5 coders", "the patch", "6 mutants"))
}

func TestSentencesNeverReadFullStopSemicolon(t *testing.T) {
	got := Sentences("The patch fails 1 of 3 vetted tests; test 1 is the first (fail).", "it turns 0 of the 3 vetted tests that fail on the base revision from failing to passing")
	assert.Equal(t, "The patch fails 1 of 3 vetted tests; test 1 is the first (fail). It turns 0 of the 3 vetted tests that fail on the base revision from failing to passing.", got)
	assert.NotContains(t, got, ".;")
	assert.Equal(t, "One.", Sentences("one", "", "  "))
}

func TestClipCutsAtAWordAndSaysSo(t *testing.T) {
	assert.Equal(t, "short", Clip("short", 10))
	got := Clip("the judge could not install the dependencies of this project", 30)
	assert.LessOrEqual(t, utf8.RuneCountInString(got), 30)
	assert.Equal(t, "the judge could not install…", got)
}
