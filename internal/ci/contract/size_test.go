package contract

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"4GiB": 4 << 30, "512MiB": 512 << 20, "1TiB": 1 << 40, "100B": 100, " 8 KiB ": 8 << 10} {
		got, err := ParseBytes(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
		assert.Equal(t, want, must(ParseBytes(FormatBytes(got))), "FormatBytes reads back: %s", FormatBytes(got))
	}
	for _, bad := range []string{"4096", "4GB", "-1GiB", "1.5GiB", "GiB", "99999999999TiB"} {
		_, err := ParseBytes(bad)
		assert.Error(t, err, bad)
	}
}

func must(n int64, err error) int64 {
	if err != nil {
		panic(err)
	}
	return n
}
