package contract

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// FormatBytes writes a byte count the way test.memory takes it: 4GiB, 512MiB, 1000B.
func FormatBytes(n int64) string {
	for _, u := range []struct {
		name  string
		shift uint
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%dB", n)
}

// ParseBytes reads a size as test.memory takes it: a whole number with a unit, B, KiB,
// MiB, GiB or TiB (4GiB, 512MiB).
func ParseBytes(s string) (int64, error) {
	units := []struct {
		name  string
		shift uint
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}
	t := strings.TrimSpace(s)
	for _, u := range units {
		num, ok := strings.CutSuffix(t, u.name)
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
		if err != nil || n < 0 || n > math.MaxInt64>>u.shift {
			break
		}
		return n << u.shift, nil
	}
	return 0, fmt.Errorf("want a whole number and a unit, B, KiB, MiB, GiB or TiB, such as 4GiB (got %q)", s)
}
